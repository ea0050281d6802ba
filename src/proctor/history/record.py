"""A replayed session's summary as a history carries it: :class:`SessionRecord`.

A replay reads tens of thousands of summaries back from its workers and its cache, sums them
up and writes them out. :class:`~proctor.models.history.SessionSummary`, the pydantic model,
stays what a report's session *is* (its JSON schema, and what reads a report back); the replay
carries each one as a :class:`SessionRecord` instead: a ``msgspec`` struct with the same fields
under the same JSON names, in the same order. One is read from its JSON about five times as
fast as the model, and written back byte for byte as the model writes it
(``tests/unit/history/test_record.py`` holds the two to that).

A summary is read the fast way when it is exactly in the shape a replay writes: every value of
its field's type, no key the summary does not have. Any other text (a cache row edited by
hand, or one an older proctor wrote) is read by the model, whose reading is the rule, and
carried over from it; a text neither reads is not a summary.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

import msgspec
from pydantic import ValidationError

from proctor.models.history import SessionSummary
from proctor.models.io import dump_json
from proctor.models.trajectory import ModelUsage


class UsageRecord(msgspec.Struct, rename="camel", forbid_unknown_fields=True, gc=False):
    """:class:`~proctor.models.trajectory.ModelUsage` of one model."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    responses: int = 0
    cache_write_1h_tokens: int = msgspec.field(default=0, name="cacheWrite1hTokens")


class StepsRecord(msgspec.Struct, rename="camel", forbid_unknown_fields=True, gc=False):
    """:class:`~proctor.models.process.StepCounts`."""

    tool_calls: int = 0
    by_kind: dict[str, int] = {}
    reads: int = 0
    searches: int = 0
    edits: int = 0
    checks: int = 0


class OrientationRecord(msgspec.Struct, rename="camel", forbid_unknown_fields=True, gc=False):
    """:class:`~proctor.models.process.Orientation`."""

    reads_before_first_edit: int | None = None
    steps_before_first_edit: int | None = None
    seconds_to_first_edit: float | None = None


class SessionRecord(msgspec.Struct, rename="camel", forbid_unknown_fields=True, dict=True):
    """:class:`~proctor.models.history.SessionSummary`, field for field (see its docs).

    A Claude Code session's response digests ride along as attributes that are not fields,
    and so are never written out (see :func:`responses_of`)."""

    agent: str
    path: str
    session_id: str | None = None
    project: str | None = None
    started_at: str | None = None
    ended_at: str | None = None
    duration_seconds: float | None = None
    is_task: bool = False
    verified: bool | None = None
    steps: StepsRecord = msgspec.field(default_factory=StepsRecord)
    orientation: OrientationRecord = msgspec.field(default_factory=OrientationRecord)
    checks: int = 0
    failed_checks: int = 0
    loops: int = 0
    rules_fired: list[str] = []
    edited_files: list[str] = []
    redundancy_proxy: float | None = None
    auc_cov_proxy: float | None = None
    usage: dict[str, UsageRecord] = {}
    cost_by_model: dict[str, float | None] = {}
    cost_usd: float | None = None
    unpriced_models: list[str] = []
    unknown_records: int = 0


Response = tuple[int, bool, str, int, int, int, int, int]
"""A response a session counted: its digest, sidechain flag, model, four token counts and the
part of its cache write kept for an hour."""

_read_many = msgspec.json.Decoder(list[SessionRecord]).decode
_read_one = msgspec.json.Decoder(SessionRecord).decode
_encoder = msgspec.json.Encoder()


def records_of(texts: Sequence[bytes]) -> list[SessionRecord | None]:
    """Each summary's JSON text read (see the module docstring); None for a text that is no
    summary. All in one call when every one is in the replay's own shape."""
    if not texts:
        return []
    try:
        found: list[SessionRecord | None] = list(_read_many(b"[" + b",".join(texts) + b"]"))
    except (msgspec.DecodeError, RecursionError):
        found = []
    if len(found) == len(texts):
        return found
    return [record_of(text) for text in texts]


def record_of(text: bytes) -> SessionRecord | None:
    """One summary's JSON text read (see :func:`records_of`)."""
    try:
        return _read_one(text)
    except (msgspec.DecodeError, RecursionError):
        pass
    try:  # the model's reading: a value it converts, an older row, a lone surrogate
        summary = SessionSummary.model_validate_json(text)
    except (ValidationError, ValueError):
        return None
    return from_summary(summary)


def from_summary(summary: SessionSummary) -> SessionRecord:
    """The record of a summary model (its digests, when it holds them, carried over)."""
    record = msgspec.convert(summary, SessionRecord, from_attributes=True)
    if summary.response_ids is not None:
        set_responses(record, summary.response_ids, summary.response_rows)
    return record


def to_summary(record: SessionRecord) -> SessionSummary:
    """The summary model of a record (without its digests)."""
    return SessionSummary.model_validate(msgspec.to_builtins(record))


def usage_records(usage: dict[str, ModelUsage]) -> dict[str, UsageRecord]:
    return {
        model: UsageRecord(
            used.input_tokens,
            used.output_tokens,
            used.cache_read_tokens,
            used.cache_write_tokens,
            used.responses,
            used.cache_write_1h_tokens,
        )
        for model, used in usage.items()
    }


def set_responses(record: SessionRecord, ids: list[int], rows: bytes | None) -> None:
    """Attach a session's response digests, and its rows' JSON (read when needed)."""
    extra = vars(record)
    extra["response_ids"] = ids
    extra["response_rows"] = rows


def responses_of(record: SessionRecord) -> tuple[list[int] | None, bytes | None]:
    """A session's response digests and their rows' JSON; None, None when it holds none
    (a Codex or Gemini CLI session)."""
    extra = vars(record)
    return extra.get("response_ids"), extra.get("response_rows")


def records_json(records: Iterable[SessionRecord]) -> bytes:
    """A JSON array of the records, each as the model writes it (compact). A record holding a
    lone surrogate (a file name that is not UTF-8) is written with it escaped."""
    buffer = bytearray()
    write_records(records, buffer)
    return bytes(buffer)


def write_records(records: Iterable[SessionRecord], buffer: bytearray) -> None:
    """:func:`records_json` written at the end of ``buffer``: a history's sessions are many
    megabytes, written where the report's text is made rather than copied into it."""
    items = list(records)
    start = len(buffer)
    try:
        _encoder.encode_into(items, buffer, -1)
        return
    except UnicodeEncodeError:
        del buffer[start:]
    parts = []
    for record in items:
        try:
            parts.append(_encoder.encode(record))
        except UnicodeEncodeError:
            parts.append(dump_json(msgspec.to_builtins(record), indent=False).rstrip().encode())
    buffer += b"[" + b",".join(parts) + b"]"


def local_start(session: SessionRecord) -> datetime | None:
    """When the session started, on the machine's clock (the days and weeks a history is
    kept by); None when undated. A start that has no local time (a damaged clock's year 1,
    west of UTC) is kept in its own offset: a replay never fails on a session's clock."""
    if not session.started_at:
        return None
    moment = datetime.fromisoformat(session.started_at)
    try:
        return moment.astimezone()
    except (OverflowError, ValueError, OSError):
        return moment
