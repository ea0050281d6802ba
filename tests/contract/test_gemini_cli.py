"""Gemini CLI, headless (``gemini -p --output-format stream-json``) and in its TUI, on the
scripted model."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.contract.conftest import SLOW_MCP, TINY_MCP, require_cli, tool_steps
from tests.contract.goldens import check_golden
from tests.contract.test_claude_code import BASIC, BASIC_CONFIG
from tests.contract.test_codex import FOLLOW_UP, README_CHECK, README_RULE

AGENT = "gemini-cli"
YOLO = {"codingagents": {AGENT: {"permissionMode": "yolo"}}}
ASKING = {"codingagents": {AGENT: {"permissionMode": "default"}}}
"""Gemini CLI's own default: a confirmation before each tool call (proctor's default is yolo)."""


@pytest.mark.parametrize("mode", ["headless", "interactive"])
def test_write_and_shell_commands(run_cli: Callable[..., dict[str, Any]], mode: str) -> None:
    version = require_cli(AGENT)
    out = run_cli(AGENT, BASIC, mode=mode, config=BASIC_CONFIG, top=YOLO)
    trial = out["trial"]
    assert trial["status"] == "passed", trial["reason"]
    assert trial["agentVersion"] == version
    assert tool_steps(out["events"]) == [
        ("write", False, False),
        ("shell", False, False),
        ("shell", True, False),
    ]
    assert [e["text"] for e in out["events"] if e["type"] == "user_message"] == [
        "Do the task in this folder."
    ]
    assert trial["transcript"]["coverage"]["unparsedLines"] == 0
    usage = next(iter(trial["usage"].values()))
    assert usage["responses"] == 4 and usage["inputTokens"] > 0
    assert (out["dir"] / "raw-transcript.jsonl").stat().st_size > 0
    if mode == "interactive":
        assert trial["exitCode"] == 0, "the TUI did not quit on /quit"
        assert not (out["dir"] / "questions.jsonl").exists()
    check_golden(f"{AGENT}-{mode}-basic", version, out["events"])


def test_confirmation_answered_by_a_qna_rule(run_cli: Callable[..., dict[str, Any]]) -> None:
    """Without yolo the shell confirmation is shown; a rule allows it once."""
    version = require_cli(AGENT)
    plan = {"turns": [{"shell": "echo risky > risky.txt && ls"}, {"say": "Done."}]}
    out = run_cli(
        AGENT,
        plan,
        mode="interactive",
        top=ASKING,
        qna="```rules\n(?i)allow execution => Allow once\n```\n",
        config={
            "evaluators": [{"use": "command", "run": "grep -qx risky risky.txt", "gate": True}]
        },
    )
    trial = out["trial"]
    assert trial["status"] == "passed", trial["reason"]
    asked = [json.loads(x) for x in (out["dir"] / "questions.jsonl").read_text().splitlines()]
    assert len(asked) == 1
    question = asked[0]
    assert question["question"].startswith("Allow execution of [Shell]?")
    assert "echo risky > risky.txt" in question["question"]
    assert question["options"] == [
        "Allow once",
        "Allow for this session",
        "No, suggest changes (esc)",
    ]
    assert (question["answer"], question["policy"], question["where"]) == (
        "Allow once",
        "rule",
        "mid-turn",
    )
    assert tool_steps(out["events"]) == [("shell", False, False)]
    check_golden(f"{AGENT}-interactive-confirmation", version, out["events"])


def test_confirmation_refused_by_a_qna_rule(run_cli: Callable[..., dict[str, Any]]) -> None:
    """ "No" (the last option, reached with the arrow keys) cancels the call: a denial."""
    require_cli(AGENT)
    plan = {"turns": [{"shell": "echo risky > risky.txt"}, {"say": "Done."}]}
    out = run_cli(
        AGENT,
        plan,
        mode="interactive",
        top=ASKING,
        qna="```rules\n(?i)allow execution => No\n```\n",
        config={"evaluators": [{"use": "command", "run": "test ! -e risky.txt", "gate": True}]},
    )
    trial = out["trial"]
    assert trial["status"] == "passed", trial["reason"]
    assert trial["timings"]["agentMs"] < 30_000, "the cancelled turn was not seen to end"
    question = json.loads((out["dir"] / "questions.jsonl").read_text().splitlines()[0])
    assert (question["answer"], question["policy"]) == ("No", "rule")
    # Gemini CLI cancels the request and rewrites the chat without the refused turn.
    assert '"Request cancelled."' in (out["dir"] / "raw-transcript.jsonl").read_text()


def test_follow_up_turn_after_a_question(run_cli: Callable[..., dict[str, Any]]) -> None:
    """The turn ends with a question; the rule's answer is pasted as the second prompt."""
    require_cli(AGENT)
    out = run_cli(
        AGENT, FOLLOW_UP, mode="interactive", qna=README_RULE, config=README_CHECK, top=YOLO
    )
    trial = out["trial"]
    assert trial["status"] == "passed", trial["reason"]
    assert (trial["timings"]["turnsTotal"], trial["timings"]["questionTurns"]) == (2, 1)
    assert [e["text"] for e in out["events"] if e["type"] == "user_message"] == [
        "Do the task in this folder.",
        "Yes, please.",
    ]
    assert trial["exitCode"] == 0


