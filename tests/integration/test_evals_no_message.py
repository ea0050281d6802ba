"""A test that sends no message runs no agent, and its gates read an empty conversation:
a ``not_called_tool`` or a ``t.check`` of a constant then pass. Such a case
passed in silence; its result now says why it ran nothing, as a warning."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.integration.test_evals_cli import project, run_json

Run = Any

SAID = (
    "the test sent no message, so no agent ran and its gates read an empty conversation; "
    "call await t.send(...) before them"
)


def test_gates_on_a_conversation_no_message_started_are_warned_of(
    proctor: Run, tmp_path: Path
) -> None:
    files = {
        "a.eval.py": """
            from proctor.evals import case, define_eval
            async def gates_only(t):
                t.not_called_tool("shell")
                t.check(1, 1)
            async def sends(t):
                await t.send("hi")
                t.succeeded()
            async def nothing(t):
                pass
            eval = define_eval(cases=[
                case(id="gates", test=gates_only),
                case(id="sends", test=sends),
                case(id="nothing", test=nothing),
            ])
        """
    }
    root = project(tmp_path, files)
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 1, result.err  # a/nothing failed
    by_id = {r["id"]: r for r in out["results"]}
    assert by_id["a/gates"]["status"] == "passed", by_id
    assert by_id["a/gates"]["warnings"] == [SAID]
    assert by_id["a/sends"]["warnings"] == []
    # No gate at all: the case fails, and its reason already says no message was sent.
    assert by_id["a/nothing"]["status"] == "failed" and by_id["a/nothing"]["warnings"] == []
    trial = next(Path(out["runDir"]).glob("trials/a.gates/*/*/1/trial.json"))
    assert json.loads(trial.read_text())["warnings"] == [SAID]
    text = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "o2"), "a/gates")
    assert f"    warning: {SAID}" in text.out, text.out


def test_a_test_a_failed_require_stopped_is_not_said_to_have_sent_too_few(
    proctor: Run, tmp_path: Path
) -> None:
    """A failed ``t.require`` (or ``require_input_request``) stops the test: the steps its
    later sends would have played were written, not forgotten, so no warning says they never
    played, as none does for a test that raised."""
    files = {
        "a.eval.py": """
            from proctor.evals import define_eval
            PLAN = {"turns": [{"say": "one"}, {"endTurn": True}, {"say": "two"}]}
            async def test(t):
                await t.send("go")
                t.require_input_request("format")
                await t.send("again")
            eval = define_eval(plan=PLAN, test=test)
        """,
        "b.eval.py": """
            from proctor.evals import define_eval
            async def test(t):
                t.require(1, 2)
                await t.send("go")
            eval = define_eval(test=test)
        """,
    }
    root = project(tmp_path, files)
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 1, result.err
    by_id = {r["id"]: r for r in out["results"]}
    assert by_id["a"]["status"] == "failed" and by_id["a"]["warnings"] == [], by_id["a"]
    assert by_id["b"]["status"] == "failed" and by_id["b"]["warnings"] == [], by_id["b"]


def test_a_value_the_test_returns_is_warned_of_as_deciding_nothing(
    proctor: Run, tmp_path: Path
) -> None:
    """``return False`` (or ``return turn.ok``) reads as a verdict, but what a test returns
    decides nothing: the case passed on its gates, in silence. Its result now says so."""
    files = {
        "a.eval.py": """
            from proctor.evals import case, define_eval
            async def gives_false(t):
                await t.send("hi")
                return False
            async def gives_none(t):
                await t.send("hi")
                return None
            class BadRepr:
                def __repr__(self):
                    raise RuntimeError("boom in repr")
            async def gives_bad_repr(t):
                await t.send("hi")
                return BadRepr()
            eval = define_eval(cases=[
                case(id="false", test=gives_false),
                case(id="none", test=gives_none),
                case(id="badrepr", test=gives_bad_repr),
            ])
        """
    }
    root = project(tmp_path, files)
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 0, result.err
    by_id = {r["id"]: r for r in out["results"]}
    said = (
        f"the test ({root / 'evals' / 'a.eval.py'}:3) returned False, which decides nothing: "
        "a case passes or fails on its gates: gate the value instead, as "
        "t.check(value, expected) does"
    )
    assert by_id["a/false"]["status"] == "passed"
    assert by_id["a/false"]["warnings"] == [said]
    assert by_id["a/none"]["warnings"] == []
    # A value whose repr() raises is named by its type: the warning never fails the case.
    assert by_id["a/badrepr"]["status"] == "passed", by_id["a/badrepr"]
    assert "returned <BadRepr instance at 0x" in by_id["a/badrepr"]["warnings"][0]
