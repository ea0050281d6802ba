"""step_figures (what a history replay keeps of a session's steps) against metrics_of_steps:
on the hand-worked metrics fixtures, on every session of the transcript fixtures, and on
thousands of random steps; with a control that a wrong figure is found."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from metrics_fixtures import FIXTURES, Fixture

from proctor.history.replay import _parse
from proctor.history.sources import sessions_under
from proctor.metrics import figures as figures_module
from proctor.metrics.context import coverage_auc, redundancy
from proctor.metrics.figures import StepFigures, step_figures
from proctor.metrics.process import metrics_of_steps
from proctor.metrics.rules import fired_rules
from proctor.metrics.trace import (
    Step,
    build_steps,
    parse_ts,
    plain_steps,
    time_span,
    trial_start,
)
from proctor.models.process import MetricsConfig

FIXTURES_DIR = Path(__file__).resolve().parents[2] / "fixtures"
START = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


def from_metrics(
    steps: list[Step], start: datetime | None, config: MetricsConfig | None = None
) -> StepFigures:
    """The figures as a replay took them from a trial's metrics, the edited files as gold."""
    metrics = metrics_of_steps(steps, start, config=config)
    proxy = metrics.context.basis == "edited-proxy"
    counts, orientation = metrics.steps, metrics.orientation
    return StepFigures(
        is_task=metrics.is_task,
        verified=metrics.verified if metrics.is_task else None,
        by_kind=counts.by_kind,
        reads=counts.reads,
        searches=counts.searches,
        edits=counts.edits,
        checks=len(metrics.checks),
        failed_checks=sum(1 for c in metrics.checks if c.outcome == "fail"),
        reads_before_first_edit=orientation.reads_before_first_edit,
        steps_before_first_edit=orientation.steps_before_first_edit,
        seconds_to_first_edit=orientation.seconds_to_first_edit,
        loops=metrics.loops,
        rules_fired=fired_rules(metrics, config),
        edited_files=metrics.context.expected_files if proxy else [],
        redundancy=metrics.context.redundancy,
        auc_cov=metrics.context.auc_cov if proxy else None,
    )


def differences(
    steps: list[Step], start: datetime | None, config: MetricsConfig | None = None
) -> list[str]:
    got, want = step_figures(steps, start, config), from_metrics(steps, start, config)
    found = [
        f"{name}: {getattr(got, name)!r}, metrics give {getattr(want, name)!r}"
        for name in StepFigures.__struct_fields__
        if getattr(got, name) != getattr(want, name)
    ]
    if list(got.by_kind) != list(want.by_kind):  # the order kinds first came, too
        found.append(f"by_kind order: {list(got.by_kind)}, metrics give {list(want.by_kind)}")
    if sum(got.by_kind.values()) != metrics_of_steps(steps, start).steps.tool_calls:
        found.append("tool calls")
    return found


@pytest.mark.parametrize("fx", FIXTURES, ids=[fx.name for fx in FIXTURES])
def test_the_hand_worked_trajectories_give_the_metrics_figures(fx: Fixture) -> None:
    steps = build_steps(fx.events, fx.workspace)
    assert differences(steps, trial_start(fx.events), fx.config) == []


def test_every_session_of_the_fixtures_gives_the_metrics_figures() -> None:
    sessions, _ = sessions_under([FIXTURES_DIR], ["claude-code", "codex", "gemini-cli"])
    assert len(sessions) >= 20
    tasks = 0
    for session in sessions:
        try:
            trajectory = _parse(session, None)
        except (OSError, ValueError):  # the fixtures' planted broken files
            continue
        stamps = [e.get("ts") for e in trajectory.events if type(e) is dict]
        start, _ = time_span([*stamps, *(trajectory.stamps or ())])
        steps = plain_steps(trajectory.events, trajectory.cwd)
        assert differences(steps, start) == [], session.file
        tasks += step_figures(steps, start).is_task
    assert tasks >= 5