ASK_USER = {
    "turns": [
        {
            "tool": "ask_user",
            "input": {
                "questions": [
                    {
                        "question": "Which color?",
                        "header": "Color",
                        "type": "choice",
                        "options": [
                            {"label": "Red", "description": "warm"},
                            {"label": "Blue", "description": "cool"},
                        ],
                    },
                    {"question": "Which size?", "header": "Size", "type": "yesno"},
                ]
            },
        },
        {"say": "Done."},
    ]
}
"""Gemini CLI's own question tool, two questions at once (a review follows them)."""


def test_ask_user_questions_are_answered_as_questions(
    run_cli: Callable[..., dict[str, Any]],
) -> None:
    """The ``ask_user`` picker (shown even in yolo) is a question, not a permission: one
    answer chooses an option, the other, none of its options, is typed as the user's own;
    the review is submitted and the chat gets both answers, which the trajectory reads as an
    answer event for each question, each with the policy of its question's line."""
    require_cli(AGENT)
    rules = "```rules\n(?i)which color => Blue\n(?i)which size => Medium, please\n```\n"
    out = run_cli(AGENT, ASK_USER, mode="interactive", qna=rules, top=YOLO)
    trial = out["trial"]
    assert trial["status"] == "passed", trial["reason"]
    asked = [json.loads(x) for x in (out["dir"] / "questions.jsonl").read_text().splitlines()]
    assert [(q["question"], q["options"], q["answer"], q["kind"]) for q in asked] == [
        ("Which color?", ["Red", "Blue"], "Blue", "question"),
        ("Which size?", ["Yes", "No"], "Medium, please", "question"),
    ]
    chat = (out["dir"] / "raw-transcript.jsonl").read_text()
    assert '{\\"answers\\":{\\"0\\":\\"Blue\\",\\"1\\":\\"Medium, please\\"}}' in chat
    # A question and an answer event for each question, each answer paired with its line.
    said = [(e["type"], e["text"], e.get("policy")) for e in out["events"] if "text" in e]
    assert [s for s in said if s[0] in ("question", "answer")] == [
        ("question", "Which color?", None),
        ("question", "Which size?", None),
        ("answer", "Blue", "rule"),
        ("answer", "Medium, please", "rule"),
    ]
    assert trial["exitCode"] == 0


LISTED = (
    "I see two ways:\n\n1. Keep the old API\n2. Replace it\n\n- either works\n\n"
    "Which color should the button be?"
)
ASK_LISTED = {
    "turns": [
        {
            "tool": "ask_user",
            "input": {
                "questions": [
                    {
                        "question": LISTED,
                        "header": "Color",
                        "type": "choice",
                        "options": [
                            {"label": "Red", "description": "1 coat is enough"},
                            {"label": "Blue", "description": "2. needs two coats"},
                        ],
                    }
                ]
            },
        },
        {"say": "Done."},
    ]
}
"""A question whose text holds a numbered list (Gemini CLI draws it as Markdown, its lines
numbered as the picker's entries are) and a bullet list; a description starts with a number."""


