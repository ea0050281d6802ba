"""Codex CLI, headless (``codex exec --json``) and in its TUI, on the scripted model server."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.contract.conftest import SLOW_MCP, TINY_MCP, require_cli, tool_steps
from tests.contract.goldens import check_golden
from tests.contract.test_claude_code import BASIC, BASIC_CONFIG

AGENT = "codex"


@pytest.mark.parametrize("mode", ["headless", "interactive"])
def test_write_and_shell_commands(run_cli: Callable[..., dict[str, Any]], mode: str) -> None:
    version = require_cli(AGENT)
    out = run_cli(AGENT, BASIC, mode=mode, config=BASIC_CONFIG)
    trial = out["trial"]
    assert trial["status"] == "passed", trial["reason"]
    assert trial["agentVersion"] == version
    assert tool_steps(out["events"]) == [
        ("edit", False, False),
        ("shell", False, False),
        ("shell", True, False),
    ]
    assert [e["text"] for e in out["events"] if e["type"] == "user_message"] == [
        "Do the task in this folder."
    ]
    assert trial["transcript"]["coverage"]["unparsedLines"] == 0
    assert trial["transcript"]["coverage"]["unknownRecordTypes"] == {}
    usage = next(iter(trial["usage"].values()))
    assert usage["responses"] == 4 and usage["inputTokens"] > 0
    assert (out["dir"] / "raw-transcript.jsonl").stat().st_size > 0
    if mode == "interactive":
        assert trial["exitCode"] == 0, "the TUI did not quit on /quit"
        assert not (out["dir"] / "questions.jsonl").exists()
    check_golden(f"{AGENT}-{mode}-basic", version, out["events"])


ESCALATED = {
    "tool": "exec_command",
    "input": {
        "cmd": "touch outside.txt && echo approved",
        "sandbox_permissions": "require_escalated",
        "justification": "Needs to run outside the sandbox",
    },
}


def test_approval_prompt_answered_by_a_qna_rule(run_cli: Callable[..., dict[str, Any]]) -> None:
    """``on-request`` approvals: the escalation prompt is answered "Yes, proceed" by a rule."""
    version = require_cli(AGENT)
    plan = {"turns": [ESCALATED, {"say": "Done."}]}
    out = run_cli(
        AGENT,
        plan,
        mode="interactive",
        qna="```rules\n(?i)run the following command => Yes, proceed\n```\n",
        top={"codingagents": {AGENT: {"permissionMode": "on-request"}}},
        config={"evaluators": [{"use": "command", "run": "test -f outside.txt", "gate": True}]},
    )
    trial = out["trial"]
    assert trial["status"] == "passed", trial["reason"]
    asked = [json.loads(x) for x in (out["dir"] / "questions.jsonl").read_text().splitlines()]
    assert len(asked) == 1
    question = asked[0]
    assert question["question"].startswith("Would you like to run the following command?")
    assert "touch outside.txt" in question["question"]
    assert (question["answer"], question["policy"], question["where"]) == (
        "Yes, proceed",
        "rule",
        "mid-turn",
    )
    assert question["options"][0] == "Yes, proceed"
    assert question["options"][-1] == "No, and tell Codex what to do differently"
    assert tool_steps(out["events"]) == [("shell", False, False)]
    check_golden(f"{AGENT}-interactive-approval", version, out["events"])


def test_approval_refused_by_a_qna_rule(run_cli: Callable[..., dict[str, Any]]) -> None:
    """Choosing "No" (the third option, by arrow keys) aborts the turn: a denial, no file."""
    require_cli(AGENT)
    plan = {"turns": [ESCALATED, {"say": "Done."}]}
    out = run_cli(
        AGENT,
        plan,
        mode="interactive",
        qna="```rules\n(?i)run the following command => No\n```\n",
        top={"codingagents": {AGENT: {"permissionMode": "on-request/workspace-write"}}},
        config={"evaluators": [{"use": "command", "run": "test ! -e outside.txt", "gate": True}]},
    )
    trial = out["trial"]
    assert trial["status"] == "passed", trial["reason"]
    question = json.loads((out["dir"] / "questions.jsonl").read_text().splitlines()[0])
    assert (question["answer"], question["policy"]) == ("No", "rule")
    assert tool_steps(out["events"]) == [("shell", False, True)]


def test_follow_up_turn_after_a_question(run_cli: Callable[..., dict[str, Any]]) -> None:
    """The turn ends with a question; the rule's answer is typed as the second message and
    the second task_complete ends the trial."""
    require_cli(AGENT)
    out = run_cli(AGENT, FOLLOW_UP, mode="interactive", qna=README_RULE, config=README_CHECK)
    trial = out["trial"]
    assert trial["status"] == "passed", trial["reason"]
    assert (trial["timings"]["turnsTotal"], trial["timings"]["questionTurns"]) == (2, 1)
    assert [e["text"] for e in out["events"] if e["type"] == "user_message"] == [
        "Do the task in this folder.",
        "Yes, please.",
    ]
    assert trial["exitCode"] == 0


FOLLOW_UP = {
    "turns": [
        {"say": "Should I also write a README?"},
        {"endTurn": True},
        {"write": {"path": "README.md", "content": "hi\n"}},
        {"say": "Done."},
    ]
}
README_RULE = "```rules\n(?i)readme => Yes, please.\n```\n"
README_CHECK = {"evaluators": [{"use": "command", "run": "test -f README.md", "gate": True}]}


@pytest.mark.parametrize("model", [None, "proctor-scripted"])
def test_mcp_server_tool_is_called(
    run_cli: Callable[..., dict[str, Any]], model: str | None
) -> None:
    """A catalogued model (the default) gets MCP tools only through ``tool_search``, which the
    scripted model plays first; a model outside the catalogue is offered them directly."""
    require_cli(AGENT)
    config: dict[str, Any] = {
        "provision": {"mcps": [TINY_MCP]},
        "evaluators": [{"use": "trajectory-check", "toolPattern": "mcp"}],
        "maxToolCalls": 1,  # the MCP call: a tool_search before it uses none of the budget
    }
    if model:
        config["agentModel"] = model
    plan = {"turns": [{"tool": "mcp__tiny__add", "input": {"a": 2, "b": 3}}, {"say": "5"}]}
    out = run_cli(AGENT, plan, config=config)
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]
    calls = [e for e in out["events"] if e["type"] == "tool_call"]
    results = {e["id"]: e for e in out["events"] if e["type"] == "tool_result"}
    if model is None:
        search, call = calls
        assert (search["name"], search["input"]) == (
            "tool_search",
            {"query": "tiny add", "limit": 8},
        )
        assert results[search["id"]]["output"] == "mcp__tiny.add"
    else:
        (call,) = calls
    assert (call["name"], call["kind"]) == ("mcp__tiny.add", "mcp")
    result = results[call["id"]]
    assert '"result":5' in result["output"].replace(" ", "") and not result["isError"]
    steps = out["trial"]["process"]["steps"]
    assert (steps["toolCalls"], steps["byKind"]) == (1, {"mcp": 1}), "a tool_search is no step"
    assert out["trial"]["toolCalls"] == 1, "nor a tool call of the trial's count"


def test_a_slow_mcp_server_is_waited_for(run_cli: Callable[..., dict[str, Any]]) -> None:
    """Codex gives a server about a second before a turn, then leaves its tools out; a trial
    waits for the case's servers (``mcp_optional_startup_grace_ms``)."""
    require_cli(AGENT)
    config: dict[str, Any] = {
        "provision": {"mcps": [SLOW_MCP]},
        "agentModel": "proctor-scripted",  # tools offered directly, not through tool_search
    }
    plan = {"turns": [{"tool": "mcp__tiny__add", "input": {"a": 2, "b": 3}}, {"say": "5"}]}
    out = run_cli(AGENT, plan, config=config)
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]
    (call,) = [e for e in out["events"] if e["type"] == "tool_call"]
    assert call["name"] == "mcp__tiny.add"  # offered in the first request: the server was up


