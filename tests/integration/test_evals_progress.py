"""The progress `proctor eval` prints on stderr while it runs: one line per finished case, and
its warnings below it, as `proctor run` prints a trial's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Run
from tests.integration.test_evals_cli import project

SHORT = """
    from proctor.evals import define_eval
    PLAN = {"turns": [{"say": "one"}, {"endTurn": True}, {"say": "two"}]}
    async def test(t):
        (await t.send("go")).expect_ok()
    eval = define_eval(plan=PLAN, test=test)
"""
SAID = (
    "the plan has 2 turns (split by endTurn) and the test sent 1 message, so these steps "
    "never played: turns[2] (say)"
)


def test_a_case_s_warning_is_on_its_progress_line(proctor: Run, tmp_path: Path) -> None:
    """The end summary listed the plan's steps no message reached, and the live line of the
    case said nothing of them; `proctor run` prints them under the trial's line."""
    root = project(tmp_path, {"short.eval.py": SHORT})
    result = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "out"), "--json")
    assert result.code == 0, result.err
    lines = result.err.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("✓ short ("))
    assert lines[at + 1] == f"    warning: {SAID}", result.err
    # --no-stream keeps the progress quiet, its warning line with it (the summary says it).
    quiet = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "o2"), "--no-stream")
    assert "warning" not in quiet.err and f"    warning: {SAID}" in quiet.out


RAISES = """
    from proctor.evals import define_eval
    async def test(t):
        t.check("def f():\\n    return 1\\n", "def f():\\n    return 2\\n")
        raise ValueError("first\\nsecond")
    eval = define_eval(plan={"turns": [{"say": "hi"}]}, test=test)
"""


def test_a_multi_line_error_is_one_line_in_progress_and_summary(
    proctor: Run, tmp_path: Path
) -> None:
    """An error whose message has a line break printed its second line on a line of its own,
    in the progress and in the summary's `error:` line; `proctor run` keeps a trial to one."""
    root = project(tmp_path, {"kb.eval.py": RAISES})
    result = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "out"))
    assert result.code == 1, result.err  # its check failed before it raised
    progress = [line for line in result.err.splitlines() if line.startswith("! kb (")]
    assert len(progress) == 1, result.err
    assert progress[0].endswith(
        "s)  eval-error: ValueError: first second (at " + str(root / "evals" / "kb.eval.py") + ":5)"
    ), result.err
    assert not any(line.startswith("second") for line in result.err.splitlines()), result.err
    errors = [line for line in result.out.splitlines() if line.startswith("    error: ")]
    assert errors == [
        f"    error: ValueError: first second (at {root / 'evals' / 'kb.eval.py'}:5)"
    ], result.out
    assert not any(line.startswith("second") for line in result.out.splitlines()), result.out
    # Spaces within a line are kept: a repr of code keeps its indentation.
    assert "'def f():\\n    return 1\\n' != 'def f():\\n    return 2\\n'" in result.out
    # The records keep the full text.
    full = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "o2"), "--json")
    assert "first\nsecond" in json.loads(full.out)["results"][0]["error"]


LOGS = """
    from proctor.evals import define_eval
    PLAN = {"turns": [{"say": "line one\\nline two \\x1b[31mred"}]}
    async def test(t):
        t.log("first\\nsecond \\x1b[2J")
        (await t.send("go")).expect_ok()
    eval = define_eval(plan=PLAN, test=test)
"""


def test_verbose_logs_and_reply_are_a_line_each_their_controls_shown(
    proctor: Run, tmp_path: Path
) -> None:
    """`--verbose` printed a `t.log` line and the reply's snippet as written: a line break
    started a line of its own, and a terminal's escape sequence in the agent's reply was
    obeyed by the terminal."""
    root = project(tmp_path, {"logs.eval.py": LOGS})
    result = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "out"), "--verbose")
    assert result.code == 0, result.err
    assert "\x1b" not in result.out and "\x1b" not in result.err
    lines = result.out.splitlines()
    assert "    log: first second \\x1b[2J" in lines, result.out
    assert "    reply: line one line two \\x1b[31mred" in lines, result.out
    # The records keep them as logged and said.
    data = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "o2"), "--json")
    case = json.loads(data.out)["results"][0]
    assert case["logs"] == ["first\nsecond \x1b[2J"]
    assert case["finalText"] == "line one\nline two \x1b[31mred"


def test_a_streamed_log_line_is_one_line_its_controls_shown(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from proctor.evals.conversation import _stream_log

    _stream_log("a/b", "first\nsecond \x1b[2J")
    assert capsys.readouterr().err == "  [a/b] first second \\x1b[2J\n"


def test_a_timeout_is_a_failure_in_the_summary_not_an_error(proctor: Run, tmp_path: Path) -> None:
    """A case still running at its timeout failed (exit 1, counted in `failed`): its summary
    line says why it failed, not `error:`, which the error statuses (exit 3) have."""
    root = project(tmp_path, {"slow.eval.py": """
        import asyncio
        from proctor.evals import define_eval
        async def test(t):
            await t.send("hi")
            await asyncio.sleep(30)
        eval = define_eval(plan={"turns": [{"say": "hi"}]}, test=test, timeout_ms=1500)
    """})  # fmt: skip
    result = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "out"))
    assert result.code == 1, result.err
    lines = result.out.splitlines()
    assert lines[0].startswith("✗ slow  timeout  "), result.out
    assert lines[1].startswith("    why: the eval did not finish within 1.5s"), result.out
    assert "0 passed, 1 failed, 0 skipped, 0 errored" in result.out
