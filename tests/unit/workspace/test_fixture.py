import os
import stat
import zipfile
from pathlib import Path

import pytest

from proctor.errors import WorkspaceError
from proctor.workspace import fixture
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


def _chained_escape_zip(path: Path) -> Path:
    """Each link looks harmless on its own; together ``w`` leads three levels up."""
    links = {"y": ".", "x": "y/..", "z": "x/..", "w": "z/.."}
    with zipfile.ZipFile(path, "w") as zf:
        for name, target in links.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o120777 << 16
            zf.writestr(info, target)
        zf.writestr("w/PWNED_BY_ZIP.txt", "pwned")
    return path


def _tree(root: Path) -> set[Path]:
    return {p.relative_to(root) for p in root.rglob("*")}


def test_chain_of_symlinks_escaping_the_workspace_is_refused(tmp_path: Path) -> None:
    z = _chained_escape_zip(tmp_path / "src.zip")
    dest = tmp_path / "a" / "b" / "ws"
    dest.parent.mkdir(parents=True)
    before = _tree(tmp_path)
    with pytest.raises(WorkspaceError, match="symlink entry 'x' points outside the workspace"):
        check_zip(z)
    with pytest.raises(WorkspaceError, match="outside the workspace"):
        materialise_fixture(z, "zip", dest)
    assert {p for p in _tree(tmp_path) if not p.is_relative_to(dest.relative_to(tmp_path))} == (
        before
    )
    assert not (tmp_path / "PWNED_BY_ZIP.txt").exists()


@pytest.mark.parametrize(
    ("entries", "links", "error"),
    [
        ({"w/PWNED_BY_ZIP.txt": "pwned"}, {}, "symlink entry 'w' cannot be created"),
        ({}, {"w/PWNED_BY_ZIP.txt": "x"}, "entry 'w/PWNED_BY_ZIP.txt' would be written outside"),
    ],
)
def test_extraction_never_writes_outside_even_when_the_archive_check_misses(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    entries: dict[str, str],
    links: dict[str, str],
    error: str,
) -> None:
    """The real-path checks at extraction time hold on their own, without ``check_zip``."""
    monkeypatch.setattr(fixture, "check_zip", lambda path: None)
    chain = {"y": ".", "x": "y/..", "z": "x/..", "w": "z/.."}
    z = _zip(tmp_path / "src.zip", entries, links={**chain, **links})
    dest = tmp_path / "a" / "b" / "ws"
    dest.parent.mkdir(parents=True)
    before = _tree(tmp_path)
    with pytest.raises(WorkspaceError, match=error):
        materialise_fixture(z, "zip", dest)
    assert {p for p in _tree(tmp_path) if not p.is_relative_to(dest.relative_to(tmp_path))} == (
        before
    )
    assert not (tmp_path / "PWNED_BY_ZIP.txt").exists()


@pytest.mark.parametrize(
    "links",
    [
        {"y": ".", "x": "y/.."},
        {"x": "y/..", "y": "."},
        {"sub/y": "..", "sub/x": "y/.."},
        {"a": "b", "b": "/etc"},
    ],
)
def test_links_that_escape_only_through_other_links_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, links: dict[str, str]
) -> None:
    z = _zip(tmp_path / "src.zip", {"keep.txt": "k"}, links=links)
    with pytest.raises(WorkspaceError, match="points outside the workspace"):
        check_zip(z)
    monkeypatch.setattr(fixture, "check_zip", lambda path: None)
    with pytest.raises(WorkspaceError, match="points outside the workspace"):
        materialise_fixture(z, "zip", tmp_path / "ws")


def test_links_through_links_that_stay_inside_are_kept(tmp_path: Path) -> None:
    z = _zip(
        tmp_path / "src.zip",
        {"lib/real.txt": "r", "top.txt": "t"},
        links={"here": ".", "alias": "here/lib", "file": "alias/real.txt", "loop": "loop"},
    )
    check_zip(z)
    materialise_fixture(z, "zip", tmp_path / "ws")
    assert (tmp_path / "ws" / "file").read_text() == "r"


def test_single_root_folder_holding_a_folder_of_its_own_name_is_unwrapped(
    tmp_path: Path,
) -> None:
    z = _zip(
        tmp_path / "src.zip",
        {"mypkg/setup.py": "setup()", "mypkg/mypkg/__init__.py": "X = 1", "mypkg/.hidden": "h"},
    )
    ws = tmp_path / "ws"
    materialise_fixture(z, "zip", ws)
    assert _tree(ws) == {
        Path("setup.py"),
        Path("mypkg"),
        Path("mypkg/__init__.py"),
        Path(".hidden"),
    }
    assert (ws / "mypkg" / "__init__.py").read_text() == "X = 1"