KINDS = ["read", "search", "edit", "write", "shell", "shell", "other", "question", None]
FILES: list[list[str]] = [
    [],
    ["a.py"],
    ["b.py"],
    ["README.md"],
    ["a.py", "docs/x.md"],
    ["/ws/c.py"],
    ["CHANGELOG.md", "notes.txt"],
]
COMMANDS: list[Any] = [
    "pytest -q",
    "  pytest   -q ",
    "pytest | tail -3",
    "npm test",
    "make lint; echo done",
    "ls",
    "",
    ["pytest", "-x"],
    "cd app && cargo build",
    5,
    # Lines that only write files: edits (see proctor.metrics.writes).
    "cat > a.py <<'EOF'\nx = 1\nEOF",
    "echo done >> notes.md",
    "sed -i 's/a/b/' /ws/a.py",
    ["bash", "-lc", "printf x > b.py"],
]
EDITS: list[dict[str, Any]] = [
    {"file_path": "a.py", "old_string": "x", "new_string": "y"},
    {"file_path": "a.py", "old_string": "y", "new_string": "x"},
    {"file_path": "README.md", "content": "hi"},
    {"path": "b.py", "n": 3},
]


def random_events(rng: random.Random) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    moment = START + timedelta(seconds=rng.randint(-5, 5))
    commands = rng.sample(COMMANDS, 3)  # a few, run again and again (loops)
    files = rng.sample(FILES, 3)
    for n in range(rng.randint(0, 24)):
        kind = rng.choice(KINDS)
        if kind == "shell":
            command = rng.choice(commands)
            if type(command) is str and rng.random() < 0.5:  # the same command, spaced out
                command = f" {command.replace(' ', '  ')}"
            tool_input: dict[str, Any] = {rng.choice(["command", "cmd"]): command}
        elif kind in ("edit", "write"):
            tool_input = dict(rng.choice(EDITS))
        else:
            tool_input = {"q": rng.choice(["x", "y"])}
        moment += timedelta(seconds=rng.choice([0, 1, 7]))
        call = {"type": "tool_call", "id": f"t{rng.randint(0, 30) if rng.random() < 0.1 else n}"}
        if kind is not None:
            call["kind"] = kind
        call |= {"input": tool_input, "files": rng.choice(files)}
        if rng.random() < 0.9:
            call["ts"] = moment.isoformat()
        events.append(call)
        if rng.random() < 0.85:
            result = {"type": "tool_result", "id": call["id"], "output": "ok"}
            error = rng.choice([True, False, False, None])
            if error is not None:
                result["isError"] = error
            if rng.random() < 0.05:
                result["denied"] = True
            events.append(result)
    return events


