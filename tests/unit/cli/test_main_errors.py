"""How a file-system error the user cannot work around is named."""

from __future__ import annotations

import errno

from proctor.cli.main import _written_path


def test_the_file_named_is_the_one_being_written_not_its_temporary_copy() -> None:
    made = OSError(errno.EACCES, "Permission denied", "/r/run-1/.junit.xml.a1b2c3d4.tmp")
    assert _written_path(made) == "/r/run-1/junit.xml"
    renamed = OSError(errno.EISDIR, "Is a directory", "/r/.suite.json.zzzzzzzz.tmp", None, "/r/s")
    assert _written_path(renamed) == "/r/s"
    plain = OSError(errno.ENOSPC, "No space left on device", "/r/trial.json")
    assert _written_path(plain) == "/r/trial.json"
    assert _written_path(OSError(errno.ENOSPC, "No space left on device")) is None
