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