def random_differences(runs: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    configs = [None, MetricsConfig(loop_repeat=2, long_orientation_max=1, rework_max=0)]
    found = []
    for _ in range(runs):
        events = random_events(rng)
        steps = plain_steps(events, rng.choice([None, "/ws"]))
        start = rng.choice([START, None])
        config = rng.choice(configs)
        found += differences(steps, start, config)
    return found


def test_random_steps_give_the_metrics_figures() -> None:
    assert random_differences(3_000, seed=13) == []
    # They hold every situation: tasks verified or not, loops, each rule fired.
    rng = random.Random(13)
    figures = [step_figures(plain_steps(random_events(rng)), START) for _ in range(3_000)]
    assert {f.verified for f in figures} == {True, False, None}
    assert sum(f.loops > 0 for f in figures) > 50
    fired = {rule for f in figures for rule in f.rules_fired}
    assert fired == {"unverified", "rework", "loops"}  # orientation: a config's low limit


def plain_redundancy(steps: list[Step]) -> float | None:
    """Redundancy as its definition reads, each file of each read looked up on its own."""
    seen: set[str] = set()
    reads = [s for s in steps if s.kind == "read" and s.files]
    repeats = 0
    for step in reads:
        repeats += all(f in seen for f in step.files)
        seen.update(step.files)
    return repeats / len(reads) if reads else None


def plain_auc(steps: list[Step], gold: frozenset[str]) -> float | None:
    """AUC-Cov as its definition reads, each call's recall worked out again (in the same
    order, so that the sum is rounded as the figure's is)."""
    if not steps or not gold:
        return None
    explored: set[str] = set()
    total = 0.0
    for step in steps:
        if step.kind in ("read", "search", "edit", "write"):
            explored.update(step.files)
        total += len(explored & gold) / len(gold)
    return total / len(steps)


def test_context_figures_match_their_definitions() -> None:
    # Gold of one to three files: recalls of thirds, whose sums are rounded at each call.
    rng = random.Random(29)
    for _ in range(3_000):
        steps = plain_steps(random_events(rng), rng.choice([None, "/ws"]))
        names = ["a.py", "b.py", "README.md", "docs/x.md", "c.py", "/ws/c.py"]
        gold = frozenset(rng.sample(names, rng.randint(0, 3)))
        assert redundancy(steps) == plain_redundancy(steps)
        assert coverage_auc(steps, gold) == plain_auc(steps, gold)


@pytest.mark.parametrize(
    "name, broken",
    [
        ("is_code_edit", lambda step: step.kind in ("edit", "write")),  # doc edits count
        ("check_outcome", lambda step, command, config: "pass"),  # every call a check
        ("normalise_command", lambda command: command),  # "pytest -q" twice, spaced apart
        ("LOOKING_KINDS", frozenset({"read"})),  # searches are no orientation
        ("coverage_auc", lambda steps, gold: None),
    ],
)
def test_control_a_wrong_figure_is_found(
    monkeypatch: pytest.MonkeyPatch, name: str, broken: Callable[..., Any] | frozenset[str]
) -> None:
    monkeypatch.setattr(figures_module, name, broken)
    assert random_differences(3_000, seed=13) != []


def each_read(stamps: list[Any]) -> tuple[datetime | None, datetime | None]:
    """The earliest and latest time, each stamp read on its own (time_span's rule)."""
    moments = [t for t in map(parse_ts, stamps) if t is not None]
    return (min(moments), max(moments)) if moments else (None, None)


STAMPS: list[Any] = [
    "2026-05-01T09:00:00.123Z",
    "2026-05-01T09:00:00Z",
    "2026-05-01T08:59:59.999999Z",
    "2026-05-01T10:00:00+01:00",  # the same moment as 09:00 UTC
    "2026-05-01T09:30:00",  # no zone: UTC
    "2026-05-01T11:00:00.5-02:00",
    "2026-05-01",
    None,
    "",
    "yesterday",
    "2026-13-01T00:00:00Z",
]


def test_a_span_is_read_in_one_pass_as_each_stamp_would_be_read() -> None:
    rng = random.Random(5)
    for _ in range(2_000):
        stamps = rng.choices(STAMPS, k=rng.randint(0, 6))
        assert time_span(stamps) == each_read(stamps), stamps
    assert time_span(["2026-05-01T09:30:00", "2026-05-01T09:00:00Z"]) == (
        datetime(2026, 5, 1, 9, 0, tzinfo=UTC),
        datetime(2026, 5, 1, 9, 30, tzinfo=UTC),
    )


def test_control_a_span_that_leaves_times_without_a_zone_as_they_are_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def naive_span(stamps: Any) -> tuple[datetime | None, datetime | None]:
        try:
            moments = [datetime.fromisoformat(s) for s in dict.fromkeys(stamps) if s]
            return min(moments), max(moments)
        except ValueError:
            return None, None

    rng = random.Random(5)
    cases = [rng.choices(STAMPS, k=rng.randint(0, 6)) for _ in range(2_000)]
    assert any(naive_span(stamps) != each_read(stamps) for stamps in cases)
