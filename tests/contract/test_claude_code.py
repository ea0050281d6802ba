"""Claude Code, headless and in its TUI, on the scripted model server."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from tests.contract.conftest import ASSETS, SLOW_MCP, TINY_MCP, require_cli, tool_steps
from tests.contract.goldens import check_golden

AGENT = "claude-code"
BASIC = {
    "turns": [
        {"say": "I'll create the file and check it."},
        {"write": {"path": "hello.txt", "content": "hello\n"}},
        {"shell": "cat hello.txt"},
        {"shell": "cat missing.txt"},
        {"say": "Done: hello.txt holds hello."},
    ]
}
BASIC_CONFIG = {"evaluators": [{"use": "command", "run": "grep -qx hello hello.txt", "gate": True}]}


@pytest.mark.parametrize("mode", ["headless", "interactive"])
def test_write_and_shell_commands(run_cli: Callable[..., dict[str, Any]], mode: str) -> None:
    version = require_cli(AGENT)
    out = run_cli(AGENT, BASIC, mode=mode, config=BASIC_CONFIG)
    trial = out["trial"]
    assert trial["status"] == "passed", trial["reason"]
    assert trial["agentVersion"] == version
    assert tool_steps(out["events"]) == [
        ("write", False, False),
        ("shell", False, False),
        ("shell", True, False),
    ]
    assert trial["transcript"]["coverage"]["unparsedLines"] == 0
    usage = next(iter(trial["usage"].values()))
    assert usage["responses"] >= 4 and usage["inputTokens"] > 0
    assert (out["dir"] / "raw-transcript.jsonl").stat().st_size > 0
    if mode == "headless":
        assert trial["reportedCostUsd"] is not None
    check_golden(f"{AGENT}-{mode}-basic", version, out["events"])


def test_permission_denial_is_a_denial_not_an_error(run_cli: Callable[..., dict[str, Any]]) -> None:
    require_cli(AGENT)
    plan = {
        "turns": [
            {"shell": "echo risky > risky.txt && rm -f risky.txt"},
            {"say": "It was not allowed."},
        ]
    }
    out = run_cli(AGENT, plan, top={"codingagents": {AGENT: {"permissionMode": "default"}}})
    assert tool_steps(out["events"]) == [("shell", False, True)]


def test_a_permission_prompt_answered_no_in_the_tui_is_a_denial(
    run_cli: Callable[..., dict[str, Any]],
) -> None:
    """The TUI records the refusal as ``toolUseResult: "User rejected tool use"`` without a
    ``toolDenialKind``; it is a denial, not a failed command."""
    require_cli(AGENT)
    plan = {"turns": [{"shell": "echo risky > risky.txt"}, {"say": "Fine."}]}
    out = run_cli(
        AGENT,
        plan,
        mode="interactive",
        qna="```rules\n.* => No\n```\n",
        top={"codingagents": {AGENT: {"permissionMode": "default"}}},
    )
    raw = (out["dir"] / "raw-transcript.jsonl").read_text()
    assert '"toolUseResult":"User rejected tool use"' in raw.replace(": ", ":")
    assert tool_steps(out["events"])[:1] == [("shell", False, True)]
    assert not (out["dir"] / "workspace" / "risky.txt").exists()


def test_question_picker_answered_by_a_qna_rule(run_cli: Callable[..., dict[str, Any]]) -> None:
    version = require_cli(AGENT)
    plan = {
        "turns": [
            {"ask": "Which color should the button be?", "options": ["Red", "Blue"]},
            {"write": {"path": "color.txt", "content": "blue\n"}},
            {"say": "Done."},
        ]
    }
    out = run_cli(
        AGENT,
        plan,
        mode="interactive",
        qna="```rules\n(?i)colou?r => Blue\n```\n",
        config={"evaluators": [{"use": "trajectory-check", "toolPattern": "question"}]},
    )
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]
    asked = json.loads((out["dir"] / "questions.jsonl").read_text())
    assert (asked["question"], asked["answer"], asked["policy"]) == (
        "Which color should the button be?",
        "Blue",
        "rule",
    )
    answer = next(e for e in out["events"] if e["type"] == "answer")
    assert answer["text"] == "Blue"
    assert (asked.get("toolCallId"), answer["policy"]) == (answer["id"], "rule")
    check_golden(f"{AGENT}-interactive-question", version, out["events"])


def test_a_permission_prompt_before_a_question_takes_no_answer_event(
    run_cli: Callable[..., dict[str, Any]],
) -> None:
    """A permission prompt has no answer in the transcript: it is recorded as a permission and
    takes no answer event; the question after it gets its own. The CLI draws the picker before
    it writes the call: the call is waited for, so the record has its tool call id."""
    require_cli(AGENT)
    plan = {
        "turns": [
            {"shell": "echo risky > risky.txt"},
            {"ask": "Which color should the button be?", "options": ["Red", "Blue"]},
            {"say": "Done."},
        ]
    }
    out = run_cli(
        AGENT,
        plan,
        mode="interactive",
        qna="```rules\n(?i)colou?r => Blue\n.* => Yes\n```\n",
        top={"codingagents": {AGENT: {"permissionMode": "default"}}},
    )
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]
    lines = (out["dir"] / "questions.jsonl").read_text().splitlines()
    approval, asked = (json.loads(line) for line in lines)
    assert (approval["kind"], approval.get("toolCallId")) == ("permission", None)
    assert (asked["kind"], asked["answer"]) == ("question", "Blue")
    answers = [e for e in out["events"] if e["type"] == "answer"]
    assert [(e["text"], e["policy"]) for e in answers] == [("Blue", "rule")]
    assert asked.get("toolCallId") == answers[0]["id"]


def test_a_free_text_answer_is_typed_into_the_pickers_own_entry(
    run_cli: Callable[..., dict[str, Any]],
) -> None:
    """The picker's ``Type something.`` and ``Chat about this`` are not the agent's options;
    an answer that is none of the options is typed into ``Type something.``."""
    require_cli(AGENT)
    plan = {
        "turns": [
            {"ask": "Which color should the button be?", "options": ["Red", "Blue"]},
            {"say": "Done."},
        ]
    }
    out = run_cli(
        AGENT, plan, mode="interactive", qna="```rules\n(?i)colou?r => Green, like the logo\n```\n"
    )
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]
    asked = json.loads((out["dir"] / "questions.jsonl").read_text())
    assert (asked["options"], asked["answer"]) == (["Red", "Blue"], "Green, like the logo")
    raw = (out["dir"] / "raw-transcript.jsonl").read_text()
    assert '=\\"Green, like the logo\\"' in raw


def test_plugin_hooks_fire(run_cli: Callable[..., dict[str, Any]]) -> None:
    require_cli(AGENT)
    config = {
        "provision": {"plugins": [{"name": "contract", "path": str(ASSETS / "plugin")}]},
        "evaluators": [
            {
                "use": "hook-transcript-check",
                "pluginManifest": str(ASSETS / "plugin/hooks/hooks.json"),
            }
        ],
    }
    out = run_cli(AGENT, {"turns": [{"shell": "echo hi"}, {"say": "ok"}]}, config=config)
    check = out["trial"]["evaluators"][0]
    assert check["passed"], check["message"]
    assert check["metrics"]["hook_events_fired"] == 3


def test_mcp_server_tool_is_called(run_cli: Callable[..., dict[str, Any]]) -> None:
    require_cli(AGENT)
    config = {
        "provision": {"mcps": [TINY_MCP]},
        "evaluators": [{"use": "trajectory-check", "toolPattern": "mcp__tiny__add"}],
    }
    plan = {"turns": [{"tool": "mcp__tiny__add", "input": {"a": 2, "b": 3}}, {"say": "5"}]}
    out = run_cli(AGENT, plan, config=config)
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]
    result = next(e for e in out["events"] if e["type"] == "tool_result")
    assert "5" in result["output"] and not result["isError"]
    assert tool_steps(out["events"]) == [("mcp", False, False)]


def test_a_slow_mcp_server_is_waited_for(run_cli: Callable[..., dict[str, Any]]) -> None:
    """Claude Code connects MCP servers in the background by default; a trial waits for them
    (``MCP_CONNECTION_NONBLOCKING=0``), so the first request already offers the tool, and
    gives them 30 s (``MCP_CONNECT_TIMEOUT_MS``; the CLI's own wait, 5 s, leaves out a server
    that takes longer, as one that npx fetches first may)."""
    require_cli(AGENT)
    slower = {**SLOW_MCP, "args": [*SLOW_MCP["args"], "8"]}
    config = {"provision": {"mcps": [slower]}}
    plan = {"turns": [{"tool": "mcp__tiny__add", "input": {"a": 2, "b": 3}}, {"say": "5"}]}
    out = run_cli(AGENT, plan, config=config)
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]
    result = next(e for e in out["events"] if e["type"] == "tool_result")
    assert "5" in result["output"] and not result["isError"], result["output"]


def test_skill_is_loaded(run_cli: Callable[..., dict[str, Any]]) -> None:
    require_cli(AGENT)
    config = {
        "provision": {"skills": [{"name": "greet", "path": str(ASSETS / "skills/greet")}]},
        "evaluators": [{"use": "skill-loaded", "name": "greet"}],
    }
    plan = {"turns": [{"tool": "Skill", "input": {"skill": "greet"}}, {"say": "Hello, Ada!"}]}
    out = run_cli(AGENT, plan, config=config)
    assert out["trial"]["status"] == "passed", out["trial"]["evaluators"]
    result = next(e for e in out["events"] if e["type"] == "tool_result")
    assert not result["isError"], result["output"]


def test_token_totals_match_the_cli_own_report(run_cli: Callable[..., dict[str, Any]]) -> None:
    require_cli(AGENT)
    out = run_cli(AGENT, BASIC, config=BASIC_CONFIG)
    check = out["trial"]["usageCheck"]
    assert check["ok"], check["differences"]
    # The scripted model names its responses after the model Claude Code asked for (one with
    # a list price), yet nothing was spent: the trial costs nothing.
    cost, usage = out["trial"]["cost"], out["trial"]["usage"]
    assert usage and all(not model.startswith("scripted") for model in usage), usage
    assert cost["totalUsd"] == 0.0, cost
    assert set(cost["byModel"]) == set(usage) and not cost["unpriced"], cost
    assert out["trial"]["process"]["effort"]["cost"] == 0.0


@pytest.mark.parametrize(
    ("status", "message", "cause"),
    [
        (400, "model: unknown model", "API error"),
        (403, "Your credit balance is too low", "quota exhausted"),
    ],
)
def test_api_failures_are_classified(
    run_cli: Callable[..., dict[str, Any]], status: int, message: str, cause: str
) -> None:
    require_cli(AGENT)
    errors = {str(i): {"status": status, "message": message} for i in range(10)}
    plan = {"turns": [{"say": "never reached"}], "errors": errors}
    out = run_cli(AGENT, plan)
    trial = out["trial"]
    assert trial["status"] == "agent-error"
    assert trial["reason"].startswith(cause), trial["reason"]


def test_headless_turn_end_question_is_answered_by_resuming(
    run_cli: Callable[..., dict[str, Any]],
) -> None:
    require_cli(AGENT)
    plan = {
        "turns": [
            {"say": "I fixed the bug. Should I also add tests?"},
            {"endTurn": True},
            {"write": {"path": "tests.txt", "content": "tests\n"}},
            {"say": "Added them."},
        ]
    }
    out = run_cli(
        AGENT,
        plan,
        qna="```rules\n(?i)add tests => Yes, please.\n```\n",
        config={"evaluators": [{"use": "file-exists", "must": ["tests.txt"]}]},
    )
    trial = out["trial"]
    assert trial["status"] == "passed", trial["reason"]
    assert (trial["timings"]["turnsTotal"], trial["timings"]["questionTurns"]) == (2, 1)
    kinds = [
        e["type"] for e in out["events"] if e["type"] in ("question", "answer", "user_message")
    ]
    assert kinds == ["user_message", "question", "answer", "user_message"]


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
                    "name": "bash",
                    "event": "PreToolUse",
                    "matcher": "Bash",
                    "command": f"touch {marks}/pre-bash",
                },
            ]
        }
    }
    out = run_cli(AGENT, {"turns": [{"shell": "echo hi"}, {"say": "ok"}]}, config=config)
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]
    assert sorted(p.name for p in marks.iterdir()) == ["pre-bash", "session-start"]


def test_a_settings_file_whose_hooks_fail_the_schema_is_skipped_whole(
    run_cli: Callable[..., dict[str, Any]], tmp_path: Any
) -> None:
    """A handler's ``async`` that is no boolean fails Claude Code's settings schema: the whole
    project settings file is skipped, its valid SessionStart hook too, while the local settings
    file beside it is in effect; ``proctor audit`` says the same of these files."""
    from proctor.addons.audit import audit_agent

    require_cli(AGENT)
    marks = tmp_path / "marks"
    marks.mkdir()

    def start(mark: str) -> dict[str, Any]:
        touch = {"type": "command", "command": f"touch {marks}/{mark}"}
        return {"hooks": {"SessionStart": [{"hooks": [touch]}]}}

    bad = start("from-project")
    bad["hooks"]["Stop"] = [{"hooks": [{"type": "command", "command": "true", "async": "yes"}]}]
    src = {
        ".claude/settings.json": json.dumps(bad),
        ".claude/settings.local.json": json.dumps(start("from-local")),
    }
    out = run_cli(AGENT, {"turns": [{"say": "ok"}]}, src=src)
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]
    assert sorted(p.name for p in marks.iterdir()) == ["from-local"]
    project = tmp_path / "project"
    for rel, text in src.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text)
    audit = audit_agent(AGENT, tmp_path / "home", project)
    live = [c.file for c in audit.components if c.kind == "hook" and c.decoy is None]
    assert live == [str(project / ".claude/settings.local.json")]


BACKGROUND_CHECK = {
    "tool": "Bash",
    "input": {"command": "make test", "run_in_background": True, "description": "t"},
}


def _background_check(
    run_cli: Callable[..., dict[str, Any]], exit_code: int, outcome: str, then: dict[str, Any]
) -> dict[str, Any]:
    """A trial that edits code, starts ``make test`` (ending with ``exit_code``) in the
    background, then plays ``then``: its check has ``outcome``."""
    require_cli(AGENT)
    write = {"write": {"path": "app.py", "content": "X = 1\n"}}
    plan = {"turns": [write, BACKGROUND_CHECK, then, {"say": "Done."}]}
    src = {"Makefile": f"test:\n\t@sleep 1; exit {exit_code}\n"}
    out = run_cli(AGENT, plan, src=src)
    process = out["trial"]["process"]
    assert [c["outcome"] for c in process["checks"]] == [outcome]
    assert process["verified"] is (outcome == "pass")
    return out


@pytest.mark.parametrize(("exit_code", "outcome"), [(0, "pass"), (3, "fail")])
def test_a_check_run_in_the_background_has_the_outcome_its_notification_gives(
    run_cli: Callable[..., dict[str, Any]], exit_code: int, outcome: str
) -> None:
    """The CLI answers a background ``Bash`` call at once and records how the command ended in
    a task notification later; the check's outcome is the notification's."""
    # The command ends, and is notified, during the sleep.
    out = _background_check(run_cli, exit_code, outcome, {"shell": "sleep 4"})
    results = [e for e in out["events"] if e["type"] == "tool_result"]
    ended = [e for e in results if str(e.get("output")).startswith('Background command "t"')]
    assert len(ended) == 1 and ended[0]["isError"] is (outcome == "fail")


@pytest.mark.parametrize(("exit_code", "outcome"), [(0, "pass"), (3, "fail")])
def test_a_background_check_read_by_task_output_has_the_outcome_the_read_gives(
    run_cli: Callable[..., dict[str, Any]], exit_code: int, outcome: str
) -> None:
    """The model waits for a background command with ``TaskOutput`` (the task's id taken from
    the first result); the read that finds it ended settles the check, before the CLI's own
    notification of the same end."""
    read = {
        "tool": "TaskOutput",
        "input": {"block": True, "timeout": 30000},
        "fromResults": {"task_id": r"in background with ID: (\w+)"},
    }
    out = _background_check(run_cli, exit_code, outcome, read)
    calls = {e["id"]: e["name"] for e in out["events"] if e["type"] == "tool_call"}
    assert sorted(calls.values()) == ["Bash", "TaskOutput", "Write"]
    bash = next(i for i, name in calls.items() if name == "Bash")
    later = [
        e
        for e in out["events"]
        if e["type"] == "tool_result" and e["id"] == bash and e.get("isError") is not None
    ]
    # The read's comes first, and is the call's only later result (the notification of the
    # same end gives none).
    code = 2 if exit_code else 0  # make's own status for a failed recipe
    status = "failed" if exit_code else "completed"
    assert [e["output"] for e in later] == [f"Background command {status} with exit code {code}"]
    assert later[0]["isError"] is (outcome == "fail")


def test_set_e_is_inert_in_claude_code_so_a_check_before_a_later_command_is_masked(
    run_cli: Callable[..., dict[str, Any]],
) -> None:
    """Claude Code runs each command inside an ``eval`` in an ``&&`` list, where bash ignores
    ``set -e``: a failing ``make test`` followed by ``echo done`` leaves the line a success,
    which is why proctor does not read ``set -e``. The check's status is hidden, and make's
    own error line in the output says how it went. ``|| exit 1`` still ends the line."""
    require_cli(AGENT)
    plan = {
        "turns": [
            {"write": {"path": "app.py", "content": "X = 1\n"}},
            {"shell": "set -e; make test; echo done"},
            {"shell": "make test || exit 1; echo done"},
            {"say": "Done."},
        ]
    }
    out = run_cli(AGENT, plan, src={"Makefile": "test:\n\t@exit 3\n"})
    results = [e for e in out["events"] if e["type"] == "tool_result"][1:]
    assert [e["isError"] for e in results] == [False, True]
    # (make[1] where the tests run under a make of their own, as CI's do)
    assert re.search(r"make(\[\d+\])?: \*\*\* \[Makefile:2: test\] Error 3", results[0]["output"])
    checks = out["trial"]["process"]["checks"]
    assert [c["outcome"] for c in checks] == ["fail", "fail"]


def test_nothing_of_a_trial_is_left_in_the_user_s_temp_folder(
    run_cli: Callable[..., dict[str, Any]], tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code keeps each shell command's output under $TMPDIR/claude-<uid>/…: the trial's
    TMPDIR is inside its scratch, which goes with it."""
    require_cli(AGENT)
    own = tmp_path / "user-tmp"
    own.mkdir()
    monkeypatch.setenv("TMPDIR", str(own))
    out = run_cli(AGENT, BASIC, config=BASIC_CONFIG)
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]
    assert sorted(p.name for p in own.rglob("*")) == []


