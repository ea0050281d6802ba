"""Replay recorded sessions: parse each one and measure it like a trial, in parallel.

Each session is parsed in a worker process and comes back as the JSON of a small
:class:`~proctor.models.history.SessionSummary` (its events never cross a process boundary), so
a history of any size streams through in flat memory; the summaries are read back in batches
as :class:`~proctor.history.record.SessionRecord` objects, with the collector paused, and kept
in the :mod:`~proctor.history.cache` for the next replay.
A session that cannot be read comes back as an :class:`~proctor.models.history.Unavailable`
with the reason; replay itself never fails.
"""

from __future__ import annotations

import functools
import gc
import os
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass
from datetime import date, datetime
from itertools import chain
from multiprocessing.pool import Pool
from pathlib import Path

import orjson

from proctor.errors import ProctorError
from proctor.history.cache import Stamper, SummaryCache
from proctor.history.layout import Session
from proctor.history.parts import claude_parts, forget_listings, gemini_parts, parts_for_stamp
from proctor.history.projects import Kin, claude_head, same_project, session_project
from proctor.history.readback import BATCH, RESPONSES, each_read, elsewhere, gathered
from proctor.history.record import SessionRecord, local_start
from proctor.metrics.figures import step_figures
from proctor.metrics.trace import event_stamps, plain_steps, time_span
from proctor.models.history import Unavailable
from proctor.models.io import dump_json
from proctor.models.pricing import PriceTable, dollars_by_model
from proctor.models.process import MetricsConfig
from proctor.models.trajectory import HARNESS_MESSAGE, ModelUsage, ResponseTokens
from proctor.transcripts.builder import PlainTrajectory
from proctor.util.clock import in_utc, utc_day
from proctor.util.collection import collection_paused
from proctor.util.cpus import usable_cpus
from proctor.util.memory import keep_freed_memory
from proctor.util.pool import forked_pool, start_worker

SERIAL_BELOW = 8
"""Fewer sessions than this are replayed in this process: a pool would cost more than it saves."""
PARALLEL_SIZES_FROM = 2_000
"""The fewest sessions whose files' sizes (the order they start in) are taken on the pool."""


@dataclass(frozen=True)
class Filters:
    """Which sessions count: a project folder, and a window on the session's start (days in
    the local time zone)."""

    project: Path | None = None
    since: date | None = None
    until: date | None = None

    def keeps(self, summary: SessionRecord) -> bool:
        """Whether a measured session is in the project and its start in the window."""
        if self.project is not None and not same_project(summary.project, self.project):
            return False
        if self.since is None and self.until is None:
            return True
        start = local_start(summary)  # the day on the user's clock, as the CLIs show it
        if start is None:
            return False
        day = start.date()
        return (self.since is None or day >= self.since) and (
            self.until is None or day <= self.until
        )


def _parse(
    session: Session, project: str | None, inherited: frozenset[str] = frozenset()
) -> PlainTrajectory:
    """The session parsed with its events left as objects: a replay measures them and keeps
    none, and building their models would be most of its time."""
    read = _reader(session.agent)
    if session.agent == "claude-code":
        return read(session.file, claude_parts(session.file), inherited)
    if session.agent == "codex":
        # With the threads of the subagents it spawned (found when the history was listed).
        return read(session.path, session.parts)
    cwd = project if project and not project.startswith("gemini:") else None
    # (A chat's subagents found beside another copy of it, when listed: see copies.)
    parts = [Path(part) for part in session.parts] or gemini_parts(session.path)
    return read(session.path, cwd, parts)


@functools.cache
def _reader(agent: str) -> Callable[..., PlainTrajectory]:
    """An agent's reader for a measure, imported by the first session it reads (in each
    worker): a history of one CLI's sessions imports none of the others'. Looked up, not
    imported again, for each session: an import statement is about a hundredth of a short
    session's measure."""
    if agent == "claude-code":
        from proctor.transcripts.claude.measure import parse_claude_for_measure

        return parse_claude_for_measure
    if agent == "codex":
        from proctor.transcripts.codex import parse_codex_threads_plain

        return parse_codex_threads_plain
    from proctor.transcripts.gemini import parse_gemini_chat_plain

    return parse_gemini_chat_plain


