"""The trajectory written while the agent runs: the events appended as the native transcript
grows, the file written anew when an event already written changed, and removed when nothing
replaced it by the trajectory collected at the end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from proctor.agents.protocol import Launch
from proctor.execute.live import LiveTrajectory
from proctor.models.io import write_trajectory
from proctor.models.trajectory import Trajectory
from proctor.transcripts.claude import parse_claude_transcript


class _Claude:
    """An adapter whose session's transcript is a Claude Code file (all the follower asks)."""

    def __init__(self, transcript: Path) -> None:
        self.transcript = transcript

    def transcript_files(self, launch: Launch[Any]) -> list[Path]:
        return [self.transcript] if self.transcript.is_file() else []

    def parse(self, path: Path) -> Trajectory:
        return parse_claude_transcript(path)


def _said(transcript: Path, uid: str, text: str, parent: str | None = None) -> None:
    record = {
        "type": "assistant",
        "uuid": uid,
        "parentUuid": parent,
        "sessionId": "s",
        "timestamp": "2026-12-01T00:00:00.000Z",
        "message": {
            "id": f"m-{uid}",
            "role": "assistant",
            "model": "m",
            "content": [{"type": "text", "text": text}],
        },
    }
    with transcript.open("a") as fh:
        fh.write(json.dumps(record) + "\n")


def _look(live: LiveTrajectory) -> None:
    """One look, whatever the last parse's share of time (no timing in a unit test)."""
    live.next_parse = 0.0
    live.look()


def _follower(tmp_path: Path) -> tuple[LiveTrajectory, Path, Path]:
    transcript, path = tmp_path / "session.jsonl", tmp_path / "trajectory.jsonl"
    live = LiveTrajectory(_Claude(transcript), path)  # type: ignore[arg-type]
    live.launch = Launch(argv=[], env={}, cwd=tmp_path, state=None)
    return live, transcript, path


def test_events_are_appended_as_the_transcript_grows(tmp_path: Path) -> None:
    live, transcript, path = _follower(tmp_path)
    _look(live)
    assert not path.exists()  # no transcript yet: no file
    _said(transcript, "a", "first")
    _look(live)
    inode, first = path.stat().st_ino, path.read_text()
    assert "first" in first
    _said(transcript, "b", "second", "a")
    _look(live)
    assert path.stat().st_ino == inode  # grown in place: a reader scans on from where it was
    assert path.read_text().startswith(first) and "second" in path.read_text()
    # the same lines as the trajectory collected at the end
    collected = tmp_path / "collected.jsonl"
    write_trajectory(collected, parse_claude_transcript(transcript).events)
    assert path.read_bytes() == collected.read_bytes()


def test_a_changed_event_writes_the_file_anew(tmp_path: Path) -> None:
    live, transcript, path = _follower(tmp_path)
    _said(transcript, "a", "first")
    _look(live)
    inode = path.stat().st_ino
    transcript.write_text("")
    _said(transcript, "z", "another")
    _look(live)
    assert "first" not in path.read_text() and "another" in path.read_text()
    assert path.stat().st_ino != inode


def test_the_live_file_goes_unless_the_collected_one_replaced_it(tmp_path: Path) -> None:
    live, transcript, path = _follower(tmp_path)
    _said(transcript, "a", "first")
    _look(live)
    live.remove_if_left()
    assert not path.exists()  # the trial failed before its transcript was collected
    (tmp_path / "again").mkdir()
    live, transcript, path = _follower(tmp_path / "again")
    _said(transcript, "a", "first")
    _look(live)
    write_trajectory(path, parse_claude_transcript(transcript).events)  # what collect writes
    live.remove_if_left()
    assert "first" in path.read_text()


class _Broken(_Claude):
    """A transcript its parser refuses (a chat cut short): counted, each parse raising."""

    parses = 0

    def parse(self, path: Path) -> Trajectory:
        self.parses += 1
        raise ValueError("cut short")


def test_a_transcript_that_does_not_parse_is_not_parsed_again_until_it_changes(
    tmp_path: Path,
) -> None:
    transcript, path = tmp_path / "session.jsonl", tmp_path / "trajectory.jsonl"
    adapter = _Broken(transcript)
    live = LiveTrajectory(adapter, path)  # type: ignore[arg-type]
    live.launch = Launch(argv=[], env={}, cwd=tmp_path, state=None)
    _said(transcript, "a", "one")
    for _ in range(3):
        try:
            _look(live)
        except ValueError:
            pass
    assert adapter.parses == 1  # (it was parsed every half second, for ever)
    _said(transcript, "b", "two", parent="a")
    try:
        _look(live)
    except ValueError:
        pass
    assert adapter.parses == 2


