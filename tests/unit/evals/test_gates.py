"""Every gate on a planted trajectory: a trajectory that satisfies it, and a control that must
make it fail."""

from __future__ import annotations

import re
from typing import Any

import pytest

from proctor.agents.protocol import Question
from proctor.evaluators.gates.assertions import Assertion, Handle, RequireFailed
from proctor.evaluators.gates.vocabulary import Gates
from proctor.models.trajectory import (
    AssistantText,
    Event,
    SkillEvent,
    SubagentEvent,
    ToolCall,
    ToolResult,
    UserMessage,
)


class Planted(Gates):
    def __init__(
        self,
        events: list[Event],
        reply: str = "",
        outcomes: list[tuple[bool, Question | None]] | None = None,
    ) -> None:
        self.events = events
        self.reply = reply
        self.outcomes = outcomes if outcomes is not None else [(True, None)]
        self.recorded: list[Assertion] = []

    def _events(self) -> list[Event]:
        return self.events

    def _reply(self) -> str:
        return self.reply

    def _outcomes(self) -> list[tuple[bool, Question | None]]:
        return self.outcomes

    def _record(self, assertion: Assertion) -> Handle:
        self.recorded.append(assertion)
        return Handle(assertion)


def call(i: int, name: str, kind: str, error: bool | None = False, **inp: Any) -> list[Event]:
    result = ToolResult(id=str(i), output=f"out{i}", is_error=error, denied=error is None)
    return [ToolCall(id=str(i), name=name, kind=kind, input=inp), result]  # type: ignore[arg-type]


RUN: list[Event] = [
    UserMessage(text="fix it"),
    *call(1, "Read", "read", file_path="app.py"),
    *call(2, "Edit", "edit", file_path="app.py"),
    *call(3, "Bash", "shell", command="pytest -q"),
    *call(4, "mcp__notes__search", "mcp", query="bug"),
    SkillEvent(name="tdd"),
    SubagentEvent(id="s1", name="reviewer"),
    AssistantText(text="Fixed the bug; tests pass."),
]
FAILED: list[Event] = [*call(1, "Bash", "shell", error=True, command="pytest")]
DENIED: list[Event] = [*call(1, "Bash", "shell", error=None, command="rm -rf /")]


@pytest.mark.parametrize(
    ("gate", "good", "control"),
    [
        (lambda g: g.called_tool("shell"), RUN, FAILED[:0]),
        (lambda g: g.called_tool("Bash", input={"command": re.compile("pytest")}), RUN, DENIED),
        (lambda g: g.called_tool("shell", status="completed"), RUN, FAILED),
        (lambda g: g.called_tool("read", count=1), RUN, RUN + call(9, "Read", "read")),
        (lambda g: g.called_tool("shell", output="out3"), RUN, FAILED),
        (lambda g: g.called_tool("notes/search"), RUN, FAILED),
        (lambda g: g.called_tool("mcp"), RUN, FAILED),
        (lambda g: g.not_called_tool("web"), RUN, RUN + call(9, "WebFetch", "web")),
        (lambda g: g.tool_order(["read", "edit", "shell"]), RUN, list(reversed(RUN))),
        (lambda g: g.used_no_tools(), RUN[-1:], RUN),
        (lambda g: g.max_tool_calls(4), RUN, RUN + call(9, "Read", "read")),
        (lambda g: g.no_failed_actions(), RUN + DENIED, FAILED),
        (lambda g: g.loaded_skill("tdd"), RUN, FAILED),
        (lambda g: g.called_subagent("reviewer"), RUN, FAILED),
        (lambda g: g.event("skill", {"name": "tdd"}), RUN, FAILED),
        (lambda g: g.not_event("tool_result", {"isError": True}), RUN, FAILED),
        (
            lambda g: g.event_order(["user_message", ("skill", None), {"type": "subagent"}]),
            RUN,
            list(reversed(RUN)),
        ),
        (lambda g: g.events_satisfy("few events", lambda ev: len(ev) < 20), RUN, RUN * 3),
    ],
)
def test_a_gate_passes_on_its_trajectory_and_fails_on_the_control(
    gate: Any, good: list[Event], control: list[Event]
) -> None:
    assert gate(Planted(good))
    assert not gate(Planted(control))