def test_a_rate_limit_that_outlasts_the_trial_is_the_provider_s_failure_not_a_timeout(
    run_cli: Callable[..., dict[str, Any]],
) -> None:
    """Claude Code retries a 429 for minutes; when the time runs out meanwhile, the trial is
    an agent-error naming the rate limit (which --retry-errors retries), not a timeout counted
    as a failed trial."""
    require_cli(AGENT)
    errors = {str(i): {"status": 429, "message": "rate limited"} for i in range(60)}
    plan = {"turns": [{"say": "never reached"}], "errors": errors}
    out = run_cli(AGENT, plan, config={"timeoutSec": 8})
    trial = out["trial"]
    assert trial["status"] == "agent-error", trial["reason"]
    assert trial["reason"].startswith("rate limited: API Error: 429"), trial["reason"]
    assert "still retrying when it was stopped" in trial["reason"]


def test_a_raw_tool_step_the_cli_does_not_offer_is_a_warning(
    run_cli: Callable[..., dict[str, Any]],
) -> None:
    """The pinned release searches with Bash and offers no Grep: a plan step naming Grep fails
    as an unknown tool, and the trial says why; a tool it offers (Read) is no warning."""
    require_cli(AGENT)
    plan = {
        "turns": [
            {"write": {"path": "notes.txt", "content": "alpha\n"}},
            {"tool": "Read", "input": {"file_path": "notes.txt"}},
            {"tool": "Grep", "input": {"pattern": "alpha", "path": "."}},
            {"say": "Done."},
        ]
    }
    out = run_cli(AGENT, plan)
    warnings = [w for w in out["trial"].get("warnings", []) if "did not offer" in w]
    assert len(warnings) == 1, out["trial"].get("warnings")
    assert warnings[0].startswith("the plan called Grep (turn 1, response 3), which claude-code ")
    assert "Bash" in warnings[0] and "Read" not in warnings[0].split("(it offered")[0]


