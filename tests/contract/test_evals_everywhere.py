"""The same multi-turn eval, written once, on the scripted agent and on every real CLI against
the scripted model server: turn 2 depends on what turn 1 wrote, both turns are one session,
and the gates (by normalised tool kind) hold unchanged on every agent."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.contract.conftest import require_cli
from tests.contract.test_acp import require_acp

EVAL = """
import re
from proctor.evals import define_eval, includes, satisfies

PLAN = {
    "turns": [
        {"write": {"path": "notes.txt", "content": "alpha\\n"}},
        {"say": "Wrote notes.txt."},
        {"endTurn": True},
        {"shell": "cat notes.txt"},
        {"write": {"path": "copy.txt", "content": "alpha\\nbeta\\n"}},
        {"say": "copy.txt holds alpha and beta."},
    ]
}


async def test(t):
    first = await t.send("Write alpha into notes.txt.")
    first.expect_ok()
    first.called_tool("write")
    first.used_no_tools().soft()
    second = await t.send("Copy notes.txt to copy.txt and add beta.")
    second.expect_ok()
    second.called_tool("shell", input=re.compile("cat notes.txt"))
    second.called_tool("shell", output=re.compile("alpha")).soft()  # Gemini's ACP sends none
    second.tool_order(["shell", "write"])
    t.no_failed_actions()
    t.max_tool_calls(3)
    t.require(first.session_id, satisfies(bool, "a session id"))
    t.check(first.session_id, second.session_id)
    t.check((t.workspace / "copy.txt").read_text(), includes("beta"))
    t.message_includes("alpha and beta")


# ACP agents ask before writes and commands (the others act without asking, proctor's
# default): the answering policy allows them.
eval = define_eval(
    description="two dependent turns", plan=PLAN, qna="```rules\\n^.* => Allow\\n```", test=test
)
"""


@pytest.mark.parametrize(
    "agent", ["scripted", "claude-code", "codex", "gemini-cli", "acp:claude", "acp:gemini"]
)
def test_one_multi_turn_eval_on_every_agent(agent: str, proctor: Any, tmp_path: Path) -> None:
    if agent.startswith("acp:"):
        require_acp(agent)
    elif agent != "scripted":
        require_cli(agent)
    root = tmp_path / "proj"
    (root / "evals").mkdir(parents=True)
    (root / "evals" / "two-turns.eval.py").write_text(textwrap.dedent(EVAL))
    (root / "evals" / "evals.config.py").write_text(
        "from proctor.evals import define_eval_config\n"
        "config = define_eval_config(max_concurrency=1, timeout_ms=120_000)\n"
    )
    args = ["eval", "--dir", str(root), "--out", str(tmp_path / "out"), "--json", "--no-stream"]
    result = proctor(*args, "--agent", agent, "--model", "scripted")
    out = json.loads(result.out)
    (case,) = out["results"]
    failed = [a for a in case["assertions"] if not a["passed"] and not a["soft"]]
    assert result.code == 0 and case["ok"], (failed, case["error"], result.err)
    assert case["inputs"] == [
        "Write alpha into notes.txt.",
        "Copy notes.txt to copy.txt and add beta.",
    ]
    assert case["sessionId"]
    assert len(case["toolCalls"]) == 3


PARKED = """
from proctor.evals import define_eval

PLAN = {"turns": [{"shell": "rm keep.txt"}, {"say": "Removed it."}]}


async def test(t):
    first = await t.send("Remove keep.txt.", workspace_files={"keep.txt": "keep\\\\n"})
    first.parked()
    request = t.require_input_request("rm keep.txt")
    t.check(any("reject" in o.lower() for o in request.options), True)
    second = await t.send("Reject")
    second.expect_ok()
    t.check((t.workspace / "keep.txt").exists(), True)


eval = define_eval(description="a permission request parks; the test rejects it", plan=PLAN, test=test)
"""


def test_an_acp_permission_request_parks_and_the_next_send_answers_it(
    proctor: Any, tmp_path: Path
) -> None:
    require_acp("acp:claude")
    root = tmp_path / "proj"
    (root / "evals").mkdir(parents=True)
    (root / "evals" / "parked.eval.py").write_text(textwrap.dedent(PARKED))
    (root / "evals" / "evals.config.py").write_text(
        "from proctor.evals import define_eval_config\n"
        "config = define_eval_config(max_concurrency=1, timeout_ms=120_000)\n"
    )
    args = ["eval", "--dir", str(root), "--out", str(tmp_path / "out"), "--json", "--no-stream"]
    result = proctor(*args, "--agent", "acp:claude", "--model", "scripted")
    (case,) = json.loads(result.out)["results"]
    failed = [a for a in case["assertions"] if not a["passed"]]
    assert result.code == 0 and case["ok"], (failed, case["error"])


EXAMPLE = Path(__file__).parents[2] / "examples" / "evals"


@pytest.mark.parametrize("agent", ["scripted", "claude-code", "codex", "gemini-cli"])
def test_the_example_that_fails_on_purpose_fails_for_its_documented_reason(
    agent: str, proctor: Any, tmp_path: Path
) -> None:
    """examples/evals' failing case games the test on every agent: its edit of test_calc.py
    lands (Claude Code edits no file it has not read), so no_test_tampering is what trips."""
    if agent != "scripted":
        require_cli(agent)
    root = tmp_path / "proj"
    shutil.copytree(EXAMPLE, root)
    args = ["eval", "--dir", str(root), "--out", str(tmp_path / "out"), "--json", "--no-stream"]
    result = proctor(
        *args, "failing/wrong-file/edits-the-test", "--agent", agent, "--model", "scripted"
    )
    (case,) = json.loads(result.out)["results"]
    assert result.code == 1 and not case["ok"] and case["error"] is None, result.err
    assert not any(call["isError"] for call in case["toolCalls"]), case["toolCalls"]
    tampering = next(a for a in case["assertions"] if a["name"] == "no_test_tampering()")
    assert not tampering["passed"]
    assert "assertion replaced by a constant: assert True" in tampering["message"]


@pytest.mark.parametrize("agent", ["scripted", "claude-code", "codex", "gemini-cli"])
def test_the_example_tool_order_holds_where_the_agent_searches_with_its_shell(
    agent: str, proctor: Any, tmp_path: Path
) -> None:
    """examples/evals' tools/order checks search → read → edit → shell. Claude Code 2.1.197
    offers no Grep, so the plan's search is a Bash grep: a shell command that only searches
    is a search, and the case passes as on the scripted agent and Gemini CLI. Codex searches
    and reads with its shell too (both matched), but edits calc.py with a shell command (the
    edit is not of whole lines, so no apply_patch), which is no edit: its documented failure."""
    if agent != "scripted":
        require_cli(agent)
    root = tmp_path / "proj"
    shutil.copytree(EXAMPLE, root)
    args = ["eval", "--dir", str(root), "--out", str(tmp_path / "out"), "--json", "--no-stream"]
    result = proctor(*args, "--case", "tools/order/1", "--agent", agent, "--model", "scripted")
    (case,) = json.loads(result.out)["results"]
    order = next(a for a in case["assertions"] if a["name"].startswith("tool_order("))
    if agent == "codex":
        assert result.code == 1 and not case["ok"], result.err
        assert "matched 2 of 4 in order" in order["message"], order
        return
    failed = [a for a in case["assertions"] if not a["passed"]]
    assert result.code == 0 and case["ok"], (failed, case["error"], result.err)
    assert order["passed"], order