def measure_session(
    session: Session,
    project_filter: Path | None,
    pricing: PriceTable,
    inherited: frozenset[str] = frozenset(),
    metrics: MetricsConfig | None = None,
    *,
    keyed: bool = False,
) -> bytes | Unavailable | Kin | None:
    """The summary of one session as JSON (what crosses a process boundary and what the cache
    keeps); None when it ran in another project than ``project_filter``, which is told from
    the file's first lines before any parsing (with ``keyed``, a Claude Code session's
    :data:`~proctor.history.projects.Kin` instead, read in the same lines). ``inherited``: the
    uuids of the lines a Claude Code fork copied from an earlier session, left out (see
    :mod:`proctor.history.forks`). ``metrics``: the project's check patterns and rule
    thresholds (default: proctor's)."""
    try:
        return _measure(session, project_filter, pricing, inherited, metrics, keyed)
    except Exception as exc:
        reason = f"could not be measured: {type(exc).__name__}: {exc}"
        return Unavailable(agent=session.agent, path=session.file, reason=reason)


def _measure(
    session: Session,
    project_filter: Path | None,
    pricing: PriceTable,
    inherited: frozenset[str],
    metrics: MetricsConfig | None,
    keyed: bool,
) -> bytes | Unavailable | Kin | None:
    # A Claude Code parse reads the session's folder itself; read beforehand, it only spares
    # parsing the sessions of other projects.
    project = None
    if project_filter is not None or not _is_claude(session):
        kin = None
        if project_filter is not None and keyed and _is_claude(session):
            project, kin = claude_head(session.path)  # read in the same lines
        else:
            project = session_project(session)
        if project_filter is not None and not same_project(project, project_filter):
            return kin
    try:
        trajectory = _parse(session, project, inherited)
    except (ProctorError, OSError, ValueError) as exc:
        # The parser names the file; the entry names it already.
        reason = str(exc).removeprefix(f"{session.file}: ")
        return Unavailable(agent=session.agent, path=session.file, reason=reason)
    if _is_claude(session):
        project = trajectory.cwd
    coverage = trajectory.coverage
    events = trajectory.events
    known = coverage.lines - coverage.unparsed_lines - sum(coverage.unknown_record_types.values())
    # (A Gemini CLI chat of the older releases is one line: a message of an unknown type
    # among the others leaves it none known, but its other messages were read.)
    if known <= 0 and not trajectory.usage and all(_other(event) for event in events):
        # An empty file, one whose first line is still being written, or one of another
        # format under the CLI's folder.
        reason = "empty" if coverage.lines == 0 else f"no {session.agent} record in it"
        if coverage.lines == coverage.unparsed_lines > 0 and _cut_short(session):
            reason = _CUT_SHORT
        return Unavailable(agent=session.agent, path=session.file, reason=reason)
    if not trajectory.usage and all(_other(event) for event in events):
        other = _written_by_another(session)
        if other is not None:  # a Gemini CLI chat copied into Claude Code's folder, say
            reason = f"a {other} session, not one of {session.agent}'s: left out"
            return Unavailable(agent=session.agent, path=session.file, reason=reason)
    if not trajectory.usage and not trajectory.stamps and all(map(_context, events)):
        # A title alone (older Claude Code releases write such files beside a session), a
        # chat or a rollout without a message (its header alone), or one holding only the
        # context the CLI wrote into it when it opened, no prompt: nothing ran.
        if events:
            reason = "no message in it, the CLI's own context alone"
        else:
            reason = "no message in it" + (", a title alone" if _a_title_in(session) else "")
        return Unavailable(agent=session.agent, path=session.file, reason=reason)
    # The events a reader for a measure built as objects have their times in .stamps.
    stamps = event_stamps((e for e in events if type(e) is dict), trajectory.stamps or ())
    started, ended = time_span(stamps)
    if started is None and trajectory.started:
        # Events without times (a Codex rollout of the releases before the envelope): the
        # header's is the one time known, the start and the end alike (how long it took is
        # not known).
        started, ended = time_span([trajectory.started])
    workspace = project if project and not project.startswith("gemini:") else None
    # No expected files: the context figures take the edited files as their proxy gold.
    figures = step_figures(plain_steps(events, workspace), started, metrics)
    by_model, cost_usd, unpriced = session_cost(
        trajectory.usage, pricing, trajectory.usage_rows, utc_day(started)
    )
    # The summary's JSON written from its figures as they stand: each value is of its field's
    # type already, and the parent validates every summary it reads back. Building the
    # models of a trial's metrics, then the summary's, then its JSON, cost a short session
    # about a third of its measure.
    fields = {
        "agent": session.agent,
        "path": session.file,
        "sessionId": trajectory.session_id,
        "project": project,
        "startedAt": _utc_text(started),
        "endedAt": _utc_text(ended),
        # One time at both ends is no span: how long the session took is not known.
        "durationSeconds": (
            (ended - started).total_seconds() if started and ended and started != ended else None
        ),
        "isTask": figures.is_task,
        "verified": figures.verified,
        "steps": {
            "toolCalls": sum(figures.by_kind.values()),
            "byKind": figures.by_kind,
            "reads": figures.reads,
            "searches": figures.searches,
            "edits": figures.edits,
            "checks": figures.checks,
        },
        "orientation": {
            "readsBeforeFirstEdit": figures.reads_before_first_edit,
            "stepsBeforeFirstEdit": figures.steps_before_first_edit,
            "secondsToFirstEdit": figures.seconds_to_first_edit,
        },
        "checks": figures.checks,
        "failedChecks": figures.failed_checks,
        "loops": figures.loops,
        "rulesFired": figures.rules_fired,
        "editedFiles": figures.edited_files,
        "redundancyProxy": figures.redundancy,
        "aucCovProxy": figures.auc_cov,
        "usage": {
            model: {
                "inputTokens": used.input_tokens,
                "outputTokens": used.output_tokens,
                "cacheReadTokens": used.cache_read_tokens,
                "cacheWriteTokens": used.cache_write_tokens,
                "responses": used.responses,
                "cacheWrite1hTokens": used.cache_write_1h_tokens,
            }
            for model, used in trajectory.usage.items()
        },
        "costByModel": by_model,
        "costUsd": cost_usd,
        "unpricedModels": unpriced,
        "unknownRecords": sum(coverage.unknown_record_types.values()) + coverage.unparsed_lines,
    }
    try:
        blob = orjson.dumps(fields)
    except TypeError:  # a path that is not UTF-8: its bytes shown escaped
        blob = dump_json(fields, indent=False).encode()  # the C encoder: it leaves no cycle
    if trajectory.responses is None:
        return blob
    ids = [row[0] for row in trajectory.responses]
    rows = [row[1:] for row in trajectory.responses]
    return blob + RESPONSES + orjson.dumps(ids) + RESPONSES + orjson.dumps(rows)


