"""Deliberately broken re-implementations of metrics and rules, used as test controls.

``METRIC_CONTROLS`` maps a variant's name to the fixture path it answers and the broken function.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from metrics_fixtures import Fixture, compute

from proctor.metrics import LoopInstance, MetricsConfig, ProcessMetrics
from proctor.metrics.effort import tokens_by_model
from proctor.metrics.loops import find_loops
from proctor.metrics.trace import Step, build_steps, parse_ts, shell_command
from proctor.models.trajectory import Event

Broken = Callable[[Fixture], Any]


def steps_of(fx: Fixture) -> list[Step]:
    return build_steps(fx.events, fx.workspace)


def _first_edit(fx: Fixture) -> Step | None:
    return next((s for s in steps_of(fx) if s.kind in {"edit", "write"}), None)


def task_and(predicate: Callable[[ProcessMetrics, Fixture], bool]) -> Broken:
    def broken(fx: Fixture) -> bool:
        m = compute(fx)
        return m.is_task and predicate(m, fx)

    return broken


def _span(events: list[Event]) -> float | None:
    stamps = [t for t in (parse_ts(e.ts) for e in events) if t]
    return (max(stamps) - min(stamps)).total_seconds() if stamps else None


def _orientation_off_by_one(fx: Fixture) -> int | None:
    edit = _first_edit(fx)
    if edit is None:
        return None
    return sum(s.kind in {"read", "search"} for s in steps_of(fx)[: max(edit.index - 1, 0)])


def _reads_only_before_edit(fx: Fixture) -> int | None:
    edit = _first_edit(fx)
    return None if edit is None else sum(s.kind == "read" for s in steps_of(fx)[: edit.index])


def _seconds_from_first_call(fx: Fixture) -> float | None:
    edit = _first_edit(fx)
    calls = [e for e in fx.events if e.type == "tool_call"]
    start, end = parse_ts(calls[0].ts) if calls else None, parse_ts(edit.call.ts) if edit else None
    return (end - start).total_seconds() if start and end else None


def _raw_command_loops(fx: Fixture) -> int:
    failing: dict[str, int] = {}
    for s in steps_of(fx):
        command = shell_command(s)
        if command is not None and s.outcome == "fail":
            failing[command] = failing.get(command, 0) + 1
    return sum(n >= fx.config.loop_repeat for n in failing.values())


def _cost(fx: Fixture, *, unpriced_free: bool, with_cache: bool) -> float | None:
    prices = fx.pricing or {}
    total = 0.0
    for model, used in tokens_by_model(fx.events).items():
        if model not in prices:
            if unpriced_free:
                continue
            return None
        p_in, p_out, p_cr, p_cw = prices[model]
        cache = used.cache_read_tokens * p_cr + used.cache_write_tokens * p_cw
        total += (used.input_tokens * p_in + used.output_tokens * p_out) / 1e6
        total += cache / 1e6 if with_cache else 0.0
    return total


def _loops(fx: Fixture, repeat: int) -> list[LoopInstance]:
    return find_loops(steps_of(fx), repeat)


def m_(get: Callable[[ProcessMetrics], Any]) -> Broken:
    return lambda fx: get(compute(fx))


UNANCHORED = MetricsConfig(
    check_patterns=("pytest", "ruff", "mypy", "tsc", "jest", "npm", "cargo", "go ", "make")
)

METRIC_CONTROLS: dict[str, tuple[str, Broken]] = {
    "is-task-always": ("isTask", lambda fx: True),
    "verified-any-pass-anywhere": (
        "verified",
        m_(lambda m: any(c.outcome == "pass" for c in m.checks) if m.is_task else None),
    ),
    "verified-always-true-on-tasks": ("verified", m_(lambda m: True if m.is_task else None)),
    "verified-false-without-edits": ("verified", m_(lambda m: bool(m.verified))),
    "checks-unanchored-patterns": ("steps.checks", lambda fx: len(compute(fx, UNANCHORED).checks)),
    "orientation-off-by-one": ("orientation.readsBeforeFirstEdit", _orientation_off_by_one),
    "orientation-reads-only": ("orientation.readsBeforeFirstEdit", _reads_only_before_edit),
    "steps-before-edit-one-based": (
        "orientation.stepsBeforeFirstEdit",
        lambda fx: None if (e := _first_edit(fx)) is None else e.index + 1,
    ),
    "orientation-seconds-from-first-call": (
        "orientation.secondsToFirstEdit",
        _seconds_from_first_call,
    ),
    "rework-counts-unknown": ("rework", m_(lambda m: sum(c.outcome != "pass" for c in m.checks))),
    "rework-counts-failing-non-checks": (
        "rework",
        lambda fx: sum(shell_command(s) is not None and s.outcome == "fail" for s in steps_of(fx)),
    ),
    "loops-strictly-more-than-repeat": (
        "loops",
        lambda fx: len(_loops(fx, fx.config.loop_repeat + 1)),
    ),
    "loops-raw-command-text": (
        "loops",
        lambda fx: (
            _raw_command_loops(fx)
            + sum(x.kind == "edit" for x in _loops(fx, fx.config.loop_repeat))
        ),
    ),
    "loops-ignore-edits": (
        "loops",
        lambda fx: sum(x.kind == "command" for x in _loops(fx, fx.config.loop_repeat)),
    ),
    "elapsed-over-tool-calls-only": (
        "effort.elapsedSeconds",
        lambda fx: _span([e for e in fx.events if e.type == "tool_call"]),
    ),
    "cost-unpriced-model-free": (
        "effort.cost",
        lambda fx: _cost(fx, unpriced_free=True, with_cache=True),
    ),
    "cost-ignores-cache": (
        "effort.cost",
        lambda fx: _cost(fx, unpriced_free=False, with_cache=False),
    ),
}
