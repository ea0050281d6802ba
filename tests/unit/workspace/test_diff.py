from proctor.workspace.diff import changed_paths, unified_diff


def test_diff_shows_changes_additions_and_deletions() -> None:
    before = {"a.py": b"x = 1\n", "gone.txt": b"bye\n", "same": b"s"}
    after = {"a.py": b"x = 2\n", "new.txt": b"hi\n", "same": b"s"}
    diff = unified_diff(before, after)
    assert "-x = 1\n+x = 2\n" in diff
    assert "+++ b/new.txt" in diff and "new file" in diff
    assert "--- a/gone.txt" in diff and "deleted file" in diff
    assert "same" not in diff
    assert changed_paths(before, after) == ["a.py", "gone.txt", "new.txt"]


def test_binary_files_are_named_not_shown() -> None:
    diff = unified_diff({"b.bin": b"\0\1"}, {"b.bin": b"\0\2"})
    assert "Binary files a/b.bin and b/b.bin differ" in diff


def test_identical_snapshots_give_an_empty_diff() -> None:
    assert unified_diff({"a": b"1"}, {"a": b"1"}) == ""