_CUT_SHORT = (
    "its first line is not whole JSON and no line after it is (cut short while it was written?)"
)


def _cut_short(session: Session) -> bool:
    """Whether a session file none of whose lines reads is its only line being written (an
    object begun, not whole JSON), not another program's file."""
    from proctor.transcripts.cut_short import only_line_cut

    return only_line_cut(session.path) is not None


def _written_by_another(session: Session) -> str | None:
    """The other CLI that wrote a session file in which its own agent's reader found no
    event, when its first records tell one (the files of a history folder are taken to be
    its CLI's, unread, and another's records may partly read as its own)."""
    from proctor.history.sniff import sniff

    found = sniff(session.file)
    return found if found is not None and found != session.agent else None


def _utc_text(moment: datetime | None) -> str | None:
    """A time in UTC (``…+00:00``), as the sessions written in another offset are shown too
    (see :func:`~proctor.util.clock.in_utc`)."""
    return None if moment is None else in_utc(moment).isoformat()


def session_cost(
    usage: dict[str, ModelUsage],
    pricing: PriceTable,
    responses: Iterable[ResponseTokens] | None = None,
    day: date | None = None,
) -> tuple[dict[str, float | None], float | None, list[str]]:
    """A session's dollars per model (None for a model without a price), their sum over the
    priced models (None when none is priced), and the models without a price. With the
    ``responses`` that gave ``usage``, a long prompt's response costs its model's
    long-context rates; ``day``, the day the session started, picks a list price that changes
    on a day."""
    by_model, unpriced = dollars_by_model(usage, pricing, responses, day)  # (no CostInfo model)
    priced = [dollars for dollars in by_model.values() if dollars is not None]
    return by_model, (round(sum(priced), 6) if priced else None), unpriced


# The pool's workers are forked with these set, so that only a session's place in ``_JOBS``
# crosses the pipe.
_PROJECT: Path | None = None
_PRICING = PriceTable()
_METRICS: MetricsConfig | None = None
_STAMPER: Stamper | None = None
_KEYED = False
_JOBS: list[Job] = []


