"""Which usage lines of a Codex rollout count, once per model response, decided as they come.

Codex 0.171 writes a ``token_usage_record`` per response (by ``response_id``) and then an
``event_msg/token_count``; older CLIs write only the ``token_count``. Records win where they
exist: a ``token_count`` that follows a record (since the previous ``token_count``) is that
record's response again and is left out. A ``token_count`` with no record since the previous
one is a response of an older CLI (a resumed rollout, or a rollout with no records at all) and
counts from its own numbers. A ``token_count`` whose ``total_token_usage`` equals the previous
one is a repeat; when only the total is given, the delta from the previous total is the
response's usage. A ``token_count`` copied with a parent thread's history (see
:mod:`.copies`) counts nothing: its total is the baseline the thread's own totals grow from.
"""

from __future__ import annotations

import json
from typing import Any

from proctor.transcripts.builder import TrajectoryBuilder, UsageRow, token_count
from proctor.transcripts.codex.shapes import normalise_usage

FIELDS = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens")
COUNTS = ("input_tokens", "cached_input_tokens", "output_tokens", "cache_write_input_tokens")
"""The token counts of an OpenAI usage object that a response's usage row is made of."""


class CodexUsage:
    """The usage lines of one rollout as they are read; the ones that count go to the builder."""

    def __init__(self, builder: TrajectoryBuilder) -> None:
        self.builder = builder
        self.record_since_count = False
        self.responses: set[str] = set()
        self.previous_total: dict[str, Any] | None = None
        self.previous_fingerprint: Any = None
        self.inherited_total: dict[str, Any] | None = None
        """The last total copied with a parent thread's history: the parent's tokens."""
        self.repeats = 0
        self.from_records = 0
        self.from_counts = 0
        self.computed = dict.fromkeys(FIELDS, 0)

    def _count(self, usage: dict[str, Any], model: str, ts: str | None) -> bool:
        inp, out, read, write = normalise_usage(usage)
        if not (inp or out or read or write):
            return False
        row: UsageRow = (model, inp, out, read, write, 0)
        self.builder.usage(row, ts)
        for field, value in zip(FIELDS, row[1:5], strict=True):
            self.computed[field] += value
        return True

    def record(self, payload: dict[str, Any], model: str, ts: str | None) -> None:
        """A ``token_usage_record`` line (``model``: the session's, unless it names one)."""
        response = payload.get("response_id")
        if isinstance(response, str):
            if response in self.responses:
                return
            self.responses.add(response)
        usage = payload.get("usage")
        named = payload.get("model")
        named = named if isinstance(named, str) and named else model
        if isinstance(usage, dict):
            self.builder.check_counts(usage, COUNTS, ts)
            if self._count(usage, named, ts):
                self.from_records += 1
                self.record_since_count = True

    def token_count(self, payload: dict[str, Any], model: str, ts: str | None) -> None:
        """An ``event_msg/token_count`` line."""
        info = payload.get("info")
        if not isinstance(info, dict):
            return
        total = info.get("total_token_usage")
        last = info.get("last_token_usage")
        total = total if isinstance(total, dict) else None
        last = last if isinstance(last, dict) else None
        if total is not None:
            fingerprint: Any = json.dumps(total, sort_keys=True)
        else:
            fingerprint = (ts, json.dumps(last, sort_keys=True))
        if fingerprint == self.previous_fingerprint:
            self.repeats += 1
            return
        self.previous_fingerprint = fingerprint
        if last is not None:
            self.builder.check_counts(last, COUNTS, ts)
        delta = last
        if delta is None and total is not None:
            before = self.previous_total or {}
            delta = {k: token_count(v) - token_count(before.get(k)) for k, v in total.items()}
        if total is not None:
            self.previous_total = total
        covered, self.record_since_count = self.record_since_count, False
        if delta is not None and not covered and self._count(delta, model, ts):
            self.from_counts += 1

    def inherit(self, payload: dict[str, Any]) -> None:
        """A ``token_count`` line copied with the parent thread's history."""
        info = payload.get("info")
        total = info.get("total_token_usage") if isinstance(info, dict) else None
        if isinstance(total, dict):
            self.previous_total = self.inherited_total = total
            self.previous_fingerprint = json.dumps(total, sort_keys=True)

    def source(self) -> str | None:
        if self.from_records and self.from_counts:
            return "token_usage_record+token_count"
        if self.from_records:
            return "token_usage_record"
        return "token_count" if self.from_counts else None

    def check(self) -> dict[str, Any]:
        """The counted sum against the last ``total_token_usage`` (see ``codex_usage_check``)."""
        reported: dict[str, int] | None = None
        difference: dict[str, int] | None = None
        if self.previous_total is not None:
            # A thread's totals go on from its parent's: the part inherited is not its own.
            inherited = normalise_usage(self.inherited_total or {})
            now = normalise_usage(self.previous_total)
            reported = {f: n - i for f, n, i in zip(FIELDS, now, inherited, strict=True)}
            difference = {k: reported[k] - self.computed[k] for k in FIELDS}
        return {
            "source": self.source(),
            "responses": self.from_records + self.from_counts,
            "repeatsSkipped": self.repeats,
            "computed": dict(self.computed),
            "reported": reported,
            "difference": difference,
            "ok": None if difference is None else not any(difference.values()),
        }