def test_ask_user_question_with_a_numbered_list(run_cli: Callable[..., dict[str, Any]]) -> None:
    """The picker's entries are told from the numbered lines of its question: the question is
    recorded once, whole, with the model's two options, and the option chosen is the one the
    chat gets."""
    require_cli(AGENT)
    rules = "```rules\n(?i)which color => Blue\n```\n"
    out = run_cli(AGENT, ASK_LISTED, mode="interactive", qna=rules, top=YOLO)
    trial = out["trial"]
    assert trial["status"] == "passed", trial["reason"]
    asked = [json.loads(x) for x in (out["dir"] / "questions.jsonl").read_text().splitlines()]
    assert [(q["question"], q["options"], q["answer"]) for q in asked] == [
        (LISTED, ["Red", "Blue"], "Blue")
    ]
    chat = (out["dir"] / "raw-transcript.jsonl").read_text()
    assert '{\\"answers\\":{\\"0\\":\\"Blue\\"}}' in chat
    assert trial["exitCode"] == 0


def test_mcp_server_tool_is_called(run_cli: Callable[..., dict[str, Any]]) -> None:
    require_cli(AGENT)
    config = {
        "provision": {"mcps": [TINY_MCP]},
        "evaluators": [{"use": "trajectory-check", "toolPattern": "mcp"}],
    }
    plan = {"turns": [{"tool": "mcp_tiny_add", "input": {"a": 2, "b": 3}}, {"say": "5"}]}
    out = run_cli(AGENT, plan, config=config)
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]
    result = next(e for e in out["events"] if e["type"] == "tool_result")
    assert "5" in result["output"] and not result["isError"]


def test_a_slow_mcp_server_is_waited_for(run_cli: Callable[..., dict[str, Any]]) -> None:
    """A server slow to start still has its tools in the first request."""
    require_cli(AGENT)
    config = {"provision": {"mcps": [SLOW_MCP]}}
    plan = {"turns": [{"tool": "mcp_tiny_add", "input": {"a": 2, "b": 3}}, {"say": "5"}]}
    out = run_cli(AGENT, plan, config=config)
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]
    result = next(e for e in out["events"] if e["type"] == "tool_result")
    assert "5" in result["output"] and not result["isError"], result["output"]


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
                {
                    "name": "shell",
                    "event": "BeforeTool",
                    "matcher": "run_shell_command",
                    "command": f"touch {marks}/before-shell",
                },
            ]
        },
    }
    out = run_cli(AGENT, {"turns": [{"shell": "echo hi"}, {"say": "ok"}]}, config=config)
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]
    assert sorted(p.name for p in marks.iterdir()) == ["before-shell", "session-start"]


def test_headless_plan_mode_keeps_the_workspace_read_only(
    run_cli: Callable[..., dict[str, Any]],
) -> None:
    require_cli(AGENT)
    plan = {"turns": [{"write": {"path": "x.txt", "content": "x\n"}}, {"say": "ok"}]}
    config = {"evaluators": [{"use": "file-exists", "mustNot": ["x.txt"], "gate": True}]}
    top = {"codingagents": {AGENT: {"permissionMode": "plan"}}}
    out = run_cli(AGENT, plan, config=config, top=top)
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]


