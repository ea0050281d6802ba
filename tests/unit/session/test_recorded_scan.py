"""``proctor record`` looks through the results folder's run folders for the session it is
given: a run folder it cannot read as a recording is passed by, never waited on, so recording
another session into the folder goes on as before."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from proctor.errors import ConfigError
from proctor.paths import RunPaths
from proctor.session.recorded import refuse_session_recorded

RUN = "run-20261201T000000Z-abcdef"


def _recording(out: Path, name: str, session: str) -> RunPaths:
    paths = RunPaths(out / name)
    trial = paths.trial("add-b", "claude-code", "default", 1).trial_json
    trial.parent.mkdir(parents=True)
    trial.write_text(json.dumps({"sessionId": session}))
    paths.run_json.write_text(json.dumps({"argv": ["proctor", "record", "add-b"]}))
    return paths


def test_the_same_session_recorded_already_is_refused(tmp_path: Path) -> None:
    """(The control: the scan does find a recording of the session.)"""
    _recording(tmp_path, RUN, "s-1")
    refuse_session_recorded(tmp_path, tmp_path / "t.jsonl", "claude-code", "s-2")
    with pytest.raises(ConfigError, match="recorded already in"):
        refuse_session_recorded(tmp_path, tmp_path / "t.jsonl", "claude-code", "s-1")


def test_a_run_json_that_is_a_named_pipe_is_passed_by(tmp_path: Path) -> None:
    """Its read blocked until a writer came: ``proctor record`` of any session into the
    folder hung for ever."""
    paths = _recording(tmp_path, RUN, "s-1")
    paths.run_json.unlink()
    os.mkfifo(paths.run_json)
    done: list[bool] = []
    scan = threading.Thread(
        target=lambda: done.append(
            refuse_session_recorded(tmp_path, tmp_path / "t.jsonl", "claude-code", "s-1") is None
        ),
        daemon=True,
    )
    scan.start()
    scan.join(30)
    if scan.is_alive():  # blocked on the pipe: a writer that closes at once frees it
        os.close(os.open(paths.run_json, os.O_WRONLY | os.O_NONBLOCK))
        scan.join()
    assert done == [True]


def test_a_run_whose_trials_cannot_be_listed_is_passed_by(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A trial folder without read permission made the listing raise (pathlib's is_file):
    recording another session was refused with a PermissionError's text."""
    _recording(tmp_path, RUN, "s-1")

    def denied(self: RunPaths) -> list[Path]:
        raise PermissionError(13, "Permission denied", str(self.trials_dir))

    monkeypatch.setattr(RunPaths, "trial_jsons", denied)
    refuse_session_recorded(tmp_path, tmp_path / "t.jsonl", "claude-code", "s-1")
