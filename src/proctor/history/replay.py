"""Replay recorded sessions: parse each one and measure it like a trial, in parallel.

Each session is parsed in a worker process and comes back as a small
:class:`~proctor.models.history.SessionSummary` (its events never cross a process boundary), so
a history of any size streams through in flat memory. A session that cannot be read comes back
as an :class:`~proctor.models.history.Unavailable` with the reason; replay itself never fails.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from proctor.errors import ProctorError
from proctor.history.sources import Session, same_project, session_project
from proctor.metrics.process import compute_process_metrics
from proctor.metrics.rules import evaluate_rules
from proctor.metrics.trace import parse_ts
from proctor.models.history import SessionSummary, Unavailable
from proctor.models.pricing import PriceTable, price_usage
from proctor.models.trajectory import Trajectory
from proctor.util.native_paths import first_record

SERIAL_BELOW = 8
"""Fewer sessions than this are replayed in this process: a pool would cost more than it saves."""


@dataclass(frozen=True)
class Filters:
    """Which sessions count: a project folder, and a window on the session's start."""

    project: Path | None = None
    since: date | None = None
    until: date | None = None

    def keeps_start(self, started: datetime | None) -> bool:
        if self.since is None and self.until is None:
            return True
        if started is None:
            return False
        day = started.date()
        return (self.since is None or day >= self.since) and (
            self.until is None or day <= self.until
        )


@functools.lru_cache(maxsize=64)
def _legacy_subagents(project_folder: Path) -> dict[str, list[Path]]:
    """Subagent files an older Claude Code wrote beside the sessions (``agent-*.jsonl``), by
    the session id they name; read once per project folder, not once per session."""
    found: dict[str, list[Path]] = {}
    for path in sorted(project_folder.glob("agent-*.jsonl")):
        session_id = first_record(path).get("sessionId")
        if isinstance(session_id, str):
            found.setdefault(session_id, []).append(path)
    return found


def claude_parts(main: Path) -> list[Path]:
    """The subagent files of the Claude Code session ``main`` (see
    :func:`proctor.util.native_paths.claude_subagent_files`, which this matches)."""
    session_id = main.name.removesuffix(".jsonl")
    nested = main.parent / session_id / "subagents"
    if nested.is_dir():
        found = sorted(nested.glob("agent-*.jsonl"))
        if found:
            return found
    return _legacy_subagents(main.parent).get(session_id, [])


def _parse(session: Session, project: str | None) -> Trajectory:
    from proctor.transcripts.claude import parse_claude_session
    from proctor.transcripts.codex import parse_codex_rollout
    from proctor.transcripts.gemini import parse_gemini_chat

    if session.agent == "claude-code":
        return parse_claude_session(session.path, claude_parts(session.path))
    if session.agent == "codex":
        return parse_codex_rollout(session.path)
    cwd = project if project and not project.startswith("gemini:") else None
    return parse_gemini_chat(session.path, cwd)


def replay_session(
    session: Session, filters: Filters, pricing: PriceTable
) -> SessionSummary | Unavailable | None:
    """One session measured; None when the filters leave it out; whatever goes wrong with it
    (a file proctor cannot parse, a figure it cannot compute) makes it unavailable, never
    stops the replay."""
    try:
        return _replay(session, filters, pricing)
    except Exception as exc:
        reason = f"could not be measured: {type(exc).__name__}: {exc}"
        return Unavailable(agent=session.agent, path=str(session.path), reason=reason)


def _replay(
    session: Session, filters: Filters, pricing: PriceTable
) -> SessionSummary | Unavailable | None:
    project = session_project(session)
    if filters.project is not None and not same_project(project, filters.project):
        return None
    try:
        trajectory = _parse(session, project)
    except (ProctorError, OSError, ValueError) as exc:
        return Unavailable(agent=session.agent, path=str(session.path), reason=str(exc))
    events = trajectory.events
    stamps = [t for t in (parse_ts(e.ts) for e in events) if t is not None]
    started = min(stamps) if stamps else None
    if not filters.keeps_start(started):
        return None
    ended = max(stamps) if stamps else None
    workspace = project if project and not project.startswith("gemini:") else None
    # No expected files: the context figures take the edited files as their proxy gold.
    metrics = compute_process_metrics(events, workspace=workspace)
    proxy = metrics.context.basis == "edited-proxy"
    cost = price_usage(trajectory.usage, pricing)
    return SessionSummary(
        agent=session.agent,
        path=str(session.path),
        session_id=trajectory.session_id,
        project=project,
        started_at=started.isoformat() if started else None,
        ended_at=ended.isoformat() if ended else None,
        duration_seconds=(ended - started).total_seconds() if started and ended else None,
        is_task=metrics.is_task,
        verified=metrics.verified if metrics.is_task else None,
        steps=metrics.steps,
        orientation=metrics.orientation,
        checks=len(metrics.checks),
        failed_checks=sum(1 for c in metrics.checks if c.outcome == "fail"),
        loops=metrics.loops,
        rules_fired=[r.rule for r in evaluate_rules(metrics) if r.fired],
        edited_files=metrics.context.expected_files if proxy else [],
        redundancy_proxy=metrics.context.redundancy,
        auc_cov_proxy=metrics.context.auc_cov if proxy else None,
        usage=trajectory.usage,
        cost_usd=None if len(cost.unpriced) == len(cost.by_model) else _priced(cost.by_model),
        unpriced_models=cost.unpriced,
        unknown_records=sum(trajectory.coverage.unknown_record_types.values())
        + trajectory.coverage.unparsed_lines,
    )


def _priced(by_model: dict[str, float | None]) -> float:
    return round(sum(v for v in by_model.values() if v is not None), 6)


# The pool's workers are forked with these set, so that only the session crosses the pipe.
_FILTERS = Filters()
_PRICING = PriceTable()


def _replay_in_worker(session: Session) -> SessionSummary | Unavailable | None:
    return replay_session(session, _FILTERS, _PRICING)


def replay(
    sessions: Iterable[Session],
    filters: Filters,
    pricing: PriceTable,
    *,
    workers: int | None = None,
) -> Iterator[SessionSummary | Unavailable]:
    """Every session replayed, as each one finishes (in no particular order), on ``workers``
    processes (default: one per CPU). Sessions the filters leave out are not yielded."""
    global _FILTERS, _PRICING
    todo = list(sessions)
    count = workers or os.cpu_count() or 1
    if count == 1 or len(todo) < SERIAL_BELOW:
        results: Iterable[SessionSummary | Unavailable | None] = (
            replay_session(s, filters, pricing) for s in todo
        )
        yield from (r for r in results if r is not None)
        return
    _FILTERS, _PRICING = filters, pricing
    context = multiprocessing.get_context("fork")
    # Small sessions first would leave a big one for last: the largest files start first.
    todo.sort(key=_size, reverse=True)
    with context.Pool(processes=count) as pool:
        # Chunks amortise the pipe over small sessions; sixteen per worker keep the load even.
        chunk = max(1, len(todo) // (count * 16))
        for result in pool.imap_unordered(_replay_in_worker, todo, chunksize=chunk):
            if result is not None:
                yield result


def _size(session: Session) -> int:
    try:
        return session.path.stat().st_size
    except OSError:
        return 0
