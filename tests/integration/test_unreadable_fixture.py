"""A folder fixture that cannot be read, whole or in part, is a configuration error that
``validate`` reports and ``run`` refuses before it makes a run folder: every trial's workspace is
a copy of it. (``validate`` said nothing, and ``run`` stopped after making its run folder,
naming a ``src/run.json`` that is not there.) A folder of the case outside the fixture that
cannot be read is digested as such, and the run goes on."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import write_case

UNPRIVILEGED = ("--bounding-set=-dac_override,-dac_read_search,-fowner",
                "--inh-caps=-dac_override,-dac_read_search,-fowner")  # fmt: skip


def as_user(*args: str) -> subprocess.CompletedProcess[str]:
    """``proctor ARGS`` in a process that permissions bind: root without the capabilities
    that override them (``setpriv``), else the user as is."""
    command = [sys.executable, "-m", "proctor", *args]
    if os.geteuid() == 0:
        command = ["setpriv", *UNPRIVILEGED, *command]
    return subprocess.run(command, capture_output=True, text=True, check=False)


@pytest.fixture
def shut() -> Iterator[list[Path]]:
    """Paths listed here are shut (mode 000) by the test and opened again afterwards; skips
    where permissions would not bind (root without ``setpriv``)."""
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        pytest.skip("root without setpriv: permissions would not bind")
    closed: list[Path] = []
    yield closed
    for path in closed:
        path.chmod(0o755)


def close(shut: list[Path], path: Path) -> None:
    path.chmod(0)
    shut.append(path)


def test_a_fixture_folder_that_cannot_be_read_is_refused_by_validate_and_run(
    tmp_path: Path, shut: list[Path]
) -> None:
    case = write_case(tmp_path / "cases", "u", src={"calc.py": "x = 1\n"})
    close(shut, case / "src")
    result = as_user("validate", "--source", str(case))
    assert result.returncode == 2, result.stdout + result.stderr
    said = f"{case / 'src'}: the fixture folder cannot be read (Permission denied)"
    assert said in result.stderr and "Traceback" not in result.stderr
    out = tmp_path / "out"
    result = as_user("run", "--source", str(case), "--out", str(out))
    assert result.returncode == 2 and said in result.stderr, result.stderr
    assert "run.json" not in result.stderr
    assert not out.exists()


def test_a_file_of_the_fixture_that_cannot_be_read_is_named(
    tmp_path: Path, shut: list[Path]
) -> None:
    case = write_case(tmp_path / "cases", "u", src={"calc.py": "x = 1\n", "sub/deep.py": ""})
    close(shut, case / "src" / "sub" / "deep.py")
    result = as_user("validate", "--source", str(case))
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{case / 'src' / 'sub' / 'deep.py'}: cannot be read (Permission denied)" in (
        result.stderr
    )
    assert f"part of the fixture {case / 'src'}" in result.stderr


def test_a_folder_outside_the_fixture_that_cannot_be_read_does_not_stop_the_run(
    tmp_path: Path, shut: list[Path]
) -> None:
    case = write_case(tmp_path / "cases", "u", src={"calc.py": "x = 1\n"})
    (case / "notes").mkdir()
    close(shut, case / "notes")
    result = as_user("run", "--source", str(case), "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