def test_a_secret_in_a_figure_leaves_each_live_line_json(tmp_path: Path) -> None:
    from proctor.util import masking

    live, transcript, path = _follower(tmp_path)
    record = {
        "type": "assistant", "uuid": "a", "parentUuid": None, "sessionId": "s",
        "timestamp": "2026-12-01T00:00:00.000Z",
        "message": {"id": "m-a", "role": "assistant", "model": "m",
                    "content": [{"type": "text", "text": "hi"}],
                    "usage": {"input_tokens": 424242, "output_tokens": 7}},
    }  # fmt: skip
    transcript.write_text(json.dumps(record) + "\n")
    saved = set(masking._SECRETS)
    try:
        masking.register_secret("424242", named=True)
        _look(live)
    finally:
        masking._SECRETS.clear()
        masking._SECRETS.update(saved)
    lines = path.read_text().splitlines()
    assert lines and all(json.loads(line) for line in lines)  # every line still JSON
    assert "424242" not in path.read_text()


def test_a_live_trajectory_a_dead_worker_left_is_dropped(tmp_path: Path) -> None:
    from proctor.execute.live import drop_left

    live, transcript, path = _follower(tmp_path)
    _said(transcript, "a", "one")
    _look(live)
    assert path.exists()
    drop_left(path)  # the worker died: its record says it has no result
    assert not path.exists() and not (tmp_path / ".trajectory.live").exists()
    # A collected trajectory (the marker gone with the live file's end) is never dropped.
    (tmp_path / "b").mkdir()
    live2, transcript2, path2 = _follower(tmp_path / "b")
    _said(transcript2, "a", "one")
    _look(live2)
    write_trajectory(path2, parse_claude_transcript(transcript2).events)
    live2.remove_if_left()
    drop_left(path2)
    assert path2.exists()


def test_a_stop_while_the_follower_starts_finds_nothing_to_join(tmp_path: Path) -> None:
    # A stop landing between the thread's making and its start (the interrupt race of a run
    # of many trials) joined a thread never started: RuntimeError, a traceback per worker.
    import threading

    live, _, _ = _follower(tmp_path)
    live.thread = threading.Thread(target=lambda: None)  # made, not started
    live.stop()
    live.remove_if_left()
    assert live.thread is None


def _diff_follower(tmp_path: Path) -> tuple[LiveTrajectory, Path, Path, Path]:
    """A follower of a session whose workspace holds ``a.txt``; the trial's folder is
    ``tmp_path/trial``."""
    from proctor.execute.live import LiveDiff
    from proctor.workspace.diff import take_snapshot

    workspace, trial = tmp_path / "ws", tmp_path / "trial"
    workspace.mkdir()
    trial.mkdir()
    (workspace / "a.txt").write_text("old\n")
    before = take_snapshot(workspace, None, tmp_path / "kept")
    transcript = tmp_path / "session.jsonl"
    diff = LiveDiff(before, workspace, trial / "workspace.diff")
    live = LiveTrajectory(_Claude(transcript), trial / "trajectory.jsonl", diff)  # type: ignore[arg-type]
    live.launch = Launch(argv=[], env={}, cwd=tmp_path, state=None)
    return live, transcript, workspace, trial


def test_the_workspace_diff_so_far_is_written_after_each_step(tmp_path: Path) -> None:
    from proctor.paths import LIVE_DIFF_MARKER, names_live

    live, transcript, workspace, trial = _diff_follower(tmp_path)
    diff, marker = trial / "workspace.diff", trial / LIVE_DIFF_MARKER
    _look(live)
    assert not diff.exists()  # no step yet: nothing looked at
    (workspace / "a.txt").write_text("new\n")
    _said(transcript, "a", "edited a.txt")
    _look(live)
    assert "-old\n+new\n" in diff.read_text() and names_live(marker, diff)
    (workspace / "b.txt").write_text("made\n")
    _look(live)
    assert "b.txt" not in diff.read_text()  # no step since: not diffed again
    _said(transcript, "b", "made b.txt", "a")
    _look(live)
    assert "+made\n" in diff.read_text() and "-old\n+new\n" in diff.read_text()
    assert names_live(marker, diff)
    assert marker.read_text().count("\n") == 1  # the file replaced is named no more


def test_the_diff_so_far_masks_every_secret(tmp_path: Path) -> None:
    from proctor.util import masking

    live, transcript, workspace, trial = _diff_follower(tmp_path)
    (workspace / "a.txt").write_text("key sk-live-0123456789abcdef\n")
    _said(transcript, "a", "wrote it")
    saved = set(masking._SECRETS)
    try:
        masking.register_secret("sk-live-0123456789abcdef", named=True)
        _look(live)
    finally:
        masking._SECRETS.clear()
        masking._SECRETS.update(saved)
    text = (trial / "workspace.diff").read_text()
    assert "+key ***" in text and "0123456789abcdef" not in text