def test_kinds_hold_across_agents_without_a_dedicated_tool() -> None:
    codex = [
        *call(1, "exec_command", "shell", cmd="cat README.md"),
        *call(2, "apply_patch", "edit", input="*** Begin Patch\n*** Add File: a.py\n+x\n"),
        *call(3, "exec_command", "shell", cmd="cat a.py | wc -l"),  # a pipeline: not a read
    ]
    g = Planted(codex)
    assert g.called_tool("read", count=1) and g.called_tool("write") and g.called_tool("edit")
    assert g.tool_order(["read", "write", "shell"])


def test_a_shell_command_that_only_searches_is_a_search_as_the_metrics_count_it() -> None:
    """Claude Code 2.1.197 offers no Grep: it searches with Bash, as Codex does with its shell.
    A command that only searches or lists is a ``search`` (and still a ``shell``), one that only
    reads a ``read``, by the rule the process metrics use; anything more is neither."""
    searched = [
        *call(1, "Bash", "shell", command="grep -rnE -- 'def add' ."),
        *call(2, "exec_command", "shell", cmd="rg -n total src"),
        *call(3, "shell", "shell", command=["bash", "-lc", "find . -name '*.py'"]),
        *call(4, "shell", "shell", command=["bash", "-lc", "sed -n '1,20p' app.py"]),
        *call(5, "Bash", "shell", command="pytest -q"),
    ]
    g = Planted(searched)
    assert g.called_tool("search", count=3) and g.called_tool("read", count=1)
    assert g.called_tool("shell", count=5)
    assert g.tool_order(["search", "read", "shell"])
    assert g.tool_order(["shell", "search"])
    for command in (
        "grep -rn add . | head",  # a pipeline
        "find . -name '*.pyc' -delete",  # find that deletes
        "rg --pre ./x add",  # rg that runs a command
        "tail -f log.txt",  # never ends
    ):
        g = Planted([*call(1, "Bash", "shell", command=command)])
        assert not g.called_tool("search") and not g.called_tool("read"), command
        assert g.called_tool("shell"), command


def test_outcome_gates_and_the_reply() -> None:
    asked = Question("Allow rm?", ["Yes", "No"])
    assert Planted([], outcomes=[(True, None)]).succeeded()
    assert not Planted([], outcomes=[(True, None), (False, None)]).succeeded()
    assert not Planted([], outcomes=[]).succeeded()
    assert Planted([], outcomes=[(False, asked)]).parked()
    assert not Planted([], outcomes=[(True, None)]).parked()
    g = Planted([], reply="Fixed the bug.")
    assert g.message_includes("Fixed") and g.message_includes(re.compile(r"bug\.$"))
    assert not g.message_includes("broke") and not g.message_includes(re.compile("^bug"))


def test_message_includes_takes_a_text_or_a_regex() -> None:
    g = Planted([], reply="5 files changed")
    with pytest.raises(TypeError, match=r"^message_includes\(\): argument 'expected': expected a"):
        g.message_includes(5)  # type: ignore[arg-type]
    assert g.message_includes("5")  # control


def test_check_score_and_handles() -> None:
    g = Planted([])
    assert g.check([1, 2], [1, 2]) and not g.check({"a": 1}, {"a": 2})
    # Named by its expectation, or by the name given (one that stays when the value changes).
    assert [a.name for a in g.recorded[-2:]] == ["check(equals [1, 2])", "check(equals {'a': 2})"]
    assert not g.check("/tmp/a/x", "/tmp/b/x", name="the path")
    assert g.recorded[-1].name == "check('the path')"
    soft = g.score("style", 0.4)
    assert soft and soft.assertion.soft  # soft until given a bar
    assert not g.score("style", 0.4).gate(0.5)  # below the bar: a failed hard gate
    assert g.score("style", 0.7).at_least(0.5)
    assert not g.called_tool("web").soft().passed  # soft, and still recorded as failed
    assert [a.soft for a in g.recorded][-1] is True


def test_require_gates_stop_the_test() -> None:
    g = Planted(RUN, outcomes=[(False, Question("Allow rm -rf build?", ["Yes", "No"]))])
    found = g.require_tool_call("shell")
    assert found.input == {"command": "pytest -q"} and found.output == "out3"
    with pytest.raises(RequireFailed):
        g.require_tool_call("web")
    assert g.require_input_request(re.compile("rm -rf")).options == ["Yes", "No"]
    with pytest.raises(RequireFailed):
        g.require_input_request("deploy")
    with pytest.raises(RequireFailed):
        Planted(RUN).require_input_request()


