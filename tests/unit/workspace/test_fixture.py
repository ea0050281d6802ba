import os
import stat
import zipfile
from pathlib import Path

import pytest

from proctor.errors import WorkspaceError
from proctor.workspace.fixture import check_zip, materialise_fixture


def _zip(path: Path, entries: dict[str, str], links: dict[str, str] | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in entries.items():
            zf.writestr(name, text)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, target)
    return path


def test_zip_with_single_root_folder_is_unwrapped(tmp_path: Path) -> None:
    z = _zip(tmp_path / "src.zip", {"proj/a.txt": "A", "proj/sub/b.txt": "B"})
    materialise_fixture(z, "zip", tmp_path / "ws")
    assert (tmp_path / "ws" / "a.txt").read_text() == "A"
    assert (tmp_path / "ws" / "sub" / "b.txt").read_text() == "B"


@pytest.mark.parametrize("name", ["../evil.txt", "/abs/evil.txt", "a/../../evil.txt"])
def test_entries_escaping_the_workspace_are_refused(tmp_path: Path, name: str) -> None:
    z = _zip(tmp_path / "src.zip", {name: "x", "ok.txt": "y"})
    with pytest.raises(WorkspaceError, match="outside the workspace"):
        materialise_fixture(z, "zip", tmp_path / "ws")
    assert not (tmp_path / "evil.txt").exists()


def test_symlink_entry_pointing_outside_is_refused(tmp_path: Path) -> None:
    z = _zip(tmp_path / "src.zip", {"a.txt": "x"}, links={"link": "../../etc/passwd"})
    with pytest.raises(WorkspaceError, match="symlink entry 'link' points outside"):
        check_zip(z)


def test_symlink_inside_is_kept(tmp_path: Path) -> None:
    z = _zip(tmp_path / "src.zip", {"a.txt": "x", "b.txt": "y"}, links={"link": "a.txt"})
    materialise_fixture(z, "zip", tmp_path / "ws")
    assert os.readlink(tmp_path / "ws" / "link") == "a.txt"


def test_directory_fixture_with_outside_symlink_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "ok.txt").write_text("ok")
    os.symlink("/etc/passwd", src / "leak")
    with pytest.raises(WorkspaceError, match="symlink points outside the fixture"):
        materialise_fixture(src, "dir", tmp_path / "ws")


def test_not_a_zip(tmp_path: Path) -> None:
    bad = tmp_path / "src.zip"
    bad.write_text("not a zip")
    with pytest.raises(WorkspaceError, match="not a valid zip"):
        check_zip(bad)


def test_no_fixture_gives_an_empty_workspace(tmp_path: Path) -> None:
    materialise_fixture(None, None, tmp_path / "ws")
    assert list((tmp_path / "ws").iterdir()) == []


def test_directory_symlink_chains_escaping_the_workspace_are_refused(tmp_path: Path) -> None:
    z = _zip(tmp_path / "src.zip", {"keep.txt": "k"}, links={"x/y": "..", "x/z": "y/../.."})
    with pytest.raises(WorkspaceError):
        materialise_fixture(z, "zip", tmp_path / "ws")