def test_a_call_with_two_questions_draws_two_pickers_then_a_review(
    run_cli: Callable[..., dict[str, Any]],
) -> None:
    """Claude Code draws a picker per question of one AskUserQuestion call, then a review of
    the answers (no question of its own: proctor submits it); the call's one result holds
    both answers, and the trajectory has a question and an answer event for each question,
    each answer event paired with its own question's record (its policy)."""
    require_cli(AGENT)

    def asked(text: str, header: str, options: list[str]) -> dict[str, Any]:
        labels = [{"label": o, "description": o} for o in options]
        return {"question": text, "header": header, "options": labels, "multiSelect": False}

    questions = [
        asked("Which color should the button be?", "color", ["Red", "Blue"]),
        asked("Which size should the button be?", "size", ["Small", "Large"]),
    ]
    plan = {
        "turns": [
            {"tool": "AskUserQuestion", "input": {"questions": questions}},
            {"say": "Done."},
        ]
    }
    out = run_cli(
        AGENT,
        plan,
        mode="interactive",
        qna="```rules\n(?i)colou?r => Blue\n(?i)size => Large\n```\n",
    )
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]
    lines = (out["dir"] / "questions.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert [(r["question"], r["answer"]) for r in records] == [
        ("Which color should the button be?", "Blue"),
        ("Which size should the button be?", "Large"),
    ]
    call = next(e for e in out["events"] if e["type"] == "question")
    assert {r.get("toolCallId") for r in records} == {call["id"]}
    asked = [(e["id"], e["text"]) for e in out["events"] if e["type"] == "question"]
    assert asked == [(call["id"], r["question"]) for r in records]
    answers = [
        (e["id"], e["text"], e.get("policy")) for e in out["events"] if e["type"] == "answer"
    ]
    assert answers == [(call["id"], r["answer"], r["policy"]) for r in records]
    raw = (out["dir"] / "raw-transcript.jsonl").read_text().replace(": ", ":")
    assert '"Which size should the button be?":"Large"' in raw