@pytest.mark.parametrize("name", ["mcp__notes__search", "notes__search", "notes/search"])
def test_an_mcp_tool_matches_as_server_slash_tool_on_every_agent(name: str) -> None:
    g = Planted([*call(1, name, "mcp")])
    assert g.called_tool("notes/search") and g.called_tool("mcp")
    assert not g.called_tool("notes/list") and not g.called_tool("other/search")


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (40, r"score\('quality', 40\): a score is a number from 0 to 1 \(0\.4, not 40\)"),
        (-3, r"score\('quality', -3\): a score is a number from 0 to 1; a value outside"),
        (1.5, r"score\('quality', 1\.5\): a score is a number from 0 to 1; a value"),
        (float("inf"), r"score\('quality', inf\): a score is a number from 0 to 1; a value"),
        (float("nan"), r"score\('quality', nan\): a score is a number from 0 to 1, not NaN"),
    ],
)
def test_a_score_outside_0_to_1_is_refused_not_clamped(value: object, said: str) -> None:
    # Clamped, 40 (meant as 40 of 100) was 1.0 and passed .gate(0.8).
    g = Planted([])
    with pytest.raises(ValueError, match=said):
        g.score("quality", value)  # type: ignore[arg-type]
    assert g.recorded == []


def test_control_scores_from_0_to_1_are_kept() -> None:
    g = Planted([])
    assert [g.score("s", v).assertion.score for v in (0, 0.4, 1, 1 + 1e-15, -1e-15)] == [
        0.0,
        0.4,
        1.0,
        1.0,  # a rounding error past an end is that end
        0.0,
    ]
    assert not g.score("s", 0.4).gate(0.8) and g.score("s", 0.9).gate(0.8)


def test_a_bar_makes_a_soft_score_count() -> None:
    g = Planted([])
    low = g.score("brevity", 0.3).at_least(0.5)
    assert not low and not low.assertion.soft  # a failed hard gate: it fails the case
    assert g.score("brevity", 0.7).at_least(0.5)
    kept_soft = g.score("brevity", 0.3).at_least(0.5).soft()
    assert not kept_soft and kept_soft.assertion.soft


def test_a_misspelt_event_type_is_refused_not_silently_unmatched() -> None:
    g = Planted(RUN)
    with pytest.raises(ValueError, match="unknown event type 'tool_results'"):
        g.not_event("tool_results", {"isError": True})
    with pytest.raises(ValueError, match="unknown event type"):
        g.event_order(["user_message", "tool_cal"])


def test_paths_inside_the_workspace_match_relative() -> None:
    class InWorkspace(Planted):
        def _roots(self) -> tuple[str, ...]:
            return ("/tmp/ws",)

    events = call(1, "Edit", "edit", file_path="/tmp/ws/app.py")
    assert InWorkspace(events).called_tool("edit", input={"file_path": "app.py"})
    assert InWorkspace(events).event("tool_call", {"input": {"file_path": "app.py"}})
    assert not Planted(events).called_tool("edit", input={"file_path": "app.py"})  # control


def called(tool: str, kind: str, **inp: Any) -> list[Event]:
    """A call whose input may have a ``name`` key (``call`` takes ``name`` itself)."""
    return [ToolCall(id="1", name=tool, kind=kind, input=inp), ToolResult(id="1", output="ok")]  # type: ignore[arg-type]


def skill_call(**inp: Any) -> list[Event]:
    return called("Skill", "skill", **inp)


def task_call(**inp: Any) -> list[Event]:
    return called("Task", "subagent", **inp)


