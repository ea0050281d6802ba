"""The live step budget: the watch reads the transcript only when it grew, at most once per
poll interval, and names the first count over the budget."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from proctor.drive.budget import BudgetWatch, StepBudget
from proctor.models.trajectory import ModelUsage, ToolCall, Trajectory


class FakeAdapter:
    """Counts parses; its "transcript" is a file whose lines are tool-call names."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.parses = 0

    def transcript_files(self, launch: Any) -> list[Path]:
        return [self.path] if self.path.exists() else []

    def parse(self, path: Path) -> Trajectory:
        self.parses += 1
        lines = path.read_text().splitlines()
        if "broken" in lines:
            raise ValueError("half-written")
        calls = [ToolCall(id=str(i), name=n) for i, n in enumerate(lines)]
        usage = {"m": ModelUsage(responses=len(lines))}
        return Trajectory(format="claude-code", events=calls, usage=usage)


def watch(tmp_path: Path, budget: StepBudget) -> tuple[BudgetWatch, FakeAdapter]:
    adapter = FakeAdapter(tmp_path / "t.jsonl")
    return BudgetWatch(adapter, None, budget, poll_sec=1.0), adapter  # type: ignore[arg-type]


def test_the_budget_names_the_first_count_over_it() -> None:
    budget = StepBudget(max_turns=3, max_tool_calls=2)
    assert budget.over(3, 2) is None  # at the budget is within it
    assert budget.over(3, 3) == "3 tool calls > maxToolCalls 2"
    assert budget.over(4, 1) == "4 model turns > maxTurns 3"
    assert not StepBudget() and StepBudget(max_turns=1)


def test_the_watch_stops_at_the_call_over_budget(tmp_path: Path) -> None:
    w, adapter = watch(tmp_path, StepBudget(max_tool_calls=2))
    assert w.check(now=0.0) is None  # no transcript yet
    adapter.path.write_text("read\nedit\n")
    assert w.check(now=1.0) is None
    adapter.path.write_text("read\nedit\nshell\n")
    assert w.check(now=1.5) is None  # within the poll interval: not read
    assert w.check(now=2.0) == "proctor stopped the agent: 3 tool calls > maxToolCalls 2"
    assert w.check(now=9.0) == w.stopped  # stays stopped, without reading again
    assert adapter.parses == 2


def test_an_unchanged_or_half_written_transcript_is_not_counted(tmp_path: Path) -> None:
    w, adapter = watch(tmp_path, StepBudget(max_tool_calls=1))
    adapter.path.write_text("read\n")
    assert w.check(now=0.0) is None
    assert w.check(now=5.0) is None and adapter.parses == 1  # same size: not parsed again
    adapter.path.write_text("read\nbroken\n")
    assert w.check(now=10.0) is None  # a parse error is not a stop
    adapter.path.write_text("read\nedit\n")
    assert w.check(now=20.0) is not None


class SubagentAdapter(FakeAdapter):
    """A session of two files: the main one, and a subagent's beside it, read together."""

    def transcript_files(self, launch: Any) -> list[Path]:
        return [self.path, self.path.with_name("sub.jsonl")]

    def parse(self, path: Path) -> Trajectory:
        trajectory = super().parse(path)
        sub = super().parse(path.with_name("sub.jsonl"))
        self.parses -= 1
        return Trajectory(format="codex", events=[*trajectory.events, *sub.events])


def test_a_subagents_file_that_grows_is_read_again(tmp_path: Path) -> None:
    adapter = SubagentAdapter(tmp_path / "t.jsonl")
    w = BudgetWatch(adapter, None, StepBudget(max_tool_calls=2), poll_sec=1.0)  # type: ignore[arg-type]
    adapter.path.write_text("spawn\n")
    (tmp_path / "sub.jsonl").write_text("read\n")
    assert w.check(now=0.0) is None
    (tmp_path / "sub.jsonl").write_text("read\nedit\n")  # only the subagent's file grew
    assert w.check(now=2.0) == "proctor stopped the agent: 3 tool calls > maxToolCalls 2"


def test_a_search_of_the_tool_list_does_not_use_up_the_budget(tmp_path: Path) -> None:
    w, adapter = watch(tmp_path, StepBudget(max_tool_calls=2))
    adapter.path.write_text("ToolSearch\nread\ntool_search\nToolSearch\nedit\n")
    assert w.check(now=0.0) is None  # two calls of the agent's work: within the budget
    adapter.path.write_text("ToolSearch\nread\ntool_search\nToolSearch\nedit\nshell\n")
    assert w.check(now=1.0) == "proctor stopped the agent: 3 tool calls > maxToolCalls 2"