def test_a_multiple_choice_picker_ticks_each_option_named(
    run_cli: Callable[..., dict[str, Any]],
) -> None:
    """An AskUserQuestion question with ``multiSelect`` draws checkboxes: an answer naming two
    options, comma-separated, ticks both and submits; the call's result holds both labels,
    joined as Claude Code joins them."""
    require_cli(AGENT)
    labels = [{"label": o, "description": o.lower()} for o in ("Cheese", "Ham", "Olives")]
    question = {
        "question": "Which toppings do you want?",
        "header": "toppings",
        "options": labels,
        "multiSelect": True,
    }
    plan = {
        "turns": [
            {"tool": "AskUserQuestion", "input": {"questions": [question]}},
            {"say": "Done."},
        ]
    }
    out = run_cli(
        AGENT, plan, mode="interactive", qna="```rules\n(?i)toppings => Cheese, Olives\n```\n"
    )
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]
    records = [json.loads(x) for x in (out["dir"] / "questions.jsonl").read_text().splitlines()]
    assert [(r["question"], r["options"], r["answer"]) for r in records] == [
        ("Which toppings do you want?", ["Cheese", "Ham", "Olives"], "Cheese, Olives")
    ]
    raw = (out["dir"] / "raw-transcript.jsonl").read_text().replace(": ", ":")
    assert '"Which toppings do you want?":"Cheese, Olives"' in raw