@pytest.mark.parametrize(
    ("gate", "good", "control"),
    [
        (
            lambda g: g.loaded_skill("review"),
            skill_call(skill="review"),
            skill_call(skill="review-strict"),
        ),
        (
            lambda g: g.loaded_skill("review"),
            skill_call(skill="tools:review"),
            skill_call(skill="preview"),
        ),
        (
            lambda g: g.loaded_skill("review"),
            [SkillEvent(name="tools:review")],
            [SkillEvent(name="reviews")],
        ),
        (
            lambda g: g.loaded_skill("review"),
            skill_call(name="review"),
            skill_call(path="skills/review"),
        ),
        (
            lambda g: g.called_subagent("general"),
            task_call(subagent_type="general"),
            task_call(subagent_type="general-purpose"),
        ),
        (
            lambda g: g.called_subagent("reviewer"),
            [SubagentEvent(id="s", name="team:reviewer")],
            [SubagentEvent(id="s", name="reviewer-2")],
        ),
        (
            lambda g: g.called_subagent("explorer"),
            call(1, "spawn_agent", "subagent", agent_type="explorer"),
            task_call(description="the explorer", prompt="explorer"),  # named nowhere
        ),
    ],
)
def test_skills_and_subagents_match_by_whole_name_or_after_a_plugin_prefix(
    gate: Any, good: list[Event], control: list[Event]
) -> None:
    assert gate(Planted(good))
    assert not gate(Planted(control))


@pytest.mark.parametrize("matcher", ["Write", True, 3, ["Write"]])
def test_an_event_matcher_that_is_a_plain_value_is_refused(matcher: object) -> None:
    g = Planted(RUN)
    with pytest.raises(TypeError, match=r"argument 'matcher': .*\(a plain value matches no"):
        g.not_event("tool_call", matcher)
    with pytest.raises(TypeError, match=r"argument 'matchers\[0\]\[1\]': .*a plain value"):
        g.event_order([("tool_result", matcher)])
    assert not g.not_event("tool_call", {"name": "Read"})  # control: a dict matcher can fail
    assert not g.not_event("tool_call", lambda e: e.name == "Read")


def test_an_event_order_entry_may_be_a_list_pair_and_a_bad_entry_is_refused() -> None:
    g = Planted(RUN)
    assert g.event_order(["user_message", ["tool_call", {"kind": "edit"}], ["skill"]])
    assert not g.event_order([["skill"], ["tool_call", {"kind": "edit"}]])
    for bad in (["tool_call", {}, 1], {"name": "Read"}):
        with pytest.raises(ValueError, match="expected an event type, a \\(type, matcher\\) pair"):
            g.event_order([bad])
    with pytest.raises(TypeError, match=r"argument 'matchers\[0\]': expected an event type, a"):
        g.event_order([5])  # type: ignore[list-item]


def test_gate_without_a_bar_on_a_score_is_refused() -> None:
    g = Planted([])
    with pytest.raises(
        ValueError, match=r"score\('quality'\)\.gate\(\): a score or judge needs a bar"
    ):
        g.score("quality", 0.0).gate()
    assert not g.score("quality", 0.0).gate(0.5)  # control: with a bar it fails
    assert g.check(1, 1).gate() and not g.check(1, 2).gate()  # a yes/no gate needs none


def test_a_codex_patch_names_its_file_as_an_edit_does() -> None:
    """Codex CLI edits with apply_patch, whose input is the patch text: the first file the
    patch edits is matched as `file_path`, so `called_tool("edit", input={"file_path": …})`
    holds on Codex as on the agents with an edit tool (measured on a pinned Codex's rollout)."""
    from pathlib import Path

    import proctor

    rollout = Path(__file__).parents[2] / "corpus" / "codex-0.171.0-basic.transcript.jsonl"
    events = proctor.parse_transcript(rollout, agent="codex").events
    assert Planted(events).called_tool("edit", input={"file_path": "notes.txt"})
    assert Planted(events).called_tool("edit", input={"file_path": re.compile(r"notes\.txt$")})
    assert not Planted(events).called_tool("edit", input={"file_path": "other.txt"})  # control
    # An input that names its file keeps it: nothing is added over it.
    named = call(1, "Edit", "edit", file_path="app.py")
    assert not Planted(named).called_tool("edit", input={"file_path": "notes.txt"})


def test_a_codex_shell_call_names_its_command_as_the_others_do() -> None:
    """Codex CLI's exec_command gives its command line as `cmd`; Claude Code's Bash and Gemini
    CLI's run_shell_command as `command`: `called_tool("shell", input={"command": …})` holds on
    every agent."""
    codex = call(1, "exec_command", "shell", cmd="python3 -m unittest")
    assert Planted(codex).called_tool("shell", input={"command": re.compile("unittest")})
    assert Planted(codex).called_tool("shell", input={"cmd": "python3 -m unittest"})
    assert not Planted(codex).called_tool("shell", input={"command": re.compile("pytest")})
    # An input with a command of its own keeps it.
    both = call(1, "shell", "shell", cmd="x", command=["bash", "-lc", "pytest"])
    assert not Planted(both).called_tool("shell", input={"command": "x"})


