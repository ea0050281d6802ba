import json
import os
from pathlib import Path

from proctor.models.io import read_record, write_record, write_text_atomic
from proctor.models.trial import EvaluatorResult, TrialRecord
from proctor.workspace.diff import changed_paths, snapshot, unified_diff


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


def _workspace_with_a_non_utf8_name(root: Path) -> Path:
    root.mkdir()
    (root / "ok.txt").write_text("same\n")
    with open(os.path.join(os.fsencode(root), b"bad\xffname"), "wb") as fh:
        fh.write(b"x\n")
    return root


def test_a_file_name_that_is_not_utf8_is_quoted_with_its_bytes_in_octal(tmp_path: Path) -> None:
    ws = _workspace_with_a_non_utf8_name(tmp_path / "ws")
    diff = unified_diff({"ok.txt": b"same\n"}, snapshot(ws))
    assert 'diff --git "a/bad\\377name" "b/bad\\377name"\nnew file\n' in diff  # as git
    assert '+++ "b/bad\\377name"\n@@ -0,0 +1 @@\n+x\n' in diff
    out = tmp_path / "workspace.diff"
    write_text_atomic(out, diff)
    assert out.read_bytes().decode("utf-8") == diff


def test_a_trial_record_naming_such_a_file_is_written_as_utf8_json(tmp_path: Path) -> None:
    ws = _workspace_with_a_non_utf8_name(tmp_path / "ws")
    names = sorted(p.name for p in ws.iterdir())
    result = EvaluatorResult(
        use="file-exists", passed=False, score=0, message=", ".join(names), details={"n": names}
    )
    record = TrialRecord(case="c", agent="a", repeat=1, status="failed", evaluators=[result])
    out = tmp_path / "trial.json"
    write_record(out, record)
    data = json.loads(out.read_bytes().decode("utf-8"))
    assert data["evaluators"][0]["message"] == "bad\\xffname, ok.txt"
    assert data["evaluators"][0]["details"] == {"n": ["bad\\xffname", "ok.txt"]}
    assert read_record(out, TrialRecord).evaluators[0].message == "bad\\xffname, ok.txt"