_COLLECT_AFTER = 50_000
"""Objects a worker may have allocated and kept (net of those freed) before it runs the
cyclic collector, between two sessions."""


def _start_worker() -> None:
    # The parent's objects the worker inherited (every module and schema) are left out of the
    # collector's walks for good. The collector stays paused, as the parent paused it: a
    # session's measure leaves no reference cycle (its objects go as soon as it is done), and
    # walking what a long session keeps alive while it is read, again and again, cost about a
    # tenth of a worker's time. It runs between two sessions once enough has built up (see
    # :func:`_measure_in_worker`), which bounds a worker's memory if a measure ever does leave
    # a cycle.
    gc.freeze()
    gc.disable()
    keep_freed_memory()  # a block of lines read is a buffer of a megabyte, freed and again
    start_worker()


Other = tuple[Session, "SessionRecord | Kin"]
"""A Claude Code session of another project than the replay's, with its summary (read from
the cache) or its :data:`~proctor.history.projects.Kin`."""
Job = tuple[int, Session, "str | None"]
"""A session to measure: its place in the list, and its stamp when the parent took one."""
Measured = tuple[int, "bytes | Unavailable | Kin | None", "str | None"]


def _measure_job(
    job: Job, project: Path | None, pricing: PriceTable, stamper: Stamper | None
) -> Measured:
    index, session, stamp = job
    if stamp is None and stamper is not None:
        # Taken before the session is read: a session that grows meanwhile is read again next
        # time, never left with a summary older than its stamp.
        stamp = stamper.stamp(session, parts_for_stamp(session))
    # (The rule settings, one for the whole replay, as set by replay(): see _METRICS.)
    # (The kin of other projects' sessions asked for or not, as set by replay(): see _KEYED.)
    return index, measure_session(session, project, pricing, metrics=_METRICS, keyed=_KEYED), stamp


def _measure_in_worker(job: Job) -> Measured:
    measured = _measure_job(job, _PROJECT, _PRICING, _STAMPER)
    if gc.get_count()[0] > _COLLECT_AFTER:
        gc.collect()
    return measured


def _measure_chunk(places: list[int]) -> list[Measured]:
    """A chunk of sessions measured in a worker, given by their places in ``_JOBS`` (the
    worker has the list from its fork: pickling each session to send it cost the parent and
    the workers 30 ms on 12,000 sessions). Its results cross the pipe, and reach the parent's
    loop, as one item (the pool's own chunks hand each result on by itself, and tens of
    thousands of hand-overs between the parent's threads cost more than the pipe)."""
    return [_measure_in_worker(_JOBS[place]) for place in places]


_BATCH_LEAST = 8
"""The fewest summaries a batch gathered from the workers holds."""