def test_gate_messages_count_in_words() -> None:
    """One call is "1 matching call", two are "2 tool calls": never "call(s)"."""
    g = Planted(RUN, outcomes=[(True, None), (False, None), (False, None)])
    g.called_tool("read", count=2)  # each fails: its message is kept
    g.not_called_tool("edit")
    g.used_no_tools()
    g.not_event("tool_result", {"isError": False})
    g.succeeded()
    messages = [a.message for a in g.recorded]
    assert messages[0].startswith("1 matching call; calls seen:")
    assert messages[1:4] == ["1 call of 'edit'", "4 tool calls", "4 tool_result events matched"]
    assert messages[4] == "turns 2, 3 did not complete"
    assert not any("(s)" in m for m in messages)


def test_succeeded_says_which_turns_parked_and_on_what() -> None:
    """A test that answered a question with its next send read "turn 1 did not complete" of
    ``t.succeeded()``, as if the answer had not been taken: the turn that parked is named,
    with its question, and why it counts."""
    asked = Question("Where should I deploy?", ["staging", "production"])
    g = Planted(RUN, outcomes=[(False, asked), (True, None), (False, None)])
    g.succeeded()
    assert g.recorded[0].message == (
        "turns 1, 3 did not complete (turn 1 parked on 'Where should I deploy?': a turn that "
        "parked did not complete, even once a later message answered it; gate the turns after it "
        "instead)"
    )


def test_called_tool_that_matched_no_call_shows_what_the_calls_of_that_name_had() -> None:
    """``called_tool('edit', input={'path': …})`` failed with only "0 matching calls; calls
    seen: [...]", though an Edit ran: its input (keyed ``file_path``) is shown, so the wrong
    key is seen at once; likewise the status or output a call had."""
    g = Planted(RUN)
    g.called_tool("edit", input={"path": "app.py"})
    g.called_tool("shell", status="failed")
    g.called_tool("read", output="nope")
    g.called_tool("web", input={"url": "x"})  # no call of it: nothing more to show
    messages = [a.message for a in g.recorded]
    assert messages[0].endswith('; 1 call of \'edit\': Edit (input {"file_path": "app.py"})')
    assert messages[1].endswith("; 1 call of 'shell': Bash (status completed)")
    assert messages[2].endswith("; 1 call of 'read': Read (output \"out1\")")
    assert (
        messages[3].startswith("0 matching calls; calls seen: ") and "call of" not in (messages[3])
    )


def test_order_and_call_failures_name_the_missing_tool_and_each_calls_kinds() -> None:
    """On Codex CLI every call is an ``exec_command``: ``tool_order`` failed with "matched 2 of
    3 in order; calls: ['exec_command', 'exec_command', 'exec_command']", which said neither
    which name was missing nor why the first two matched. The name that stopped the order is
    named, and each call with the kinds a gate matches it by."""
    codex: list[Event] = [
        *call(1, "exec_command", "shell", cmd="grep -rnE -- 'def mean' ."),
        *call(2, "exec_command", "shell", cmd="cat stats.py"),
        *call(3, "exec_command", "shell", cmd="python3 - <<'EOF'\nprint(1)\nEOF"),
    ]
    g = Planted(codex)
    g.tool_order(["search", "read", "edit"])
    g.called_tool("edit")
    g.tool_order(["edit"])
    assert [a.message for a in g.recorded] == [
        "matched 2 of 3 in order (no call matches 'edit' after the one that matched 'read'); "
        "calls: exec_command (shell, search), exec_command (shell, read), exec_command (shell)",
        "0 matching calls; calls seen: exec_command (shell, read, search)",
        "matched 0 of 1 in order (no call matches 'edit'); calls: exec_command (shell, search), "
        "exec_command (shell, read), exec_command (shell)",
    ]
    empty = Planted([])
    empty.called_tool("edit")
    empty.tool_order(["edit"])
    assert [a.message for a in empty.recorded] == [
        "0 matching calls; calls seen: none",
        "matched 0 of 1 in order (no call matches 'edit'); calls: none",
    ]
