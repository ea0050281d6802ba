"""A recorded session's session.json names the run it was recorded in, in the file as it is
once masked: the copy read before the masking never brings a secret back."""

from __future__ import annotations

import json
from pathlib import Path

from proctor.session.handover import SESSION_FILE
from proctor.session.recorded import RECORDED_IN, mark_recorded


def test_the_mark_keeps_what_the_masking_made_of_the_file(tmp_path: Path) -> None:
    prepared = {"case": "a", "note": "sk-ant-api03-secret-value"}
    (tmp_path / SESSION_FILE).write_text(json.dumps({"case": "a", "note": "***"}))  # masked
    mark_recorded(tmp_path, prepared, tmp_path / "run-1")
    written = json.loads((tmp_path / SESSION_FILE).read_text())
    assert written == {"case": "a", "note": "***", RECORDED_IN: str(tmp_path / "run-1")}


def test_a_session_json_that_no_longer_reads_is_written_from_what_was_read(
    tmp_path: Path,
) -> None:
    (tmp_path / SESSION_FILE).write_text("{cut")
    mark_recorded(tmp_path, {"case": "a"}, tmp_path / "run-1")
    assert json.loads((tmp_path / SESSION_FILE).read_text())[RECORDED_IN] == str(tmp_path / "run-1")
