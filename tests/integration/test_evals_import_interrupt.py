"""A ``KeyboardInterrupt`` while an eval file is imported: raised by the file itself, it is the
file's error (one sentence naming it and the line, exit 2); a real Ctrl-C (or SIGTERM) then
still stops proctor (exit 130)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Run
from tests.integration.test_evals_cli import CONFIG, project

BODY = "async def test(t):\n    await t.send('hi')\neval = define_eval(test=test)\n"


@pytest.mark.parametrize("args", [(), ("--list",), ("--list", "--json")])
def test_a_keyboard_interrupt_the_file_raises_is_its_error(
    proctor: Run, tmp_path: Path, args: tuple[str, ...]
) -> None:
    """It was taken for a Ctrl-C: `proctor: error: interrupted`, exit 130, naming nothing."""
    root = project(
        tmp_path,
        {"a.eval.py": f"from proctor.evals import define_eval\n\nraise KeyboardInterrupt\n{BODY}"},
    )
    result = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "out"), *args)
    assert result.code == 2, result.err
    said = (
        f"{root / 'evals' / 'a.eval.py'}:3: cannot be imported (KeyboardInterrupt, raised by "
        "the file itself: no Ctrl-C or stop signal came)"
    )
    assert said in result.err and "interrupted" not in result.err, result.err
    assert not (tmp_path / "out").exists()


def test_one_a_helper_or_the_config_raises_names_the_line_that_led_there(
    proctor: Run, tmp_path: Path
) -> None:
    root = project(
        tmp_path,
        {"a.eval.py": f"from proctor.evals import define_eval\nimport stopper\n{BODY}"},
    )
    (root / "stopper.py").write_text("raise KeyboardInterrupt('no more')\n")
    result = proctor("eval", "--dir", str(root), "--list")
    assert result.code == 2, result.err
    assert "a.eval.py:2: cannot be imported (KeyboardInterrupt: no more, raised" in result.err
    (root / "stopper.py").write_text("\n")
    (root / "evals" / "evals.config.py").write_text(f"{CONFIG}raise KeyboardInterrupt\n")
    result = proctor("eval", "--dir", str(root), "--no-stream")
    assert result.code == 2, result.err
    assert "evals.config.py:3: cannot be imported (KeyboardInterrupt, raised" in result.err


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_ctrl_c_while_a_file_is_imported_still_stops_proctor(
    tmp_path: Path, stop: signal.Signals
) -> None:
    """The file's line runs when the stop lands (its KeyboardInterrupt is raised there), and
    it is the user's all the same: exit 130, `interrupted`."""
    body = "import time\nprint('importing', flush=True)\ntime.sleep(60)\n"
    root = project(tmp_path, {"a.eval.py": f"from proctor.evals import define_eval\n{body}{BODY}"})
    process = subprocess.Popen(
        [sys.executable, "-m", "proctor", "eval", "--dir", str(root), "--out", str(tmp_path / "o")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "HOME": str(tmp_path / "home")},
        # Ctrl-C's own handling, whatever this test's process does with SIGINT.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert process.stderr is not None
        assert process.stderr.readline() == "importing\n"
        process.send_signal(stop)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130, err
    assert "proctor: error: interrupted" in err and "cannot be imported" not in err, err
