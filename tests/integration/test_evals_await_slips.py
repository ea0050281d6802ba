"""Slips of ``await`` in an eval's test, each one sentence naming the eval file and the line:
a ``t.send`` or judge never awaited (its turn never ran), one used as its result, and a gate
awaited as if it were a coroutine."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.integration.test_evals_cli import project, run_json

Run = Any

PLAN = '{"turns": [{"say": "hi"}, {"endTurn": True}, {"say": "again"}]}'
JUDGED = (
    '{"turns": [{"say": "hi"}], "roles": {"judge": [{"json": '
    '{"score": 90, "confidenceLevel": 80, "rationale": "ok"}}]}}'
)


def _eval(body: str, plan: str = PLAN, extra: str = "") -> str:
    lines = "\n".join("    " + line for line in body.splitlines())
    return (
        "import asyncio\nfrom proctor.evals import define_eval\n\n"
        f"async def test(t):\n{lines}\n\n"
        f"eval = define_eval(plan={plan}, test=test{extra})\n"
    )


def test_await_slips_are_errors_at_their_line(proctor: Run, tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            # line 5: the send, never awaited; the gate after it fails on an empty reply
            "forgot.eval.py": _eval('t.send("hello")\nt.message_includes("hi")'),
            "used.eval.py": _eval('turn = t.send("hello")\nturn.message_includes("hi")'),
            "judge.eval.py": _eval(
                'await t.send("hello")\nt.judge.closed_qa("a greeting?")',
                JUDGED,
                ', judge="scripted/judge"',
            ),
            "gate.eval.py": _eval(
                'turn = await t.send("hello")\nawait turn.message_includes("hi")'
            ),
            # awaited in every way asyncio takes an awaitable: all fine
            "fine.eval.py": _eval(
                'a = await asyncio.wait_for(t.send("one"), 60)\n'
                'b = await asyncio.create_task(t.send("two"))\n'
                "a.expect_ok()\nb.message_includes('again')\n"
                'g = await t.judge.factuality("hi")\ng.gate(0.5)',
                "{**" + PLAN + ', "roles": ' + JUDGED.split('"roles": ')[1],
                ', judge="scripted/judge"',
            ),
        },
    )
    result, out = run_json(proctor, root, tmp_path)
    by_id = {r["id"]: r for r in out["results"]}
    assert by_id["fine"]["status"] == "passed", by_id["fine"]
    forgot = by_id["forgot"]
    assert forgot["status"] == "eval-error"
    assert forgot["error"] == (
        "NotAwaited: t.send('hello') was never awaited, so it never ran; write: "
        f"await t.send('hello') (at {root / 'evals' / 'forgot.eval.py'}:5)"
    )
    assert forgot["inputs"] == []
    used = by_id["used"]["error"]
    assert used.startswith("AttributeError: t.send('hello') (line 5) was not awaited")
    assert used.endswith(f"(at {root / 'evals' / 'used.eval.py'}:6)")
    judge = by_id["judge"]
    assert judge["status"] == "eval-error"
    assert "t.judge.closed_qa(...) was never awaited" in judge["error"]
    assert judge["error"].endswith("judge.eval.py:6)")
    gate = by_id["gate"]["error"]
    assert gate == (
        "TypeError: turn 1: message_includes('hi') is a gate, checked when it is called, not "
        f"awaited: remove the 'await' before it (at {root / 'evals' / 'gate.eval.py'}:6)"
    )
    # Python's own warning of a coroutine never awaited is not printed besides the error.
    assert "never awaited" not in result.err
    assert result.code == 1  # forgot's gate failed before the error


def test_a_judge_that_fails_names_the_line_of_its_call(proctor: Run, tmp_path: Path) -> None:
    bad = '{"turns": [{"say": "hi"}], "roles": {"judge": [{"json": {"score": 90}}]}}'
    body = 'await t.send("hello")\nawait t.judge.factuality("hi")'
    root = project(tmp_path, {"j.eval.py": _eval(body, bad, ', judge="scripted/judge"')})
    result, out = run_json(proctor, root, tmp_path)
    error = out["results"][0]["error"]
    assert "gave an unusable reply" in error
    assert error.endswith(f"(at {root / 'evals' / 'j.eval.py'}:6)")
    assert result.code == 3


def test_a_tracked_send_is_a_coroutine_asyncio_runs() -> None:
    from proctor.evals.awaited import Tracked, unawaited

    async def two() -> int:
        return 2

    made: list[Tracked[Any]] = []

    async def main() -> list[int]:
        return list(
            await asyncio.gather(
                Tracked(two(), "two()", made), asyncio.create_task(Tracked(two(), "two()", made))
            )
        )

    assert asyncio.run(main()) == [2, 2]
    assert unawaited(made) is None
    left = Tracked(two(), "two()", made)
    assert unawaited(made) is left and "not awaited" in repr(left)


def test_a_failed_gate_names_the_line_that_called_it(proctor: Run, tmp_path: Path) -> None:
    body = (
        'one = await t.send("hello")\n'  # line 5
        'two = await t.send("more")\n'
        'one.message_includes("hi")\n'  # line 7: passes
        'two.message_includes("hi")\n'  # line 8: fails (turn 2 said 'again')
        'g = await t.judge.factuality("hi")\n'  # line 9
        "g.gate(0.95)\n"
        't.message_includes("again")'  # line 11: passes (the whole conversation)
    )
    plan = "{**" + PLAN + ', "roles": ' + JUDGED.split('"roles": ')[1]
    root = project(tmp_path, {"lines.eval.py": _eval(body, plan, ', judge="scripted/judge"')})
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 1
    case = out["results"][0]
    file = root / "evals" / "lines.eval.py"
    assert [(a["name"], a["at"]) for a in case["assertions"]] == [
        ("turn 1: message_includes('hi')", f"{file}:7"),
        ("turn 2: message_includes('hi')", f"{file}:8"),
        ("judge.factuality('hi')", f"{file}:9"),
        ("message_includes('again')", f"{file}:11"),
    ]
    # The trial's reason (what JUnit, the Markdown report and `proctor report` show) names
    # the turn and the line of each failed gate.
    assert case["reason"] == (
        "gate failed: turn 2: message_includes('hi'): the reply does not include 'hi' "
        f"(at {file}:8); judge.factuality('hi'): ok; score 0.90 < 0.95 (at {file}:9)"
    )
    text = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "o2"), "--no-stream")
    assert (
        f"FAIL turn 2: message_includes('hi'): the reply does not include 'hi' (at {file}:8)"
        in text.out
    )


def test_a_timeout_names_where_the_test_was(proctor: Run, tmp_path: Path) -> None:
    plan = '{"turns": [{"say": "one"}, {"endTurn": True}, {"sleep": 20}, {"say": "late"}]}'
    root = project(
        tmp_path,
        {
            # line 6: the second turn outlasts the case's time
            "in_turn.eval.py": _eval('await t.send("first")\nawait t.send("second")', plan),
            # line 6: awaiting something else
            "sleeping.eval.py": _eval('await t.send("first")\nawait asyncio.sleep(30)', plan),
            # line 7: blocked without awaiting
            "blocked.eval.py": _eval(
                'await t.send("first")\nimport time\ntime.sleep(30)', plan, ", timeout_ms=2000"
            ),
        },
    )
    result, out = run_json(proctor, root, tmp_path, "--timeout-ms", "2000")
    assert result.code == 1
    reasons = {r["id"]: (r["status"], r["reason"]) for r in out["results"]}
    evals = root / "evals"
    assert reasons == {
        "in_turn": (
            "timeout",
            f"the eval did not finish within 2s (the test was at {evals}/in_turn.eval.py:6, "
            "in turn 2)",
        ),
        "sleeping": (
            "timeout",
            f"the eval did not finish within 2s (the test was at {evals}/sleeping.eval.py:6)",
        ),
        "blocked": (
            "timeout",
            f"the eval did not finish within 2s (the test was at {evals}/blocked.eval.py:7)",
        ),
    }


def test_a_send_left_running_when_the_test_returns_is_an_error(
    proctor: Run, tmp_path: Path
) -> None:
    plan = '{"turns": [{"say": "one"}, {"endTurn": True}, {"sleep": 1}, {"say": "two"}]}'
    body = (
        'await t.send("hello")\n'
        'asyncio.create_task(t.send("background"))\n'  # line 6: never awaited, left running
        "await asyncio.sleep(0.2)\n"
        't.message_includes("one")'
    )
    root = project(tmp_path, {"bg.eval.py": _eval(body, plan)})
    result, out = run_json(proctor, root, tmp_path)
    case = out["results"][0]
    assert case["status"] == "eval-error", case
    assert case["error"] == (
        "NotAwaited: t.send('background') was still running when the test returned, so no "
        f"gate saw what it did; await it before the test ends (at {root}/evals/bg.eval.py:6)"
    )
    assert result.code == 3


def test_workspace_files_on_a_later_send_is_an_error(proctor: Run, tmp_path: Path) -> None:
    plan = '{"turns": [{"say": "one"}, {"endTurn": True}, {"read": "b.txt"}, {"say": "two"}]}'
    body = 'await t.send("first", workspace_files={"a.txt": "a"})\n' + (
        'await t.send("second", workspace_files={"b.txt": "b"})'  # line 6
    )
    root = project(tmp_path, {"ws.eval.py": _eval(body, plan)})
    result, out = run_json(proctor, root, tmp_path)
    case = out["results"][0]
    assert case["status"] == "eval-error", case
    assert case["error"] == (
        "ValueError: t.send('second'): workspace_files seeds the workspace before the first "
        "send only, and this is send 2; give it to the first send, or write the file into "
        f"t.workspace before this one (at {root}/evals/ws.eval.py:6)"
    )
    assert case["inputs"] == ["first"] and result.code == 3


def test_a_bare_assert_that_fails_is_shown_by_its_code(proctor: Run, tmp_path: Path) -> None:
    body = 'turn = await t.send("first")\nassert "nope" in turn.message'  # line 6
    root = project(tmp_path, {"asrt.eval.py": _eval(body)})
    result, out = run_json(proctor, root, tmp_path)
    assert out["results"][0]["error"] == (
        f'AssertionError: assert "nope" in turn.message (at {root}/evals/asrt.eval.py:6)'
    )
    assert result.code == 3