def replay(
    sessions: Iterable[Session],
    filters: Filters,
    pricing: PriceTable,
    *,
    workers: int | None = None,
    cache: SummaryCache | None = None,
    metrics: MetricsConfig | None = None,
    others: list[Other] | None = None,
) -> Generator[SessionRecord | Unavailable, None, None]:
    """Every session replayed, in batches as they finish (in no particular order), on
    ``workers`` processes (default: one per CPU it may use, see
    :func:`~proctor.util.cpus.usable_cpus`). Sessions the filters leave out are not
    yielded. With a ``cache``, a session whose files are unchanged since an earlier replay
    is read from it, and the sessions replayed now are added to it. ``metrics``: the rule
    settings (default: proctor's). With ``others``, each Claude Code session the project
    filter leaves out is added to it, with its summary when the cache holds one, else with
    its :data:`~proctor.history.projects.Kin` (see :mod:`proctor.history.kin`). Closing the
    generator early stops the workers."""
    global _PROJECT, _PRICING, _METRICS, _STAMPER, _KEYED, _JOBS
    forget_listings()  # listings are kept for one replay only
    _METRICS = metrics  # read by each measure, here and in the workers forked below
    _KEYED = others is not None and filters.project is not None
    jobs: list[Job] = []
    with collection_paused():
        if cache is None:
            jobs = [(i, s, None) for i, s in enumerate(sessions)]
        else:
            hits: list[tuple[Session, str]] = []
            stored: list[bytes] = []
            for session in sessions:
                if not cache.has(session):  # new: stamped where it is measured
                    jobs.append((len(jobs), session, None))
                    continue
                parts = parts_for_stamp(session)
                stamp = cache.stamp(session, parts)
                found = cache.get(session, stamp, parts)
                if found is None:
                    jobs.append((len(jobs), session, stamp))
                else:
                    hits.append((session, stamp))
                    stored.append(found)
            for (session, stamp), summary in zip(hits, each_read(stored), strict=True):
                if summary is None:  # a damaged row: the session is replayed and the row fixed
                    jobs.append((len(jobs), session, stamp))
                    continue
                # The file as this replay names it (the row may come from a replay given a
                # relative path from another folder).
                if summary.path != session.file:
                    summary.path = session.file
                if filters.keeps(summary):
                    yield summary
                elif others is not None and elsewhere(summary, filters):
                    others.append((session, summary))
            del hits, stored
        todo = [session for _, session, _ in jobs]
        stamper = cache.stamper if cache is not None else None
        count = min(workers or usable_cpus(), len(jobs))  # never more workers than sessions
        if count <= 1 or len(jobs) < SERIAL_BELOW:
            results: Iterable[Measured] = (
                _measure_job(job, filters.project, pricing, stamper) for job in jobs
            )
            yield from gathered(results, todo, filters, cache, BATCH, others)
            return
        _PROJECT, _PRICING, _STAMPER, _JOBS = filters.project, pricing, stamper, jobs
        try:
            with forked_pool(count, _start_worker) as pool:
                # A job's index is its place in ``_JOBS``.
                places = [job[0] for job in largest_first(jobs, pool, count)]
                # Chunks amortise the pipe over small sessions; sixty-four per worker keep the
                # load even to the end (the last chunk of one worker is all the other may wait
                # for).
                size = max(1, len(places) // (count * 64))
                chunks = [places[start : start + size] for start in range(0, len(places), size)]
                results = chain.from_iterable(pool.imap_unordered(_measure_chunk, chunks))
                # Summaries are read back while the workers go on: a batch left for the end
                # would be read back after the last session, with every worker done.
                batch = min(BATCH, max(_BATCH_LEAST, len(jobs) // 32))
                yield from gathered(results, todo, filters, cache, batch, others)
        finally:
            _JOBS = []


def _other(event: object) -> bool:
    """Whether an event stands for a record the parser did not read (unparsed, or unknown)."""
    return type(event) is dict and event.get("type") == "other"


def _context(event: object) -> bool:
    """Whether an event holds the context a CLI wrote into its session itself (see
    :data:`~proctor.models.trajectory.HARNESS_MESSAGE`), no prompt."""
    return type(event) is dict and event.get("recordType") == HARNESS_MESSAGE


def _is_claude(session: Session) -> bool:
    return session.agent == "claude-code"


_TITLES = (b'"summary"', b'"custom-title"', b'"ai-title"')


def _a_title_in(session: Session) -> bool:
    """Whether a Claude Code file without a message holds a title (a ``summary`` line, as
    older releases leave beside a session, or a ``custom-title``): a file of bookkeeping
    lines alone (a copy of a session's first queue operations, say) holds none."""
    if not _is_claude(session):
        return False
    try:
        with open(session.file, "rb") as file:
            text = file.read()
    except OSError:
        return False
    return any(b'"type":' + title in text or b'"type": ' + title in text for title in _TITLES)


def largest_first(jobs: list[Job], pool: Pool, count: int) -> list[Job]:
    """The jobs with the largest files first (small sessions first would leave a big one for
    last), those of the same size in the order given. Many files' sizes are taken on the
    ``count`` processes of ``pool``: a file's status is a system call, which costs several
    microseconds on some hosts (0.1 s for 20,000 files)."""
    files = [job[1].file for job in jobs]
    if len(files) < PARALLEL_SIZES_FROM:
        sizes = list(map(_size, files))
    else:
        step = -(-len(files) // count)
        parts = [files[start : start + step] for start in range(0, len(files), step)]
        sizes = list(chain.from_iterable(pool.map(_sizes, parts)))
    order = sorted(range(len(jobs)), key=sizes.__getitem__, reverse=True)
    return [jobs[i] for i in order]


def _size(file: str) -> int:
    try:
        return os.stat(file).st_size
    except OSError:
        return 0


def _sizes(files: list[str]) -> list[int]:
    return list(map(_size, files))
