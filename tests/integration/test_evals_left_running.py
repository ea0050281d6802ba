"""A gate recorded by a task or thread the test left running came after the case was
decided and was silently lost: the case is ``eval-error`` with one sentence that names the
task or thread and the line of the eval file it was at."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.integration.test_evals_cli import project, run_json

Run = Any

PLAN = '{"turns": [{"say": "hi"}]}'


def _eval(body: str) -> str:
    lines = "\n".join("    " + line for line in body.splitlines())
    return (
        "import asyncio, threading, time\nfrom proctor.evals import define_eval\n\n"
        f"async def test(t):\n{lines}\n\n"
        f"eval = define_eval(plan={PLAN}, test=test)\n"
    )


def test_gates_left_running_are_errors(proctor: Run, tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            # line 7: the task waits there when the test returns, and is cancelled
            "task.eval.py": _eval(
                'await t.send("hello")\nasync def later():\n    await asyncio.sleep(0.2)\n'
                "    t.check(1, 2)\nasyncio.create_task(later())"
            ),
            # line 7: the thread sleeps there; its failing check came after the verdict
            "thread.eval.py": _eval(
                'await t.send("hello")\ndef later():\n    time.sleep(0.5)\n'
                "    t.check(1, 2)\nthreading.Thread(target=later).start()"
            ),
            # a task or thread waited for (or a task cancelled) is fine
            "fine.eval.py": _eval(
                'await t.send("hello")\nasync def later():\n    t.check(1, 1)\n'
                "await asyncio.create_task(later())\n"
                "th = threading.Thread(target=lambda: t.check(2, 2))\nth.start()\nth.join()\n"
                "asyncio.create_task(asyncio.sleep(5)).cancel()"
            ),
        },
    )
    _, out = run_json(proctor, root, tmp_path)
    by_id = {r["id"]: r for r in out["results"]}
    assert by_id["fine"]["status"] == "passed", by_id["fine"]
    task = by_id["task"]
    assert task["status"] == "eval-error", task
    assert task["error"] == (
        "LeftRunning: the task test.<locals>.later() the test started was still running at "
        "line 7 when the test returned, so it was cancelled and no gate after that line ever "
        "ran; await the task (or cancel it) before the test returns "
        f"(at {root / 'evals' / 'task.eval.py'}:7)"
    )
    thread = by_id["thread"]
    assert thread["status"] == "eval-error", thread
    assert thread["error"].startswith("ThreadLeftRunning: the thread 'Thread-")
    assert thread["error"].endswith(
        "(later)' the test started was still running at line 7 when the test returned, so "
        "a gate it records could not decide the case; join it (or stop it) before the test "
        f"returns (at {root / 'evals' / 'thread.eval.py'}:7)"
    )


def test_a_gate_recorded_after_the_test_returned_is_not_counted() -> None:
    """A gate that arrives after the test returned (a task that caught its cancellation) is
    kept apart from the case's gates, and the case's error names it."""
    from proctor.evals.context import TestContext
    from proctor.evals.conversation import _late

    t = TestContext(None)
    t.check(1, 1)
    t._returned = True
    t.check(1, 2)
    assert [a.name for a in t.recorded.assertions] == ["check(equals 1)"]
    assert [a.name for a in t.recorded.late] == ["check(equals 2)"]
    said = _late(t.recorded.late)
    assert said is not None and said.startswith(
        "the gate check(equals 2) was recorded after the test returned, by a task or thread "
        "the test left running, so it could not decide the case"
    )


KEEPALIVE = """\
import asyncio


class Client:
    async def connect(self):
        self.pings = 0
        self.keepalive = asyncio.create_task(self._ping())
        return self

    async def _ping(self):
        while True:
            self.pings += 1
            await asyncio.sleep(0.01)
"""


def test_a_task_a_library_started_is_the_librarys(proctor: Run, tmp_path: Path) -> None:
    """Only the tasks the test's own code started are its to end: a library's background task
    (a client's keep-alive) left running is cancelled as the loop closes, quietly, while a task
    the eval file asked for is still an error, whatever its coroutine."""
    root = project(
        tmp_path,
        {
            "library.eval.py": _eval(
                'await t.send("hello")\nfrom keepalive import Client\n'
                "client = await Client().connect()\nawait asyncio.sleep(0.05)\n"
                "t.check(client.pings > 0, True)"
            ),
            # line 6: a coroutine of asyncio's, but the eval file started its task
            "own.eval.py": _eval('await t.send("hello")\nasyncio.create_task(asyncio.sleep(5))'),
        },
    )
    (root / "keepalive.py").write_text(KEEPALIVE)
    _, out = run_json(proctor, root, tmp_path)
    by_id = {r["id"]: r for r in out["results"]}
    assert by_id["library"]["status"] == "passed", by_id["library"]
    own = by_id["own"]
    assert own["status"] == "eval-error", own
    assert own["error"] == (  # waiting in asyncio's sleep: named by the line that started it
        "LeftRunning: the task sleep() the test started at line 6 was still running when the "
        "test returned, so it was cancelled and no gate after that line ever ran; await the "
        f"task (or cancel it) before the test returns (at {root / 'evals' / 'own.eval.py'}:6)"
    )


def test_a_gather_left_running_says_one_sentence(tmp_path: Path) -> None:
    """The future of an ``asyncio.gather`` the test left is cancelled with its task: the case
    says so in its error, and asyncio's "exception was never retrieved" traceback is not
    printed besides (a process of its own: asyncio logs it as the future is collected)."""
    body = 'await t.send("hello")\nasyncio.gather(asyncio.sleep(5))'
    root = project(tmp_path, {"gather.eval.py": _eval(body)})
    args = ["eval", "--dir", str(root), "--json", "--no-stream", "--out", str(tmp_path / "out")]
    done = subprocess.run(
        [sys.executable, "-m", "proctor", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(tmp_path / "home")},
        timeout=120,
    )
    (case,) = json.loads(done.stdout)["results"]
    assert case["status"] == "eval-error", case
    assert "the task sleep() the test started at line 6" in case["error"]
    assert "never retrieved" not in done.stderr, done.stderr