def test_provisioned_hooks_fire(run_cli: Callable[..., dict[str, Any]], tmp_path: Any) -> None:
    require_cli(AGENT)
    marks = tmp_path / "marks"
    marks.mkdir()
    config = {
        "provision": {
            "hooks": [
                {
                    "name": "start",
                    "event": "SessionStart",
                    "command": f"touch {marks}/session-start",
                },
                {"name": "prompt", "event": "UserPromptSubmit", "command": f"touch {marks}/prompt"},
            ]
        }
    }
    out = run_cli(AGENT, {"turns": [{"shell": "echo hi"}, {"say": "ok"}]}, config=config)
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]
    assert sorted(p.name for p in marks.iterdir()) == ["prompt", "session-start"]


SPAWN = {
    "turns": [
        {"tool": "multi_agent_v1__spawn_agent", "input": {"message": "Write child.txt"}},
        {"tool": "exec_command", "input": {"cmd": "touch ran-$$"}},
        # Each thread waits for the other's command, so the subagent's steps are written
        # before the parent's turn (and the CLI) ends.
        {
            "tool": "exec_command",
            "input": {"cmd": "until [ $(ls ran-* | wc -l) -ge 2 ]; do sleep 0.1; done"},
        },
        {"say": "Done."},
    ]
}


