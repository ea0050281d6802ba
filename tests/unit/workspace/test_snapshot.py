"""The workspace snapshot keeps sizes and times, not contents: a file still as the fixture has
it is read back from the fixture, others are copied aside; only changed files are read."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from proctor.evaluators.gates.patches import parse_unified_diff
from proctor.workspace import diff as diff_module
from proctor.workspace.diff import take_snapshot, workspace_diff
from proctor.workspace.fixture import materialise_fixture

OLD = 1_600_000_000_000_000_000  # a fixture file's time, long before any snapshot


def count_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the files the diff reads whole, from now on."""
    read: list[str] = []
    real_read = diff_module.Path.read_bytes

    def counting(self: Path) -> bytes:
        read.append(self.name)
        return real_read(self)

    monkeypatch.setattr(diff_module.Path, "read_bytes", counting)
    real_own = diff_module._read_own

    def counting_own(path: Path, limit: int) -> bytes:  # the workspace's side
        read.append(path.name)
        return real_own(path, limit)

    monkeypatch.setattr(diff_module, "_read_own", counting_own)
    return read


def fixture(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    for rel, text in {"pkg/a.py": "x = 1\n", "b.txt": "keep\n", "gone.txt": "bye\n"}.items():
        (src / rel).write_text(text)
        os.utime(src / rel, ns=(OLD, OLD))
    return src


def test_only_changed_files_are_read_and_pristine_ones_come_from_the_fixture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = fixture(tmp_path)
    ws = tmp_path / "ws"
    materialise_fixture(src, "dir", ws)
    (ws / "setup.txt").write_text("written by setup\n")  # after the copy: kept aside
    before = take_snapshot(ws, src, tmp_path / "kept")
    assert before.kept_paths == {"setup.txt"}
    assert sorted(p.name for p in (tmp_path / "kept").iterdir()) == ["setup.txt"]
    (ws / "pkg" / "a.py").write_text("x = 2\n")  # same size, new time
    (ws / "gone.txt").unlink()
    (ws / "new.txt").write_text("hi\n")
    (ws / "setup.txt").write_text("changed by the agent\n")
    read = count_reads(monkeypatch)
    diff = workspace_diff(before, ws)
    assert "-x = 1\n+x = 2\n" in diff
    assert "deleted file" in diff and "--- a/gone.txt" in diff
    assert "+++ b/new.txt" in diff
    assert "-written by setup\n+changed by the agent\n" in diff
    assert "b.txt" not in diff and "b.txt" not in read  # untouched: never read


def test_a_touched_but_unchanged_file_is_no_change(tmp_path: Path) -> None:
    src = fixture(tmp_path)
    ws = tmp_path / "ws"
    materialise_fixture(src, "dir", ws)
    before = take_snapshot(ws, src, tmp_path / "kept")
    os.utime(ws / "b.txt")
    assert workspace_diff(before, ws) == ""


def test_a_file_changed_just_before_the_snapshot_is_compared_by_content(tmp_path: Path) -> None:
    """Same size, and a time the file system may not tell apart: the content decides."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "fresh.txt").write_text("aaaa\n")
    before = take_snapshot(ws, None, tmp_path / "kept")
    stamp = os.stat(ws / "fresh.txt").st_mtime_ns
    (ws / "fresh.txt").write_text("bbbb\n")
    os.utime(ws / "fresh.txt", ns=(stamp, stamp))  # the same size and time as before
    assert "-aaaa\n+bbbb\n" in workspace_diff(before, ws)


def test_control_a_snapshot_that_trusts_the_fixture_for_setup_files_is_wrong(
    tmp_path: Path,
) -> None:
    src = fixture(tmp_path)
    ws = tmp_path / "ws"
    materialise_fixture(src, "dir", ws)
    (ws / "b.txt").write_text("setup!\n")
    before = take_snapshot(ws, src, tmp_path / "kept")
    before.kept_paths.discard("b.txt")  # as if setup's change had been taken for the fixture
    (ws / "b.txt").write_text("agent\n")
    diff = workspace_diff(before, ws)
    assert "-setup!\n" not in diff  # what setup wrote is lost without the copy kept aside
    # The fixture's b.txt is not what the snapshot saw: no false "-keep", but no before either.
    assert "-keep\n" not in diff and "Before unknown: the fixture's b.txt" in diff


def test_the_copy_keeps_times_and_symlinks_and_never_links_to_the_fixture(tmp_path: Path) -> None:
    src = fixture(tmp_path)
    (src / "link").symlink_to("b.txt")
    ws = tmp_path / "ws"
    materialise_fixture(src, "dir", ws)
    assert os.stat(ws / "b.txt").st_mtime_ns == OLD
    assert os.readlink(ws / "link") == "b.txt"
    assert os.stat(ws / "b.txt").st_ino != os.stat(src / "b.txt").st_ino  # not a hard link
    (ws / "b.txt").write_text("changed\n")
    assert (src / "b.txt").read_text() == "keep\n"


def test_files_kept_aside_are_compared_in_chunks_and_only_changed_ones_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fixture written moments before the trial is kept aside whole (its times cannot be
    trusted); after the trial the unchanged copies must not all be held in memory."""
    src = tmp_path / "src"
    src.mkdir()
    for i in range(50):
        (src / f"f{i}.txt").write_text(f"line {i}\n" * 100)
    ws = tmp_path / "ws"
    stats = materialise_fixture(src, "dir", ws)
    assert stats is not None and len(stats) == 50
    before = take_snapshot(ws, src, tmp_path / "kept", stats)
    assert len(before.kept_paths) == 50  # every time is racy
    (ws / "f7.txt").write_text("line 7\n" * 99 + "changed\n")
    read = count_reads(monkeypatch)
    diff = workspace_diff(before, ws)
    assert "-line 7\n+changed\n" in diff and diff.count("diff --git") == 1
    assert sorted(read) == ["f7.txt", "f7.txt"]  # old and new of the changed file only


def test_the_fixture_scan_matches_a_fresh_scan_and_skips_caches(tmp_path: Path) -> None:
    src = fixture(tmp_path)
    (src / "__pycache__").mkdir()
    (src / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    (src / "pkg" / "b.pyc").write_bytes(b"\0")
    (src / "link").symlink_to("b.txt")
    stats = materialise_fixture(src, "dir", tmp_path / "ws")
    assert stats == diff_module.scan(tmp_path / "ws") == diff_module.scan(src)
    assert sorted(stats) == ["b.txt", "gone.txt", "pkg/a.py"]


def test_a_fixture_edited_during_the_trial_gives_no_false_before(tmp_path: Path) -> None:
    """The content the agent found is read back from the fixture; once someone edits the
    fixture, that content is gone, and the diff says so instead of showing their edit."""
    src = fixture(tmp_path)
    ws = tmp_path / "ws"
    materialise_fixture(src, "dir", ws)
    before = take_snapshot(ws, src, tmp_path / "kept")
    (ws / "pkg" / "a.py").write_text("x = 2\n")  # the agent's edit
    (ws / "b.txt").write_text("agent\n")
    (src / "pkg" / "a.py").write_text("x = 99  # the user's edit, meanwhile\n")
    diff = workspace_diff(before, ws)
    assert "Before unknown: the fixture's pkg/a.py changed during the trial" in diff
    assert "x = 99" not in diff  # never shown as what the agent found
    assert "-keep\n+agent\n" in diff  # a file the user left alone: its diff as always


def test_control_an_untouched_fixture_gives_the_usual_diff(tmp_path: Path) -> None:
    src = fixture(tmp_path)
    ws = tmp_path / "ws"
    materialise_fixture(src, "dir", ws)
    before = take_snapshot(ws, src, tmp_path / "kept")
    (ws / "pkg" / "a.py").write_text("x = 2\n")
    diff = workspace_diff(before, ws)
    assert "-x = 1\n+x = 2\n" in diff and "Before unknown" not in diff


def test_a_large_changed_file_is_named_as_binary_without_being_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = fixture(tmp_path)
    big = diff_module.MAX_TEXT_BYTES + 1
    with open(src / "data.bin", "wb") as f:  # sparse: no disk, but reading it costs its size
        f.truncate(big)
    os.utime(src / "data.bin", ns=(OLD, OLD))
    ws = tmp_path / "ws"
    materialise_fixture(src, "dir", ws)
    before = take_snapshot(ws, src, tmp_path / "kept")
    with open(ws / "data.bin", "r+b") as f:
        f.seek(big // 2)
        f.write(b"x")
    with open(ws / "new.bin", "wb") as f:
        f.truncate(big)
    (ws / "b.txt").unlink()
    read = count_reads(monkeypatch)
    diff = workspace_diff(before, ws)
    assert diff == (
        "diff --git a/b.txt b/b.txt\ndeleted file\n--- a/b.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n"
        "-keep\n"
        "diff --git a/data.bin b/data.bin\nBinary files a/data.bin and b/data.bin differ\n"
        "diff --git a/new.bin b/new.bin\nnew file\nBinary files /dev/null and b/new.bin differ\n"
    )
    assert "data.bin" not in read and "new.bin" not in read


def test_control_the_same_change_read_whole_gives_the_same_lines() -> None:
    big = diff_module.MAX_TEXT_BYTES + 1
    old, new = bytes(big), bytes(big // 2) + b"x" + bytes(big - big // 2 - 1)
    diff = diff_module.unified_diff({"data.bin": old}, {"data.bin": new, "new.bin": bytes(big)})
    assert diff == (
        "diff --git a/data.bin b/data.bin\nBinary files a/data.bin and b/data.bin differ\n"
        "diff --git a/new.bin b/new.bin\nnew file\nBinary files /dev/null and b/new.bin differ\n"
    )


def test_a_folder_nested_past_the_path_limit_is_named_not_left_out(tmp_path: Path) -> None:
    src = fixture(tmp_path)
    ws = tmp_path / "ws"
    materialise_fixture(src, "dir", ws)
    before = take_snapshot(ws, src, tmp_path / "kept")
    fd = os.open(ws, os.O_RDONLY)
    for _ in range(20):  # past PATH_MAX (4096 bytes), one step at a time as an agent can
        os.mkdir("d" * 250, dir_fd=fd)
        inner = os.open("d" * 250, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(os.open("hidden.py", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd))
    os.close(fd)
    diff = workspace_diff(before, ws)
    (said,) = [line for line in diff.splitlines() if line.startswith("Not compared:")]
    assert said.endswith("could not be read (File name too long)")
    assert said.count("d" * 250) >= 15  # the first folder the system could not open


def test_the_files_of_a_folder_that_cannot_be_read_are_not_shown_deleted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = fixture(tmp_path)
    ws = tmp_path / "ws"
    materialise_fixture(src, "dir", ws)
    before = take_snapshot(ws, src, tmp_path / "kept")
    real_scandir = os.scandir

    def locked(path: object) -> object:  # chmod 000 pkg, as a user who is not root sees it
        if str(path) == str(ws / "pkg"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(diff_module.os, "scandir", locked)
    diff = workspace_diff(before, ws)
    assert "deleted file" not in diff and "a.py" not in diff
    assert "Not compared: the folder pkg could not be read (Permission denied)" in diff


def test_a_symlink_the_agent_adds_removes_or_points_elsewhere_is_in_the_diff(
    tmp_path: Path,
) -> None:
    src = fixture(tmp_path)
    (src / "old-link").symlink_to("b.txt")
    (src / "moved-link").symlink_to("b.txt")
    ws = tmp_path / "ws"
    materialise_fixture(src, "dir", ws)
    before = take_snapshot(ws, src, tmp_path / "kept")
    (ws / "conftest.py").symlink_to("/elsewhere/conftest.py")  # planted, never followed
    (ws / "old-link").unlink()
    (ws / "moved-link").unlink()
    (ws / "moved-link").symlink_to("pkg/a.py")
    diff = workspace_diff(before, ws)
    assert (
        "diff --git a/conftest.py b/conftest.py\nnew file mode 120000\n--- /dev/null\n"
        "+++ b/conftest.py\n@@ -0,0 +1 @@\n+/elsewhere/conftest.py\n"
        "\\ No newline at end of file\n"
    ) in diff
    assert "-b.txt\n\\ No newline at end of file\n+pkg/a.py\n" in diff
    kinds = {c.path: c.kind for c in parse_unified_diff(diff)}
    assert kinds == {"conftest.py": "added", "moved-link": "modified", "old-link": "deleted"}


def test_control_untouched_symlinks_are_not_in_the_diff(tmp_path: Path) -> None:
    src = fixture(tmp_path)
    (src / "link").symlink_to("b.txt")
    ws = tmp_path / "ws"
    materialise_fixture(src, "dir", ws)
    before = take_snapshot(ws, src, tmp_path / "kept")
    assert workspace_diff(before, ws) == ""


def _swapped_after_listing(monkeypatch: pytest.MonkeyPatch, swap: Callable[[], None]) -> None:
    """The agent (still running while the diff so far is made) swaps a file between the
    listing of the workspace and the reads of the changed files."""
    real_scan = diff_module.scan

    def scan_then_swap(*args: Any, **kwargs: Any) -> Any:
        listed = real_scan(*args, **kwargs)
        swap()
        return listed

    monkeypatch.setattr(diff_module, "scan", scan_then_swap)


def test_a_file_swapped_for_a_named_pipe_after_listing_is_not_waited_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its read blocked until a writer came: the live diff's follower hung for good, and the
    trial with it, to the overrun kill."""
    src = fixture(tmp_path)
    ws = tmp_path / "ws"
    materialise_fixture(src, "dir", ws)
    before = take_snapshot(ws, src, tmp_path / "kept")
    (ws / "b.txt").write_text("changed\n")
    (ws / "new.txt").write_text("new\n")

    def to_pipes() -> None:
        for name in ("b.txt", "new.txt"):
            (ws / name).unlink()
            os.mkfifo(ws / name)

    _swapped_after_listing(monkeypatch, to_pipes)
    made: list[str] = []
    worker = threading.Thread(target=lambda: made.append(workspace_diff(before, ws)), daemon=True)
    worker.start()
    worker.join(30)
    if worker.is_alive():  # blocked on a pipe: writers that close at once free it
        for name in ("b.txt", "new.txt"):
            os.close(os.open(ws / name, os.O_WRONLY | os.O_NONBLOCK))
        worker.join()
        pytest.fail("the diff waited on a named pipe")
    (diff,) = made
    assert "+changed" not in diff and "+new" not in diff


def test_a_file_swapped_for_a_link_after_listing_is_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file it led to, outside the workspace, was put in workspace.diff."""
    src = fixture(tmp_path)
    ws = tmp_path / "ws"
    materialise_fixture(src, "dir", ws)
    before = take_snapshot(ws, src, tmp_path / "kept")
    secret = tmp_path / "outside.txt"
    secret.write_text("OUTSIDE THE WORKSPACE\n")
    (ws / "b.txt").write_text("changed\n")

    def to_link() -> None:
        (ws / "b.txt").unlink()
        (ws / "b.txt").symlink_to(secret)

    _swapped_after_listing(monkeypatch, to_link)
    assert "OUTSIDE" not in workspace_diff(before, ws)


def test_a_file_that_grew_past_the_limit_after_listing_is_named_as_binary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = fixture(tmp_path)
    ws = tmp_path / "ws"
    materialise_fixture(src, "dir", ws)
    before = take_snapshot(ws, src, tmp_path / "kept")
    (ws / "b.txt").write_text("changed\n")

    def grow() -> None:
        with open(ws / "b.txt", "ab") as f:
            f.write(b"x" * (diff_module.MAX_TEXT_BYTES + 10))

    _swapped_after_listing(monkeypatch, grow)
    assert workspace_diff(before, ws) == (
        "diff --git a/b.txt b/b.txt\nBinary files a/b.txt and b/b.txt differ\n"
    )
