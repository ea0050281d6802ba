"""How a file-system error the user cannot work around is named."""

from __future__ import annotations

import errno

import pytest

from proctor.cli.main import _written_path


def test_the_file_named_is_the_one_being_written_not_its_temporary_copy() -> None:
    made = OSError(errno.EACCES, "Permission denied", "/r/run-1/.junit.xml.a1b2c3d4.tmp")
    assert _written_path(made) == "/r/run-1/junit.xml"
    renamed = OSError(errno.EISDIR, "Is a directory", "/r/.suite.json.zzzzzzzz.tmp", None, "/r/s")
    assert _written_path(renamed) == "/r/s"
    plain = OSError(errno.ENOSPC, "No space left on device", "/r/trial.json")
    assert _written_path(plain) == "/r/trial.json"
    assert _written_path(OSError(errno.ENOSPC, "No space left on device")) is None


def test_ctrl_c_while_the_command_is_loading_is_an_interrupt_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.abc
    import sys

    from proctor.cli import entry
    from proctor.exit_codes import ExitCode

    class Interrupted(importlib.abc.MetaPathFinder):
        def find_spec(self, name: str, *args: object) -> None:
            if name == "proctor.cli.main":
                raise KeyboardInterrupt

    monkeypatch.delitem(sys.modules, "proctor.cli.main")
    monkeypatch.setattr(sys, "meta_path", [Interrupted(), *sys.meta_path])
    with pytest.raises(SystemExit) as stopped:
        entry.main(["--version"])
    assert stopped.value.code == entry.INTERRUPTED == ExitCode.INTERRUPTED
    assert capsys.readouterr().err == "proctor: error: interrupted\n"
