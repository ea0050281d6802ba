"""A check's outcome against real bash: where proctor says a line's status is its check's
(not masked), bash must exit 0 when the check passes and not 0 when it fails; each line
proctor masks here is one where bash shows the status is not the check's (the control).

Each line runs as Claude Code runs a command (inside an ``eval`` that is not the last of an
``&&`` list), with a ``pytest`` on the PATH that passes or fails as told."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from proctor.metrics.config import check_commands
from proctor.models.process import MetricsConfig

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="needs bash")

KNOWN = [
    "pytest || { exit $?; }; echo done",
    'bash -c "pytest -q || exit \\$?; echo done"',
    "bash -c 'pytest -q || exit $?; echo done'",
    "bash <<EOF\ncd app\npytest -q || exit \\$?\necho done\nEOF",
    "bash <<'EOF'\ncd app\npytest -q || exit $?\necho done\nEOF",
    "pytest || exit 1 && echo ok; echo done",
    "pytest || { echo failed; exit 1; }; echo done",
    "if true; then pytest || exit 1; fi; echo done",
    "(cd app; pytest -q;)",
    "(\n cd app\n pytest\n) && echo ok",
    "time pytest -q",
    "set -o pipefail; pytest -q 2>&1 | tail -5",
    "set -o pipefail; pytest 2>&1 | tee log | tail -5",
    "sh -c 'cd app && pytest -q'",
    "pytest -q && echo ok || exit 1; echo done",  # a failure skips the && commands
    "pytest -q && echo PASS || { echo FAIL; exit 1; }; echo done",
    'pytest -q || (echo "tests failed"; exit 1)',  # the subshell's status is the line's
    "pytest > log 2>&1 || (tail -20 log; exit 1)",
    "pytest || (exit $?)",
    "{ cd app; pytest; } > log 2>&1",
    "pytest -q; exit $?",  # the exit takes the check's status
    "cd app; pytest -q\nexit",
    "(cd app && pytest); exit $?",
    "{ pytest; exit $?; }",
    "bash -c 'pytest -q; exit $?'",
]
MASKED = [
    "pytest || { echo failed; exit $?; }",  # $? is the echo's
    "pytest || { echo failed; exit; }",
    'bash -c "pytest -q || exit $?; echo done"',  # the outer shell expanded $? (to 0)
    'bash <<< "pytest -q || exit $?"',
    "bash <<EOF\ncd app\npytest -q || exit $?\necho done\nEOF",
    "pytest || exit 1 && echo ok &",  # the whole and-or list runs in the background
    "if true; then pytest || exit 1; fi | tail -3",  # a piped if runs in a subshell
    "if true; then pytest || exit 1; fi &",
    "(cd app; pytest -q;) &",
    "(\n cd app\n pytest\n) &",
    "time ! pytest -q",
    'set -o pipefail; pytest -q 2>&1 | grep -E "FAILED|ERROR"',  # grep finds nothing: 1
    "pytest -q && echo ok || echo failed",
    "pytest || (echo failed; exit 1); echo done",
    "pytest || (echo failed; exit $?)",
    "(pytest || echo failed; exit 1)",
    "pytest; echo done; exit $?",  # the echo's status
    "pytest; exit $? | cat",  # a piped exit ends its own subshell
    "pytest; exit $? &",
    "pytest; exit 0",
]
SH = ["sh -c 'cd app && pytest -q &>/dev/null'", "sh -c 'set -o pipefail; pytest | tail -3'"]
"""Lines whose status depends on what ``sh`` is (dash on Debian): masked everywhere."""


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bash")
    (root / "bin").mkdir()
    (root / "app").mkdir()
    fake = root / "bin" / "pytest"
    fake.write_text('#!/bin/sh\necho "1 test ran"\nexit "${CHECK_FAILS:-0}"\n')
    fake.chmod(0o755)
    return root


def status(line: str, fails: bool, place: Path) -> int:
    env = {
        "PATH": f"{place / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "CHECK_FAILS": "1" if fails else "0",
        "LINE": line,
    }
    wrapped = 'eval "$LINE" < /dev/null && pwd -P >| /dev/null'
    done = subprocess.run(
        [str(BASH), "-c", wrapped], cwd=place, env=env, capture_output=True, timeout=30
    )
    return done.returncode


def masked(line: str) -> bool:
    (check,) = check_commands(MetricsConfig(), line)
    return check.masked


@pytest.mark.parametrize("line", KNOWN)
def test_a_known_outcome_is_what_bash_exits_with(line: str, place: Path) -> None:
    assert masked(line) is False
    assert status(line, False, place) == 0
    assert status(line, True, place) != 0


@pytest.mark.parametrize("line", MASKED)
def test_a_masked_check_is_one_whose_status_bash_does_not_follow(line: str, place: Path) -> None:
    assert masked(line) is True
    told = (status(line, False, place) == 0, status(line, True, place) != 0)
    assert told != (True, True)  # the control: read as known, this line would mislead


@pytest.mark.parametrize("line", SH)
def test_a_script_sh_reads_otherwise_where_it_is_dash_is_masked(line: str) -> None:
    assert masked(line) is True