SHELL_AND_WRITE = {
    "turns": [
        {"tool": "run_shell_command", "input": {"command": "echo hi > shell.txt"}},
        {"tool": "write_file", "input": {"file_path": "w.txt", "content": "x\n"}},
        {"say": "Done."},
    ]
}
LEFT_OUT = {
    "default": {"run_shell_command", "write_file", "replace", "web_fetch", "activate_skill"},
    "auto_edit": {"run_shell_command", "activate_skill"},
    "plan": {"run_shell_command", "web_fetch", "activate_skill"},
    "yolo": set(),
}
WRITE_STEP = {
    "default": ("write", False, True),  # left out: not found, a denial by the mode
    "auto_edit": ("write", False, False),
    "plan": ("write", False, True),  # offered, refused outside the plans folder
    "yolo": ("write", False, False),
}


@pytest.mark.parametrize("approval", ["default", "auto_edit", "plan", "yolo"])
def test_headless_approval_modes_leave_out_the_tools_that_would_ask(
    run_cli: Callable[..., dict[str, Any]], approval: str
) -> None:
    """Headless, Gemini CLI offers the model no tool that would need a confirmation: a call
    to one fails as not found, which proctor records as a denial by the permission mode, with
    the reason (in plan mode a write outside its plans folder is refused by Gemini CLI's policy);
    proctor warns before the run."""
    require_cli(AGENT)
    top = {"codingagents": {AGENT: {"permissionMode": approval}}}
    out = run_cli(AGENT, SHELL_AND_WRITE, top=top)
    requests = [
        json.loads(x) for x in (out["dir"] / "model-requests.jsonl").read_text().splitlines()
    ]
    offered = [set(r["tools"]) for r in requests if isinstance(r["played"], dict)]
    assert len(offered) == 3
    everything = {"run_shell_command", "write_file", "replace", "web_fetch", "activate_skill"}
    assert all(everything - tools == LEFT_OUT[approval] for tools in offered), offered
    shell_step = ("shell", False, approval != "yolo")
    assert tool_steps(out["events"]) == [shell_step, WRITE_STEP[approval]]
    results = [e["output"] for e in out["events"] if e["type"] == "tool_result"]
    if approval != "yolo":
        reason = (
            "Gemini CLI left run_shell_command out of the tools it offers the model headless "
            f"under permissionMode '{approval}' (a tool that would need a confirmation), so the "
            'call was refused as not found: Tool "run_shell_command" not found.'
        )
        assert results[0].startswith(reason), results[0]
    warned = f"codingagents.{AGENT}: permissionMode '{approval}' runs Gemini CLI headless without"
    assert (warned in out["err"]) == (approval != "yolo"), out["err"]


@pytest.mark.parametrize("approval", ["default", "auto_edit", "plan"])
def test_headless_a_left_out_mcp_tool_is_a_denial_and_a_made_up_name_an_error(
    run_cli: Callable[..., dict[str, Any]], approval: str
) -> None:
    """The case's MCP server's tools are left out headless too (a denial by the mode); a
    name no tool has fails as not found the same way, and stays an error."""
    require_cli(AGENT)
    plan = {
        "turns": [
            {"tool": "mcp_tiny_add", "input": {"a": 2, "b": 3}},
            {"tool": "no_such_tool", "input": {}},
            {"say": "Done."},
        ]
    }
    top = {"codingagents": {AGENT: {"permissionMode": approval}}}
    out = run_cli(AGENT, plan, config={"provision": {"mcps": [TINY_MCP]}}, top=top)
    assert tool_steps(out["events"]) == [("mcp", False, True), ("other", True, False)]
    results = [e["output"] for e in out["events"] if e["type"] == "tool_result"]
    assert results[0].startswith("Gemini CLI left mcp_tiny_add out"), results[0]
    assert results[1].startswith('Tool "no_such_tool" not found.'), results[1]


def test_a_dotenv_above_the_scratch_folder_is_never_loaded(
    run_cli: Callable[..., dict[str, Any]], tmp_path: Any, monkeypatch: Any
) -> None:
    """Gemini CLI looks for .env from the workspace up to /; one in a folder above the trial's
    scratch folder (here the temporary folder) must not change the model it calls."""
    require_cli(AGENT)
    tmp = tmp_path / "tmp"
    (tmp / ".gemini").mkdir(parents=True)
    (tmp / ".gemini" / ".env").write_text("GEMINI_MODEL=planted-model\n")
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr("tempfile.tempdir", None)
    out = run_cli(AGENT, {"turns": [{"say": "ok"}]})
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]
    requests = (out["dir"] / "model-requests.jsonl").read_text()
    assert "planted-model" not in requests


