"""write_text_atomic: an error while writing names the file being written."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from proctor.models import io


def test_a_full_disk_while_writing_names_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")  # as a write says it: no name

    monkeypatch.setattr(os, "fsync", full)
    target = tmp_path / "suite.json"
    with pytest.raises(OSError) as info:
        io.write_text_atomic(target, "{}", durable=True)
    assert info.value.errno == errno.ENOSPC and info.value.filename == str(target)
    assert list(tmp_path.iterdir()) == []  # no temp file left behind
