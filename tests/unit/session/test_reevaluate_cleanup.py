"""The copy of a kept workspace that a repetition re-evaluates is removed whole afterwards, a
read-only folder of it included, its links removed and never followed."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from proctor.session import reevaluate as module


def test_the_copy_is_removed_without_following_a_link_out_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent left ``ro/key`` (a link to a file outside) in a folder of the workspace it made
    read-only; the copy keeps both. A user other than root cannot unlink it there at first
    (simulated: the tests may run as root): ``shutil.rmtree(ignore_errors=True)`` left it in
    the temporary folder, whose ``TemporaryDirectory.cleanup`` then ran ``chmod 0o700``
    through it (Python before 3.11.8 and 3.12.2)."""
    outside = tmp_path / "key"
    outside.write_text("secret")
    outside.chmod(0o400)
    scratch = tmp_path / "scratch" / "0"

    def copy_and_evaluate(trial: Any, folder: Path) -> str:
        ro = folder / "workspace" / "ro"
        ro.mkdir(parents=True)
        (ro / "key").symlink_to(outside)
        ro.chmod(0o500)
        return "record"

    monkeypatch.setattr(module, "_reevaluate", copy_and_evaluate)
    real_unlink, refused = os.unlink, []

    def unlink(path: Any, *args: Any, **kwargs: Any) -> None:
        if os.fspath(path) == "key" and not refused:
            refused.append(path)
            raise PermissionError(13, "Permission denied", path)
        real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", unlink)
    assert module.reevaluate(None, scratch) == "record"  # type: ignore[arg-type,comparison-overlap]
    assert refused and not os.path.lexists(scratch)
    assert stat.S_IMODE(outside.stat().st_mode) == 0o400