INVOKE = {
    "turns": [
        {"tool": "run_shell_command", "input": {"command": "echo parent > parent.txt"}},
        {
            "tool": "invoke_agent",
            "input": {"agent_name": "codebase_investigator", "prompt": "Find the files here."},
        },
        {"say": "Done."},
    ]
}


def test_a_subagents_chat_is_read_with_the_trial(run_cli: Callable[..., dict[str, Any]]) -> None:
    """``invoke_agent`` runs a subagent that writes a chat of its own: its steps and tokens
    are the trial's, marked as a subagent's, its chat is kept beside the trial's, and its
    tokens are in Gemini CLI's own report too."""
    require_cli(AGENT)
    out = run_cli(AGENT, INVOKE, config={"timeoutSec": 60})
    trial, events = out["trial"], out["events"]
    assert trial["status"] == "passed", trial["reason"]
    assert [e["name"] for e in events if e["type"] == "subagent"] == ["codebase_investigator"]
    side = [e for e in events if e.get("sidechain")]
    assert any(e["type"] == "user_message" for e in side)
    side_models = {e["model"] for e in side if e["type"] == "usage"}
    own_models = {e["model"] for e in events if e["type"] == "usage" and not e.get("sidechain")}
    assert side_models and side_models.isdisjoint(own_models)  # the subagent's own model
    for model in side_models:
        responses = sum(1 for e in side if e["type"] == "usage" and e["model"] == model)
        assert trial["usage"][model]["responses"] == responses
        # Gemini CLI's report counts the subagent's tokens: they agree.
        assert model not in (trial["usageCheck"] or {}).get("differences", {}), trial["usageCheck"]
    # The subagent's chat in its session's folder, as Gemini CLI keeps it: its header names
    # no session, the folder does.
    kept = sorted(
        p.relative_to(out["dir"] / "transcript")
        for p in (out["dir"] / "transcript").rglob("*.jsonl")
    )
    assert [len(p.parts) for p in kept] == [2, 1], kept
    assert kept[0].parent.name == trial["sessionId"], kept


@pytest.mark.parametrize(("listed", "outcome"), [(True, "fail"), (False, "unknown")])
def test_a_check_moved_to_the_background_ends_as_a_process_listing_says(
    run_cli: Callable[..., dict[str, Any]], listed: bool, outcome: str
) -> None:
    """``run_shell_command`` with ``is_background`` answers at once with success; the chat
    records no end of its own, so the check has no outcome unless the model lists the
    background processes after the command ended (``EXITED … (Exit Code: 2)``)."""
    require_cli(AGENT)
    turns: list[dict[str, Any]] = [
        {"write": {"path": "app.py", "content": "X = 1\n"}},
        {
            "tool": "run_shell_command",
            "input": {"command": "make test", "is_background": True, "description": "t"},
        },
        {"shell": "sleep 3"},  # the command ends during this one
    ]
    if listed:
        turns.append({"tool": "list_background_processes", "input": {}})
    out = run_cli(AGENT, {"turns": [*turns, {"say": "Done."}]}, src=FAILING_MAKE)
    process = out["trial"]["process"]
    assert [c["outcome"] for c in process["checks"]] == [outcome]
    assert process["verified"] is False
    shell = next(e["id"] for e in out["events"] if e.get("name") == "run_shell_command")
    results = [e for e in out["events"] if e["type"] == "tool_result" and e["id"] == shell]
    assert "Command moved to background" in results[0]["output"]
    assert results[0].get("isError") is None
    assert [e["output"] for e in results[1:]] == (
        ["Background command exited with exit code 2"] if listed else []
    )


FAILING_MAKE = {"Makefile": "test:\n\t@sleep 1; exit 3\n"}


