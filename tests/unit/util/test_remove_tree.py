"""Removing a folder whole when folders in it are read-only: checked as an unprivileged user
(``nobody`` when the tests run as root, since root ignores permissions), with controls."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

MODULE = Path(__file__).parents[3] / "src" / "proctor" / "util" / "files.py"


def _runnable_by_others(path: str) -> bool:
    """Whether a user with no rights of its own may run ``path`` (every folder above it
    searchable by others, the file executable by them)."""
    real = Path(os.path.realpath(path))
    if not real.is_file() or not os.stat(real).st_mode & stat.S_IXOTH:
        return False
    return all(os.stat(folder).st_mode & stat.S_IXOTH for folder in real.parents)


def _python_for_others() -> str:
    for candidate in (sys.executable, "/usr/bin/python3", "/usr/local/bin/python3"):
        if _runnable_by_others(candidate):
            return candidate
    pytest.fail("no Python interpreter here that an unprivileged user may run")


def _planted(root: Path) -> Path:
    """A scratch folder like a Go module cache: read-only folders, read-only files, a folder
    without search permission, and a link to a folder outside that must survive."""
    tree = root / "scratch"
    (tree / "gopath/pkg/mod/example.com/m@v1/sub").mkdir(parents=True)
    (tree / "gopath/pkg/mod/example.com/m@v1/sub/a.go").write_text("package m\n")
    (tree / "locked").mkdir()
    (tree / "locked/inside.txt").write_text("x")
    outside = root / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    (tree / "link").symlink_to(outside, target_is_directory=True)
    (tree / "gopath/pkg/mod/example.com/m@v1/sub/a.go").chmod(0o444)
    for folder in ("gopath/pkg/mod/example.com/m@v1/sub", "gopath/pkg/mod"):
        (tree / folder).chmod(0o555)
    (tree / "locked").chmod(0o000)
    os.chmod(outside, 0o555)
    return tree


def _as_unprivileged(code: str, root: Path) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a Python that cannot ignore permissions (as ``nobody`` under root), with
    proctor's ``files`` module importable as ``files``."""
    shutil.copy(MODULE, root / "files.py")
    kwargs: dict[str, object] = {}
    python = sys.executable
    if os.geteuid() == 0:
        python = _python_for_others()
        for dirpath, dirnames, filenames in os.walk(root):
            for name in [dirpath, *(os.path.join(dirpath, n) for n in dirnames + filenames)]:
                os.lchown(name, 65534, 65534)
        kwargs = {"user": 65534, "group": 65534, "extra_groups": []}
    return subprocess.run(
        [python, "-I", "-c", f"import sys; sys.path.insert(0, {str(root)!r})\n{code}"],
        capture_output=True,
        text=True,
        check=False,
        **kwargs,  # type: ignore[arg-type]
    )


@pytest.fixture
def root() -> Iterator[Path]:
    """A folder directly in the temporary folder, where another user can reach it (pytest's
    own folders are its owner's only)."""
    base = Path(tempfile.mkdtemp(prefix="proctor-remove-"))
    os.chmod(base, 0o755)
    try:
        yield base / "root"
    finally:
        for dirpath, _, _ in os.walk(base):
            os.chmod(dirpath, 0o755)
        shutil.rmtree(base)


def test_a_scratch_folder_with_read_only_folders_is_removed_whole(root: Path) -> None:
    root.mkdir()
    tree = _planted(root)
    code = (
        f"from files import remove_tree\nassert remove_tree({str(tree)!r}), 'something was left'\n"
    )
    done = _as_unprivileged(code, root)
    assert done.returncode == 0, done.stderr
    assert not tree.exists()
    assert (root / "outside" / "keep.txt").read_text() == "keep"  # the link was not followed
    assert stat.S_IMODE(os.stat(root / "outside").st_mode) == 0o555  # nor its target opened


def test_control_rmtree_alone_leaves_them_behind(root: Path) -> None:
    root.mkdir()
    tree = _planted(root)
    code = f"import shutil\nshutil.rmtree({str(tree)!r}, ignore_errors=True)\n"
    done = _as_unprivileged(code, root)
    assert done.returncode == 0, done.stderr
    assert (tree / "gopath/pkg/mod").exists()


def test_strict_raises_what_stays(tmp_path: Path) -> None:
    from proctor.util.files import remove_tree

    assert remove_tree(tmp_path / "missing") is True
    file = tmp_path / "file"
    file.write_text("x")
    with pytest.raises(NotADirectoryError):
        remove_tree(file, strict=True)