def test_a_multiple_choice_picker_takes_an_answer_partly_of_ones_own(
    run_cli: Callable[..., dict[str, Any]],
) -> None:
    """An answer naming an option and going on with a part that names none ticks the option
    and types the rest into ``Type something``: the call's result holds both, as Claude Code
    joins them."""
    require_cli(AGENT)
    labels = [{"label": o, "description": o.lower()} for o in ("Cheese", "Ham", "Olives")]
    question = {
        "question": "Which toppings do you want?",
        "header": "toppings",
        "options": labels,
        "multiSelect": True,
    }
    plan = {
        "turns": [
            {"tool": "AskUserQuestion", "input": {"questions": [question]}},
            {"say": "Done."},
        ]
    }
    out = run_cli(
        AGENT, plan, mode="interactive", qna="```rules\n(?i)toppings => Olives, extra basil\n```\n"
    )
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]
    records = [json.loads(x) for x in (out["dir"] / "questions.jsonl").read_text().splitlines()]
    assert [(r["options"], r["answer"]) for r in records] == [
        (["Cheese", "Ham", "Olives"], "Olives, extra basil")
    ]
    raw = (out["dir"] / "raw-transcript.jsonl").read_text().replace(": ", ":")
    assert '"Which toppings do you want?":"Olives, extra basil"' in raw