def test_a_background_check_killed_by_a_signal_has_no_outcome(
    run_cli: Callable[..., dict[str, Any]],
) -> None:
    """In the terminal UI a process killed by a signal is listed ``(Exit Code: 0) (Signal:
    15)``: that says nothing of how the tests went."""
    require_cli(AGENT)
    turns: list[dict[str, Any]] = [
        {"write": {"path": "app.py", "content": "X = 1\n"}},
        {
            "tool": "run_shell_command",
            "input": {"command": "make test", "is_background": True, "description": "t"},
        },
        {"shell": "sleep 3"},
        {"tool": "list_background_processes", "input": {}},
        {"say": "Done."},
    ]
    src = {"Makefile": "test:\n\t@sleep 1; kill -TERM 0\n"}
    out = run_cli(AGENT, {"turns": turns}, src=src, mode="interactive")
    listing = next(
        e["output"]
        for e in out["events"]
        if e["type"] == "tool_result" and e["id"].startswith("list_background_processes")
    )
    assert "(Signal: 15)" in listing
    process = out["trial"]["process"]
    assert [c["outcome"] for c in process["checks"]] == ["unknown"]
    assert process["verified"] is False


ASK_MANY = {
    "turns": [
        {
            "tool": "ask_user",
            "input": {
                "questions": [
                    {
                        "question": "Which toppings?",
                        "header": "Toppings",
                        "type": "choice",
                        "multiSelect": True,
                        "options": [
                            {"label": "Cheese", "description": "c"},
                            {"label": "Ham", "description": "h"},
                            {"label": "Olives", "description": "o"},
                        ],
                    }
                ]
            },
        },
        {"say": "Done."},
    ]
}
"""A multiple-choice ``ask_user`` question (checkboxes, ``All of the above``, ``Done``)."""


def test_ask_user_multiple_choice_ticks_each_option_named(
    run_cli: Callable[..., dict[str, Any]],
) -> None:
    """An answer naming two options, comma-separated, ticks both and chooses ``Done``: the
    chat file's answer holds the two labels, as Gemini CLI joins them."""
    require_cli(AGENT)
    rules = "```rules\n(?i)which toppings => Cheese, Olives\n```\n"
    out = run_cli(AGENT, ASK_MANY, mode="interactive", qna=rules, top=YOLO)
    trial = out["trial"]
    assert trial["status"] == "passed", trial["reason"]
    asked = [json.loads(x) for x in (out["dir"] / "questions.jsonl").read_text().splitlines()]
    assert [(q["question"], q["options"], q["answer"]) for q in asked] == [
        ("Which toppings?", ["Cheese", "Ham", "Olives"], "Cheese, Olives")
    ]
    chat = (out["dir"] / "raw-transcript.jsonl").read_text()
    assert '{\\"answers\\":{\\"0\\":\\"Cheese, Olives\\"}}' in chat
    assert trial["exitCode"] == 0


def test_ask_user_multiple_choice_takes_an_answer_partly_of_ones_own(
    run_cli: Callable[..., dict[str, Any]],
) -> None:
    """An answer naming an option and going on with a part that names none ticks the option
    and types the rest into the entry for an answer of one's own: the chat file's answer holds
    both, as Gemini CLI joins them."""
    require_cli(AGENT)
    rules = "```rules\n(?i)which toppings => Olives, extra basil\n```\n"
    out = run_cli(AGENT, ASK_MANY, mode="interactive", qna=rules, top=YOLO)
    trial = out["trial"]
    assert trial["status"] == "passed", trial["reason"]
    asked = [json.loads(x) for x in (out["dir"] / "questions.jsonl").read_text().splitlines()]
    assert [(q["options"], q["answer"]) for q in asked] == [
        (["Cheese", "Ham", "Olives"], "Olives, extra basil")
    ]
    chat = (out["dir"] / "raw-transcript.jsonl").read_text()
    assert '{\\"answers\\":{\\"0\\":\\"Olives, extra basil\\"}}' in chat
