"""Reading a file's first bytes never blocks on a named pipe, and names what is not a file."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from proctor.util.files import read_head


def test_the_first_bytes_of_a_file_or_all_of_a_short_one(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"0123456789")
    assert read_head(path, 4) == b"0123"
    assert read_head(str(path), 100) == b"0123456789"


def test_a_named_pipe_or_a_folder_is_an_error_at_once(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    errors: list[BaseException] = []

    def read() -> None:
        try:
            read_head(pipe, 10)
        except OSError as exc:
            errors.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(10)
    assert not reader.is_alive(), "reading a named pipe blocked"
    assert len(errors) == 1 and "not a regular file" in str(errors[0])
    with pytest.raises(IsADirectoryError):
        read_head(tmp_path, 10)