def test_the_agents_numbered_list_above_the_pickers_is_not_read_as_their_entries(
    run_cli: Callable[..., dict[str, Any]],
) -> None:
    """The agent's own numbered list, still on screen above the pickers and the review, is
    none of their entries: each picker is answered once, with its call's id, and the review is
    submitted."""
    require_cli(AGENT)

    def asked(text: str, header: str, options: list[str]) -> dict[str, Any]:
        labels = [{"label": o, "description": o} for o in options]
        return {"question": text, "header": header, "options": labels, "multiSelect": False}

    plan = {
        "turns": [
            {"say": "Here is the plan:\n\n1. Add a button\n2. Style it\n3. Test it"},
            {"ask": "Which color should the button be?", "options": ["Red", "Blue"]},
            {"say": "Next:\n\n1. Pick a size\n2. Write it down"},
            {
                "tool": "AskUserQuestion",
                "input": {
                    "questions": [
                        asked("Which size should the button be?", "size", ["Small", "Large"]),
                        asked("Which font should the button use?", "font", ["Serif", "Sans"]),
                    ]
                },
            },
            {"say": "Done."},
        ]
    }
    out = run_cli(
        AGENT,
        plan,
        mode="interactive",
        qna="```rules\n(?i)colou?r => Red\n(?i)size => Large\n(?i)font => Sans\n```\n",
    )
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]
    records = [json.loads(x) for x in (out["dir"] / "questions.jsonl").read_text().splitlines()]
    assert [(r["question"], r["answer"]) for r in records] == [
        ("Which color should the button be?", "Red"),
        ("Which size should the button be?", "Large"),
        ("Which font should the button use?", "Sans"),
    ]
    calls = [e["id"] for e in out["events"] if e["type"] == "tool_call"]
    assert all(r.get("toolCallId") in calls for r in records), records
    raw = (out["dir"] / "raw-transcript.jsonl").read_text().replace(": ", ":")
    assert '"Which color should the button be?"="Red"' in raw.replace('\\"', '"')
    assert '"Which font should the button use?":"Sans"' in raw


def test_follow_ups_after_the_plan_s_last_turn_are_a_warning(
    run_cli: Callable[..., dict[str, Any]],
) -> None:
    """The scripted model answers each prompt after the plan's last turn with "I have nothing
    left in my plan." alone, and its request log says so (``played.exhausted``): the trial's
    warnings name those turns, counted as the model counts prompts."""
    require_cli(AGENT)
    plan = {"turns": [{"write": {"path": "a.txt", "content": "x"}}, {"say": "Done."}]}
    out = run_cli(AGENT, plan, config={"followUps": ["again", "more"]})
    trial = out["trial"]
    assert trial["status"] == "passed", trial["reason"]
    assert trial["warnings"] == [
        "the plan has 1 turn (split by endTurn) and the case (prompt and followUps) sent 3 "
        "messages, so these turns found no step left to play (the agent replied 'I have "
        "nothing left in my plan.'): turn 2, turn 3"
    ]
