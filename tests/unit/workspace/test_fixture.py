import os
import stat
import zipfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
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


def _entries(root: Path) -> dict[str, tuple[str, int, int, str]]:
    """Every entry under root: kind, mode, time (files and folders) and content or target."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            st = os.lstat(path)
            if path.is_symlink():
                out[rel] = ("link", 0, 0, os.readlink(path))
            elif path.is_dir():
                out[rel] = ("dir", st.st_mode, st.st_mtime_ns, "")
            else:
                out[rel] = ("file", st.st_mode, st.st_mtime_ns, path.read_text())
    return out


def big_fixture(root: Path) -> Path:
    src = root / "src"
    heavy = src / "heavy" / "deeper"  # one folder holds most of it: it must be split
    heavy.mkdir(parents=True)
    for i in range(40):
        (heavy / f"m{i}.py").write_text(f"x = {i}\n" * (i + 1))
    (src / "light").mkdir()
    (src / "light" / "-dash name.txt").write_text("odd name\n")
    (src / "empty").mkdir()
    (src / "top.txt").write_text("top\n")
    (src / "run.sh").write_text("#!/bin/sh\n")
    (src / "run.sh").chmod(0o755)
    (src / "link").symlink_to("heavy/deeper/m1.py")
    stamp = 1_600_000_000_000_000_000
    for dirpath, dirnames, filenames in os.walk(src, topdown=False):
        for name in dirnames + filenames:
            os.utime(Path(dirpath) / name, ns=(stamp, stamp), follow_symlinks=False)
    os.utime(src, ns=(stamp, stamp))
    return src


def split_copies(monkeypatch: pytest.MonkeyPatch, cpus: int = 2, jobs: int = 4) -> None:
    """Copy even a small fixture in parts, on ``cpus`` processors."""
    monkeypatch.setattr(fixture, "PARALLEL_FROM_FILES", 10)
    monkeypatch.setattr(fixture, "MAX_COPY_JOBS", jobs)
    monkeypatch.setattr(fixture.os, "cpu_count", lambda: cpus)


def wrap_cp(monkeypatch: pytest.MonkeyPatch, change: Callable[[list[str]], list[str]]) -> None:
    """Every command the copy runs goes through ``change`` first (which may raise)."""
    real_run = fixture.subprocess.run

    def run(argv: list[str], **kwargs: object) -> object:
        return real_run(change(argv), **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(fixture.subprocess, "run", run)


@pytest.mark.parametrize("jobs", [2, 4])
def test_a_large_fixture_copied_in_parts_is_the_same_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    src = big_fixture(tmp_path)
    split_copies(monkeypatch, cpus=8, jobs=jobs)
    calls: list[list[str]] = []
    wrap_cp(monkeypatch, lambda argv: calls.append(argv) or argv)
    stats = materialise_fixture(src, "dir", tmp_path / "ws")
    assert len(calls) >= 2  # in parts, not one cp of the whole tree
    assert stats is not None and len(stats) == 43
    assert _entries(tmp_path / "ws") == _entries(src)
    assert os.stat(tmp_path / "ws").st_mtime_ns == os.stat(src).st_mtime_ns


def test_a_failed_part_falls_back_to_a_whole_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = big_fixture(tmp_path)
    split_copies(monkeypatch)
    wrap_cp(
        monkeypatch, lambda argv: ["false"] if any(a.endswith("top.txt") for a in argv) else argv
    )
    materialise_fixture(src, "dir", tmp_path / "ws")
    got, want = _entries(tmp_path / "ws"), _entries(src)
    assert got.keys() == want.keys()
    assert all(got[k][3] == want[k][3] for k in want)  # every content and link there


def test_a_zip_fixture_is_extracted_once_per_run_into_a_template(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = _zip(tmp_path / "f.zip", {"repo/a.py": "x = 1\n", "repo/pkg/b.py": "y = 2\n"})
    extracted: list[Path] = []
    real = fixture._extract_zip

    def counting(path: Path, dest: Path) -> None:
        extracted.append(path)
        real(path, dest)

    monkeypatch.setattr(fixture, "_extract_zip", counting)
    templates = tmp_path / "templates"
    with ThreadPoolExecutor(max_workers=4) as pool:  # trials asking at once: one extracts
        made = set(pool.map(lambda _: fixture.zip_template(archive, templates), range(4)))
    assert len(made) == 1 and len(extracted) == 1
    template = made.pop()
    assert sorted(p.relative_to(template).as_posix() for p in template.rglob("*.py")) == [
        "a.py",
        "pkg/b.py",
    ]
    # The entries keep the archive's times: nothing looks freshly written to a snapshot.
    assert abs(os.stat(template / "a.py").st_mtime - os.stat(archive).st_mtime) < 86_400 * 2
    stats = materialise_fixture(template, "dir", tmp_path / "ws")
    assert stats is not None and sorted(stats) == ["a.py", "pkg/b.py"]
    assert not (tmp_path / "ws" / ".proctor-complete").exists()
    # A changed archive is a new template.
    _zip(archive, {"repo/a.py": "x = 3\n"})
    os.utime(archive, ns=(1, 1))
    assert fixture.zip_template(archive, templates) != template and len(extracted) == 2


def test_a_template_left_half_written_is_extracted_again(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "f.zip", {"a.py": "x = 1\n"})
    templates = tmp_path / "templates"
    template = fixture.zip_template(archive, templates)
    (templates / f"{template.name}.complete").unlink()  # as if the extracting trial died
    (template / "a.py").write_text("half\n")
    assert fixture.zip_template(archive, templates) == template
    assert (template / "a.py").read_text() == "x = 1\n"


def test_a_folder_split_into_more_paths_than_one_command_line_holds_is_copied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = tmp_path / "src"
    (src / "flat").mkdir(parents=True)
    for i in range(300):
        (src / "flat" / f"{'n' * 60}{i:04d}.txt").write_text(f"{i}\n")
    split_copies(monkeypatch)
    monkeypatch.setattr(fixture, "_ARGV_BYTES", 2_000)  # a few dozen paths per cp
    calls: list[list[str]] = []
    wrap_cp(monkeypatch, lambda argv: calls.append(argv) or argv)
    materialise_fixture(src, "dir", tmp_path / "ws")
    assert len(calls) > 10
    assert all(sum(len(a) + 1 for a in argv) < 2_000 + 400 for argv in calls)  # plus flags
    assert _entries(tmp_path / "ws") == _entries(src)


def test_a_cp_that_cannot_start_falls_back_instead_of_failing_the_trial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = big_fixture(tmp_path)
    split_copies(monkeypatch)

    def too_long(argv: list[str]) -> list[str]:
        if "--" in argv:  # the parts' command lines
            raise OSError(7, "Argument list too long")
        return argv

    wrap_cp(monkeypatch, too_long)
    materialise_fixture(src, "dir", tmp_path / "ws")
    assert _entries(tmp_path / "ws") == _entries(src)


def test_hard_links_inside_a_large_fixture_stay_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = big_fixture(tmp_path)
    os.link(src / "top.txt", src / "heavy" / "same-as-top.txt")
    split_copies(monkeypatch, cpus=4)
    materialise_fixture(src, "dir", tmp_path / "ws")
    ws = tmp_path / "ws"
    assert os.stat(ws / "top.txt").st_ino == os.stat(ws / "heavy" / "same-as-top.txt").st_ino
    assert os.stat(ws / "top.txt").st_ino != os.stat(src / "top.txt").st_ino  # not the fixture's


def test_an_entry_that_is_both_a_file_and_a_folder_is_refused_up_front(tmp_path: Path) -> None:
    clash = _zip(tmp_path / "clash.zip", {"x": "file", "x/y.txt": "y"})
    with pytest.raises(WorkspaceError, match="entry 'x' is a file, and entry 'x/y.txt' needs"):
        check_zip(clash)
    check_zip(_zip(tmp_path / "fine.zip", {"x/": "", "x/y.txt": "y"}))  # control
