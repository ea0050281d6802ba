"""The run's scratch folder is removed as a whole when its trials are over, links in it
removed and never followed."""

from __future__ import annotations

import stat
import tempfile
from pathlib import Path

import pytest

from proctor.execute.executor import RunOutcome, _wind_up
from tests.conftest import refuse_unlink


def test_the_runs_scratch_folder_is_removed_without_following_a_link_out_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A link a trial left in a read-only folder of the scratch (its worker killed before it
    removed its own) cannot be unlinked by a user (simulated here: the tests may run as
    root); ``TemporaryDirectory.cleanup`` alone then ran ``chmod 0o700`` through it, on the
    file outside it leads to (Python before 3.11.8 and 3.12.2)."""
    outside = tmp_path / "key"
    outside.write_text("secret")
    outside.chmod(0o400)
    scratch = tempfile.TemporaryDirectory(dir=tmp_path)
    folder = Path(scratch.name) / "0" / "home" / "ro"
    folder.mkdir(parents=True)
    (folder / "key").symlink_to(outside)
    refused = refuse_unlink(monkeypatch, "key")  # the first try, as a user's would be
    _wind_up(scratch, RunOutcome(), [])
    assert refused and not Path(scratch.name).exists()
    assert stat.S_IMODE(outside.stat().st_mode) == 0o400
    assert outside.read_text() == "secret"


def test_a_link_remove_tree_cannot_remove_is_left_not_followed_by_cleanup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A link no try can unlink (in a folder of another user's): the folder is left as it is,
    and neither ``cleanup`` nor its finalizer reaches through the link."""
    from proctor.util.files import remove_temporary

    outside = tmp_path / "key"
    outside.write_text("secret")
    outside.chmod(0o400)
    scratch = tempfile.TemporaryDirectory(dir=tmp_path)
    folder = Path(scratch.name) / "ro"
    folder.mkdir()
    (folder / "key").symlink_to(outside)
    refuse_unlink(monkeypatch, "key", every=True)
    remove_temporary(scratch)
    del scratch  # its finalizer would run here
    assert stat.S_IMODE(outside.stat().st_mode) == 0o400