def test_a_huge_workspace_s_diff_so_far_says_it_is_not_followed(
    tmp_path: Path, monkeypatch: Any
) -> None:
    from proctor.execute import live as live_module

    monkeypatch.setattr(live_module, "LIVE_DIFF_MAX_FILES", 0)
    live, transcript, workspace, trial = _diff_follower(tmp_path)
    (workspace / "a.txt").write_text("new\n")
    _said(transcript, "a", "edited a.txt")
    _look(live)
    text = (trial / "workspace.diff").read_text()
    assert text.startswith("Not followed while the trial runs: the workspace held 1 files")
    assert "+new" not in text


def test_the_diff_so_far_goes_unless_the_collected_one_replaced_it(tmp_path: Path) -> None:
    from proctor.models.io import write_text_atomic
    from proctor.paths import LIVE_DIFF_MARKER

    for collected in (False, True):
        folder = tmp_path / str(collected)
        folder.mkdir()
        live, transcript, workspace, trial = _diff_follower(folder)
        (workspace / "a.txt").write_text("new\n")
        _said(transcript, "a", "edited a.txt")
        _look(live)
        assert (trial / "workspace.diff").exists()
        if collected:
            write_text_atomic(trial / "workspace.diff", "the collected diff\n")  # as collect
        live.remove_if_left()
        assert not (trial / LIVE_DIFF_MARKER).exists()
        if collected:
            assert (trial / "workspace.diff").read_text() == "the collected diff\n"
        else:
            assert not (trial / "workspace.diff").exists()  # cut short: no diff recorded


def test_a_diff_so_far_a_dead_worker_left_is_dropped_a_collected_one_kept(
    tmp_path: Path, monkeypatch: Any
) -> None:
    from proctor.execute import live as live_module
    from proctor.execute.live import drop_live
    from proctor.models.io import write_text_atomic
    from proctor.paths import LIVE_DIFF_MARKER, TrialPaths

    live, transcript, workspace, trial = _diff_follower(tmp_path)
    (workspace / "a.txt").write_text("new\n")
    _said(transcript, "a", "edited a.txt")
    _look(live)
    drop_live(TrialPaths(trial))  # the worker died: its record says it has no result
    assert not (trial / "workspace.diff").exists()
    assert not (trial / LIVE_DIFF_MARKER).exists()
    # Killed just after a diff was put in place, before its mark was written again: the
    # mark made before the rename names it.
    marks = live_module._write_mark

    def killed_after_the_rename(marker: Path, lines: list[str]) -> None:
        if len(lines) == 1 and (trial / "workspace.diff").exists():
            raise SystemExit("killed")
        marks(marker, lines)

    (tmp_path / "b").mkdir()
    live, transcript, workspace, trial = _diff_follower(tmp_path / "b")
    monkeypatch.setattr(live_module, "_write_mark", killed_after_the_rename)
    (workspace / "a.txt").write_text("new\n")
    _said(transcript, "a", "edited a.txt")
    try:
        _look(live)
    except SystemExit:
        pass
    assert "+new" in (trial / "workspace.diff").read_text()
    drop_live(TrialPaths(trial))
    assert not (trial / "workspace.diff").exists()
    monkeypatch.undo()
    # The diff collected at the end (its mark gone, or not yet) is never dropped.
    (tmp_path / "c").mkdir()
    live, transcript, workspace, trial = _diff_follower(tmp_path / "c")
    (workspace / "a.txt").write_text("new\n")
    _said(transcript, "a", "edited a.txt")
    _look(live)
    write_text_atomic(trial / "workspace.diff", "the collected diff\n")
    drop_live(TrialPaths(trial))  # died between collect and the mark's removal
    assert (trial / "workspace.diff").read_text() == "the collected diff\n"
    live.remove_if_left()
    assert (trial / "workspace.diff").read_text() == "the collected diff\n"


def test_a_workspace_replaced_by_a_link_is_not_followed(tmp_path: Path) -> None:
    live, transcript, workspace, trial = _diff_follower(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "secret.txt").write_text("outside\n")
    (workspace / "a.txt").unlink()
    workspace.rmdir()
    workspace.symlink_to(elsewhere)
    _said(transcript, "a", "swapped")
    _look(live)
    assert not (trial / "workspace.diff").exists()


def test_a_mark_whose_write_failed_leaves_no_temp_file(tmp_path: Path, monkeypatch: Any) -> None:
    """A full disk while the diff so far was written left .workspace.diff.live.tmp in the
    trial's folder: the end of the trial removed only the mark."""
    import errno
    import os

    import pytest

    from proctor.paths import LIVE_DIFF_MARKER

    live, transcript, workspace, trial = _diff_follower(tmp_path)
    real_write = Path.write_text

    def full_disk(self: Path, data: str, *args: Any, **kwargs: Any) -> int:
        if self.name == LIVE_DIFF_MARKER + ".tmp":
            real_write(self, data[:3], *args, **kwargs)
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(self, data, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", full_disk)
    (workspace / "a.txt").write_text("new\n")
    _said(transcript, "a", "edited a.txt")
    with pytest.raises(OSError):
        _look(live)
    monkeypatch.undo()
    live.remove_if_left()
    assert [name for name in os.listdir(trial) if "live" in name] == []
