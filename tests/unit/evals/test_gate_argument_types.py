"""Every method a test calls on ``t`` (and on a turn, a handle, ``t.judge``) refuses an argument
of the wrong Python type with a TypeError naming the method as the test called it, the
argument, what it expects and what it was given, before the value is read another way (a
string taken letter by letter for a list of tool names, True for 1, "0.8" for 0.8). Each bad
call has a control: the same call with the right type passes its checks."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

import pytest

from proctor.drive.driver import TurnOutcome
from proctor.evals.context import TestContext
from proctor.evals.turns import TurnResult, TurnState
from proctor.models.trajectory import SkillEvent, SubagentEvent

Call = Callable[[TestContext], Any]


def turn_of(t: TestContext) -> TurnResult:
    return TurnResult(t, TurnState(1, "done", TurnOutcome("turn-end"), [], None))


def run(coro: Any) -> Any:
    return asyncio.run(coro)


# (bad call, its message, a good call of the same method)
CASES: list[tuple[str, Call, str, Call]] = [
    (
        "called_tool-name",
        lambda t: t.called_tool(5),
        "t.called_tool(): argument 'name': expected a tool name (a string), got 5",
        lambda t: t.called_tool("edit", count=0),
    ),
    (
        "called_tool-count",
        lambda t: t.called_tool("edit", count=True),
        "t.called_tool(): argument 'count': expected an int or None, got True (a bool)",
        lambda t: t.called_tool("edit", count=0),
    ),
    (
        "called_tool-status",
        lambda t: t.called_tool("edit", status=1),
        "t.called_tool(): argument 'status': expected a string or None, got 1",
        lambda t: t.called_tool("edit", status="failed", count=0),
    ),
    (
        "require_tool_call",
        lambda t: t.require_tool_call(["edit"]),
        "t.require_tool_call(): argument 'name': expected a tool name (a string), "
        "got a list ['edit']",
        None,
    ),
    (
        "not_called_tool",
        lambda t: t.not_called_tool(None),
        "t.not_called_tool(): argument 'name': expected a tool name (a string), got None",
        lambda t: t.not_called_tool("web"),
    ),
    (
        "tool_order-string",
        lambda t: t.tool_order("write"),
        "t.tool_order(): argument 'names': expected a list of tool names, got the string 'write'",
        lambda t: t.tool_order([]),
    ),
    (
        "tool_order-int",
        lambda t: t.tool_order(5),
        "t.tool_order(): argument 'names': expected a list of tool names, got 5",
        lambda t: t.tool_order(()),
    ),
    (
        "tool_order-item",
        lambda t: t.tool_order(["read", 3]),
        "t.tool_order(): argument 'names[1]': expected a tool name (a string), got 3",
        lambda t: t.tool_order([]),
    ),
    (
        "max_tool_calls",
        lambda t: t.max_tool_calls("3"),
        "t.max_tool_calls(): argument 'n': expected an int, got the string '3'",
        lambda t: t.max_tool_calls(3),
    ),
    (
        "max_tool_calls-bool",
        lambda t: t.max_tool_calls(True),
        "t.max_tool_calls(): argument 'n': expected an int, got True (a bool)",
        lambda t: t.max_tool_calls(1),
    ),
    (
        "loaded_skill",
        lambda t: t.loaded_skill(1),
        "t.loaded_skill(): argument 'name': expected a skill name (a string), got 1",
        lambda t: t.loaded_skill("review"),
    ),
    (
        "called_subagent",
        lambda t: t.called_subagent(1),
        "t.called_subagent(): argument 'name': expected a subagent name (a string), got 1",
        lambda t: t.called_subagent("reviewer"),
    ),
    (
        "message_includes",
        lambda t: t.message_includes(5),
        "t.message_includes(): argument 'expected': expected a text or a compiled regex "
        "(re.compile(...)), got 5",
        lambda t: t.message_includes(re.compile("")),
    ),
    (
        "no_test_tampering-globs",
        lambda t: t.no_test_tampering("tests/**"),
        "t.no_test_tampering(): argument 'globs': expected a list of globs, got the string "
        "'tests/**'",
        lambda t: t.no_test_tampering(["tests/**"]),
    ),
    (
        "no_test_tampering-allow_edits",
        lambda t: t.no_test_tampering(allow_edits=1),
        "t.no_test_tampering(): argument 'allow_edits': expected True or False, got 1",
        lambda t: t.no_test_tampering(allow_edits=True),
    ),
    (
        "no_hidden_reads",
        lambda t: t.no_hidden_reads("secret.txt"),
        "t.no_hidden_reads(): argument 'globs': expected a list of globs, got the string "
        "'secret.txt'",
        lambda t: t.no_hidden_reads(["secret.txt"]),
    ),
    (
        "event-type",
        lambda t: t.event(5),
        "t.event(): argument 'type': expected an event type (a string), got 5",
        lambda t: t.not_event("tool_call"),
    ),
    (
        "not_event-matcher",
        lambda t: t.not_event("tool_call", "Write"),
        "t.not_event(): argument 'matcher': expected a dict of the tool_call event's keys (id, "
        "name, kind, input, files, cwd), a compiled regex or a predicate (a plain value matches "
        "no event), got the string 'Write'",
        lambda t: t.not_event("tool_call", {"name": "Write"}),
    ),
    (
        "event_order-string",
        lambda t: t.event_order("tool_call"),
        "t.event_order(): argument 'matchers': expected a list of event types, (type, matcher) "
        "pairs or dicts with 'type', got the string 'tool_call'",
        lambda t: t.event_order([]),
    ),
    (
        "event_order-entry",
        lambda t: t.event_order([5]),
        "t.event_order(): argument 'matchers[0]': expected an event type, a (type, matcher) "
        "pair or a dict with 'type', got 5",
        lambda t: t.event_order([]),
    ),
    (
        "event_order-dict-type",
        lambda t: t.event_order([{"type": 5}]),
        "t.event_order(): argument 'matchers[0]['type']': expected an event type (a string), got 5",
        lambda t: t.event_order([]),
    ),
    (
        "events_satisfy-predicate",
        lambda t: t.events_satisfy("short", 5),
        "t.events_satisfy(): argument 'predicate': expected a callable taking the events, got 5",
        lambda t: t.events_satisfy("short", lambda events: len(events) < 5),
    ),
    (
        "events_satisfy-label",
        lambda t: t.events_satisfy(5, len),
        "t.events_satisfy(): argument 'label': expected a string, got 5",
        lambda t: t.events_satisfy("any", lambda events: True),
    ),
    (
        "check-name",
        lambda t: t.check(1, 1, name=5),
        "t.check(): argument 'name': expected a string or None, got 5",
        lambda t: t.check(1, 1, name="one"),
    ),
    (
        "score-text",
        lambda t: t.score("quality", "0.8"),
        "t.score(): argument 'value': expected a number, got the string '0.8'",
        lambda t: t.score("quality", 0.8).gate(0.7),
    ),
    (
        "score-bool",
        lambda t: t.score("quality", True),
        "t.score(): argument 'value': expected a number, got True (a bool)",
        lambda t: t.score("quality", 1).gate(0.7),
    ),
    (
        "score-None",
        lambda t: t.score("quality", None),
        "t.score(): argument 'value': expected a number, got None",
        lambda t: t.score("quality", 0),
    ),
    (
        "score-name",
        lambda t: t.score(1, 0.5),
        "t.score(): argument 'name': expected a string, got 1",
        lambda t: t.score("1", 0.5),
    ),
    (
        "require_input_request",
        lambda t: t.require_input_request(5),
        "t.require_input_request(): argument 'filter': expected a text, a compiled regex, a "
        "predicate or None, got 5",
        None,
    ),
    (
        "gate-bar",
        lambda t: t.check(1, 1).gate("0.7"),
        "check(equals 1).gate(): argument 'bar': expected a number, got the string '0.7'",
        lambda t: t.check(1, 1).gate(0.7),
    ),
    (
        "at_least-bar",
        lambda t: t.score("q", 0.9).at_least(None),
        "score('q').at_least(): argument 'bar': expected a number, got None",
        lambda t: t.score("q", 0.9).at_least(0.5),
    ),
    (
        "metric-value",
        lambda t: t.metric("ratio", "0.8"),
        "t.metric(): argument 'value': expected a number, got the string '0.8'",
        lambda t: t.metric("ratio", 0.8),
    ),
    (
        "metric-name",
        lambda t: t.metric(1, 0.8),
        "t.metric(): argument 'name': expected a string, got 1",
        lambda t: t.metric("1", 0.8),
    ),
    (
        "skip",
        lambda t: t.skip(5),
        "t.skip(): argument 'reason': expected a string, got 5",
        None,
    ),
    (
        "send-message",
        lambda t: run(t.send(123)),
        "t.send(): argument 'message': expected a string, got 123",
        None,
    ),
    (
        "send-workspace_files",
        lambda t: run(t.send("go", workspace_files=["app.py"])),
        "t.send(): argument 'workspace_files': expected a dict of paths to texts or None, got "
        "a list ['app.py']",
        None,
    ),
    (
        "send-workspace_files-text",
        lambda t: run(t.send("go", workspace_files={"app.py": 1})),
        "t.send(): argument 'workspace_files[\"app.py\"]': expected a string, got 1",
        None,
    ),
    (
        "send-workspace_dir",
        lambda t: run(t.send("go", workspace_dir=5)),
        "t.send(): argument 'workspace_dir': expected a folder (a string or a Path) or None, got 5",
        None,
    ),
    (
        "judge-factuality",
        lambda t: run(t.judge.factuality(5)),
        "t.judge.factuality(): argument 'expected': expected a string, got 5",
        None,
    ),
    (
        "judge-closed_qa",
        lambda t: run(t.judge.closed_qa(["short"])),
        "t.judge.closed_qa(): argument 'criteria': expected a string, got a list ['short']",
        None,
    ),
    (
        "judge-model",
        lambda t: run(t.judge.model("grade it", model=3)),
        "t.judge.model(): argument 'model': expected a string or None, got 3",
        None,
    ),
]


@pytest.mark.parametrize(("bad", "said"), [(c[1], c[2]) for c in CASES], ids=[c[0] for c in CASES])
def test_an_argument_of_the_wrong_type_is_a_type_error_naming_it(bad: Call, said: str) -> None:
    t = TestContext(None)
    with pytest.raises(TypeError) as raised:
        bad(t)
    assert str(raised.value) == said
    assert t.recorded.assertions == [] or said.startswith(("check(", "score("))  # none recorded


GOOD = [c for c in CASES if c[3] is not None]


@pytest.mark.parametrize("good", [c[3] for c in GOOD], ids=[c[0] for c in GOOD])
def test_control_the_same_call_with_the_right_type_passes(good: Call) -> None:
    t = TestContext(None)
    t._events_all = [SkillEvent(name="review"), SubagentEvent(id="s1", name="reviewer")]
    handle = good(t)
    assert handle is None or handle.passed, handle


def test_control_calls_without_a_session_get_past_the_types() -> None:
    """The calls whose right form needs a session (a send, a judge) or stops the test (a
    skip, a require) get past the type checks to what they do next."""
    t = TestContext(None)
    with pytest.raises(RuntimeError, match="this context has no session"):
        run(t.send("go", workspace_files={"app.py": "x"}, workspace_dir="fixture"))
    with pytest.raises(Exception, match="no judge model"):
        run(t.judge.closed_qa("short", model=None))
    from proctor.evaluators.gates.assertions import RequireFailed, Skipped

    with pytest.raises(RequireFailed):
        t.require_tool_call("edit")
    with pytest.raises(RequireFailed):
        t.require_input_request(re.compile("allow"))
    with pytest.raises(Skipped):
        t.skip("not on this agent")


def test_a_turn_names_its_gates_as_turn_methods() -> None:
    turn = turn_of(TestContext(None))
    with pytest.raises(TypeError) as raised:
        turn.tool_order("write")
    assert str(raised.value) == (
        "turn.tool_order(): argument 'names': expected a list of tool names, got the string 'write'"
    )
    assert turn.tool_order([]) and turn.expect_ok()  # control


def test_a_number_of_another_kind_is_a_number() -> None:
    """A score, a metric or a bar of a numeric type other than int and float (a Fraction, as
    numpy's) is still a number."""
    from fractions import Fraction

    t = TestContext(None)
    assert t.score("q", Fraction(3, 4)).at_least(Fraction(1, 2))
    low = t.score("q", Fraction(1, 4)).gate(Fraction(1, 2))
    assert not low and low.assertion.message == "score 0.25 < 0.5"
    t.metric("m", Fraction(1, 4))
    assert t.recorded.metrics == {"m": 0.25}


@pytest.mark.parametrize(
    ("call", "said", "good"),
    [
        (
            lambda t: t.called_tool("edit", count=-1),
            "t.called_tool(): argument 'count': expected a count (a whole number of 0 or more), "
            "got -1",
            lambda t: t.called_tool("edit", count=0),
        ),
        (
            lambda t: turn_of(t).called_tool("edit", count=-3),
            "turn.called_tool(): argument 'count': expected a count (a whole number of 0 or "
            "more), got -3",
            lambda t: turn_of(t).called_tool("edit", count=0),
        ),
        (
            lambda t: t.not_called_tool(""),
            "t.not_called_tool(): argument 'name': expected a tool name (a string that is not "
            "empty), got the string ''",
            lambda t: t.not_called_tool("web"),
        ),
        (
            lambda t: t.called_tool(" ", count=0),
            "t.called_tool(): argument 'name': expected a tool name (a string that is not "
            "empty), got the string ' '",
            lambda t: t.called_tool("edit", count=0),
        ),
        (
            lambda t: t.tool_order(["read", ""]),
            "t.tool_order(): argument 'names[1]': expected a tool name (a string that is not "
            "empty), got the string ''",
            lambda t: t.tool_order([]),
        ),
        (
            lambda t: turn_of(t).message_includes(""),
            "turn.message_includes(): argument 'expected': expected a text that is not empty "
            "or a compiled regex (re.compile(...)), got the string ''",
            lambda t: turn_of(t).message_includes("done"),
        ),
        (
            lambda t: t.called_subagent(""),
            "t.called_subagent(): argument 'name': expected a subagent name (a string that is "
            "not empty), got the string ''",
            lambda t: t.called_subagent("reviewer"),
        ),
        (
            lambda t: t.event_order([("tool_call", None, 3)]),
            "t.event_order(): argument 'matchers[0]': expected an event type, a (type, matcher) "
            "pair or a dict with 'type', got a tuple ('tool_call', None, 3)",
            lambda t: t.event_order([]),
        ),
        (
            lambda t: t.max_tool_calls(-1),
            "t.max_tool_calls(): argument 'n': expected a count (a whole number of 0 or more), "
            "got -1",
            lambda t: t.max_tool_calls(0),
        ),
    ],
)
def test_a_negative_count_or_an_empty_name_is_a_value_error_naming_the_argument(
    call: Call, said: str, good: Call
) -> None:
    """A count of -1 could never be met (``called_tool``: the case always failed, saying only
    "0 matching calls"), or a bound of -1 never kept; an empty name matches no call, so
    ``not_called_tool("")`` always passed: refused before a gate is recorded, in the words of
    a wrong type. A count of 0 is a count."""
    t = TestContext(None)
    t._events_all = [SubagentEvent(id="s1", name="reviewer")]
    with pytest.raises(ValueError) as raised:
        call(t)
    assert str(raised.value) == said and not isinstance(raised.value, TypeError)
    assert t.recorded.assertions == []
    assert good(t).passed  # control


@pytest.mark.parametrize(
    ("call", "error", "said"),
    [
        (lambda t: t.score("q", 40), ValueError, "a score is a number from 0 to 1 (0.4, not 40)"),
        (lambda t: t.called_tool("edit", status="ok"), ValueError, "expected one of completed"),
        (lambda t: t.not_event("tool_cal"), ValueError, "unknown event type 'tool_cal'"),
        (lambda t: t.check(1, 1).gate(70), ValueError, "a bar is a score above 0 and at most 1"),
        (lambda t: t.metric("m", float("nan")), ValueError, "a metric is a finite number"),
        (lambda t: t.event_order([{"name": "Read"}]), ValueError, "a dict with 'type'"),
    ],
)
def test_a_value_of_the_right_type_keeps_its_own_message(
    call: Call, error: type[Exception], said: str
) -> None:
    with pytest.raises(error, match=re.escape(said)):
        call(TestContext(None))


@pytest.mark.parametrize(
    ("call", "said"),
    [
        (
            lambda t: t.called_tool("write", status="complete"),
            "status='complete': expected one of completed, failed, denied, pending; "
            "did you mean 'completed'?",
        ),
        (lambda t: t.require_tool_call("write", status="denyed"), "did you mean 'denied'?"),
        (lambda t: t.not_event("tool_cal"), "; did you mean 'tool_call'?"),
    ],
)
def test_a_misspelt_status_or_event_type_is_told_the_near_one(call: Call, said: str) -> None:
    """``status="complete"`` was told the four statuses but not the one meant, where a
    misspelt argument or event key is told it: every misspelt value names the near one."""
    with pytest.raises(ValueError) as raised:
        call(TestContext(None))
    assert str(raised.value).endswith(said)


@pytest.mark.parametrize("name", ["", " \t"])
def test_a_blank_metric_name_is_a_value_error_naming_the_argument(name: str) -> None:
    """``eval.`` would name no figure of the report: refused as an empty tool name is."""
    t = TestContext(None)
    with pytest.raises(ValueError) as raised:
        t.metric(name, 7)
    assert str(raised.value) == (
        "t.metric(): argument 'name': expected a metric name (a string that is not blank), "
        f"got the string {name!r}"
    )
    assert t.recorded.metrics == {}
    t.metric("files", 7)  # control
    assert t.recorded.metrics == {"files": 7.0}
