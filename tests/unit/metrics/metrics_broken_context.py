"""Deliberately broken re-implementations of the context metrics, used as test controls."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from metrics_broken import Broken, m_, steps_of
from metrics_fixtures import Fixture, compute

from proctor.metrics import ProcessMetrics
from proctor.metrics.trace import EXPLORE_KINDS, _strings, parse_ts


def _redundancy(fx: Fixture, *, raw: bool, count_first: bool) -> float | None:
    reads = [
        tuple(s.call.files or ()) if raw else s.files
        for s in steps_of(fx)
        if s.kind == "read" and s.files
    ]
    if not reads:
        return None
    seen: set[str] = set()
    flat = [f for files in reads for f in files]
    repeats = 0
    for files in reads:
        if count_first:
            repeats += all(flat.count(f) > 1 for f in files)
        else:
            repeats += all(f in seen for f in files)
        seen.update(files)
    return repeats / len(reads)


def _auc_explore_only(fx: Fixture) -> float | None:
    m = compute(fx)
    expected = set(m.context.expected_files)
    explore = [s for s in steps_of(fx) if s.kind in EXPLORE_KINDS]
    if not expected or not explore:
        return None
    seen: set[str] = set()
    total = 0.0
    for s in explore:
        seen.update(s.files)
        total += len(seen & expected) / len(expected)
    return total / len(explore)


def _symbol_hit(fx: Fixture, *, inputs: bool, outputs: bool, kinds: frozenset[str]) -> Any:
    if not fx.expected_symbols:
        return None
    texts: list[str] = []
    for s in steps_of(fx):
        if s.kind in kinds:
            texts += list(_strings(s.call.input)) if inputs else []
            texts += [s.result.output] if outputs and s.result and s.result.output else []
    return any(sym in t for t in texts for sym in fx.expected_symbols)


def _seconds_from_first_call_start(fx: Fixture) -> float | None:
    calls = [parse_ts(e.ts) for e in fx.events if e.type == "tool_call"]
    stamps = [t for t in (parse_ts(e.ts) for e in fx.events) if t]
    return (calls[0] - min(stamps)).total_seconds() if calls and calls[0] and stamps else None


def _without_workspace(fx: Fixture) -> ProcessMetrics:
    return compute(replace(fx, workspace=None))


CONTEXT_CONTROLS: dict[str, tuple[str, Broken]] = {
    "recall-is-precision": ("context.recall", m_(lambda m: m.context.precision)),
    "recall-without-workspace-stripping": (
        "context.recall",
        lambda fx: _without_workspace(fx).context.recall,
    ),
    "f1-arithmetic-mean": (
        "context.f1",
        m_(
            lambda m: (
                None
                if m.context.recall is None
                else (m.context.recall + (m.context.precision or 0.0)) / 2
            )
        ),
    ),
    "auc-is-final-recall": ("context.aucCov", m_(lambda m: m.context.recall)),
    "auc-over-explore-steps-only": ("context.aucCov", _auc_explore_only),
    "redundancy-raw-paths": (
        "context.redundancy",
        lambda fx: _redundancy(fx, raw=True, count_first=False),
    ),
    "redundancy-counts-first-reads": (
        "context.redundancy",
        lambda fx: _redundancy(fx, raw=False, count_first=True),
    ),
    "first-relevant-one-based": (
        "context.firstRelevantStep",
        m_(
            lambda m: (
                None if m.context.first_relevant_step is None else m.context.first_relevant_step + 1
            )
        ),
    ),
    "first-relevant-seconds-from-first-call": (
        "context.firstRelevantSeconds",
        lambda fx: (
            None
            if (s := compute(fx).context.first_relevant_seconds) is None
            else s - (_seconds_from_first_call_start(fx) or 0.0)
        ),
    ),
    "correct-file-hit-always": ("context.correctFileHit", lambda fx: True),
    "correct-file-hit-counts-searches": (
        "context.correctFileHit",
        m_(
            lambda m: (
                None
                if m.context.basis == "none"
                else (m.context.first_relevant_step is not None or bool(m.context.correct_file_hit))
            )
        ),
    ),
    "symbol-hit-inputs-only": (
        "context.correctSymbolHit",
        lambda fx: _symbol_hit(fx, inputs=True, outputs=False, kinds=EXPLORE_KINDS),
    ),
    "symbol-hit-scans-shell-output": (
        "context.correctSymbolHit",
        lambda fx: _symbol_hit(
            fx, inputs=True, outputs=True, kinds=EXPLORE_KINDS | frozenset({"shell"})
        ),
    ),
    "irrelevant-opens-unique-files": (
        "context.irrelevantFileOpens",
        m_(
            lambda m: (
                None
                if m.context.basis == "none"
                else len(set(m.context.files_read) - set(m.context.expected_files))
            )
        ),
    ),
    "wrong-context-always-zero": (
        "context.wrongContextEvents",
        m_(lambda m: None if m.context.basis == "none" else 0),
    ),
}