def test_a_spawned_subagents_thread_is_read_with_the_trial(
    run_cli: Callable[..., dict[str, Any]],
) -> None:
    """``spawn_agent`` starts a thread with a rollout of its own: its steps and tokens are
    the trial's, marked as a subagent's, and its rollout is kept beside the trial's."""
    require_cli(AGENT)
    out = run_cli(AGENT, SPAWN, config={"timeoutSec": 60})
    trial, events = out["trial"], out["events"]
    assert trial["status"] == "passed", trial["reason"]
    prompts = [(e["text"], bool(e.get("sidechain"))) for e in events if e["type"] == "user_message"]
    assert prompts == [("Do the task in this folder.", False), ("Write child.txt", True)]
    calls = [e for e in events if e["type"] == "tool_call"]
    mine = [
        e["input"].get("cmd")
        for e in calls
        if not e.get("sidechain") and e["name"] == "exec_command"
    ]
    theirs = [
        e["input"].get("cmd") for e in calls if e.get("sidechain") and e["name"] == "exec_command"
    ]
    assert mine == [SPAWN["turns"][1]["input"]["cmd"], SPAWN["turns"][2]["input"]["cmd"]]
    assert theirs[:2] == mine  # the subagent played the same plan in its own thread
    times = [e["ts"] for e in events if "ts" in e]
    assert times == sorted(times)
    (usage,) = trial["usage"].values()
    parent_only = sum(1 for e in events if e["type"] == "usage" and not e.get("sidechain"))
    assert usage["responses"] > parent_only >= 4
    # codex exec reports the main thread's tokens: compared with the main thread's own.
    assert trial["usageCheck"]["ok"] is True, trial["usageCheck"]
    kept = sorted(p.name for p in (out["dir"] / "transcript").glob("rollout-*.jsonl"))
    assert len(kept) == 2, kept


def test_a_check_polled_with_write_stdin_has_the_outcome_its_exit_gives(
    run_cli: Callable[..., dict[str, Any]],
) -> None:
    """A check that outlives its first wait is polled with ``write_stdin`` to the session
    Codex named (a plan's ``fromResults``, taken as a number: Codex refuses a string); the
    poll that says the process exited gives the check its outcome."""
    require_cli(AGENT)
    plan = {
        "turns": [
            {"write": {"path": "app.py", "content": "X = 1\n"}},
            {"tool": "exec_command", "input": {"cmd": "make test", "yield_time_ms": 250}},
            {
                "tool": "write_stdin",
                "input": {"session_id": 0, "chars": "", "yield_time_ms": 10000},
                "fromResults": {"session_id": r"Process running with session ID (\d+)"},
            },
            {"say": "Done."},
        ]
    }
    out = run_cli(AGENT, plan, src={"Makefile": "test:\n\t@sleep 2; exit 3\n"})
    polls = [e for e in out["events"] if e["type"] == "tool_call" and e["name"] == "write_stdin"]
    assert polls == []  # a poll is part of its command's step
    items = [
        json.loads(line).get("payload") or {}
        for line in (out["dir"] / "raw-transcript.jsonl").read_text().splitlines()
    ]
    (poll,) = [i for i in items if i.get("name") == "write_stdin"]
    assert isinstance(json.loads(poll["arguments"])["session_id"], int)
    (answer,) = [
        i["output"] for i in items if i.get("call_id") == poll["call_id"] and "output" in i
    ]
    assert "Process exited with code 2" in answer  # Codex took the poll
    process = out["trial"]["process"]
    assert [c["outcome"] for c in process["checks"]] == ["fail"]
    assert process["verified"] is False


def test_steps_after_a_question_asked_as_text_are_said_unplayed(
    run_cli: Callable[..., dict[str, Any]],
) -> None:
    """Codex offers the model no question tool: an ``ask`` step is asked as plain text, which
    ends the turn, and the answer is the case's next message. Counted by ``endTurn``, that
    answer took the plan's second turn's place and the ``write`` after it never played,
    without a word; the request log says which steps played."""
    require_cli(AGENT)
    plan = {
        "turns": [
            {"ask": "Which file should I write?"},
            {"say": "ok"},
            {"endTurn": True},
            {"write": {"path": "a.txt", "content": "x"}},
        ]
    }
    out = run_cli(AGENT, plan, qna="```rules\n(?i)which file => a.txt\n```\n")
    trial = out["trial"]
    assert trial["status"] == "passed", trial["reason"]
    assert trial["questions"] == 1
    assert trial["warnings"] == [
        "the plan has 2 turns (split by endTurn) and the case (prompt and followUps) sent 2 "
        "messages, some answering a question the agent asked as plain text (which ended its "
        "turn), so these steps never played: turns[3] (write)"
    ]
