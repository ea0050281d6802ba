"""A record written with a secret of digits registered is still JSON: the secret masked in the
text would take part of a figure (``0.123456`` → ``0.***``), and no reader could read it; a
larger figure that holds its digits is another number, kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proctor.models.io import write_json, write_jsonl, write_text_atomic
from proctor.util import masking

RECORD = {"passRate": 0.123456, "port": 123456, "reason": "the pin 123456 was typed", "n": 3}


@pytest.fixture
def digits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret("123456", named=True)


def test_a_json_record_stays_json_with_its_strings_masked(digits: None, tmp_path: Path) -> None:
    path = tmp_path / "suite.json"
    write_json(path, RECORD)
    read = json.loads(path.read_text())
    assert read == {"passRate": "***", "port": "***", "reason": "the pin *** was typed", "n": 3}
    assert path.read_text().startswith('{\n  "passRate"'), "indented as it was"
    assert "123456" not in path.read_text()
    write_json(path, {"tokens": 1234567, "rate": 0.1234567})
    assert json.loads(path.read_text()) == {"tokens": 1234567, "rate": 0.1234567}


def test_a_jsonl_record_stays_json_line_by_line(digits: None, tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    write_jsonl(path, [RECORD, {"n": 1}])
    lines = path.read_text().splitlines()
    assert [json.loads(line)["passRate"] for line in lines[:1]] == ["***"]
    assert json.loads(lines[1]) == {"n": 1} and len(lines) == 2


def test_text_that_is_not_json_is_masked_as_text(digits: None, tmp_path: Path) -> None:
    path = tmp_path / "agent.log"
    write_text_atomic(path, "0.123456, 0.1234567 and 123456\n")
    assert path.read_text() == "0.***, 0.1234567 and ***\n"


def test_control_a_secret_in_a_string_only_is_masked_in_the_text(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret("sk-ant-abc123XYZ")
    path = tmp_path / "trial.json"
    write_json(path, {"reason": "key sk-ant-abc123XYZ refused", "score": 0.5})
    assert json.loads(path.read_text()) == {"reason": "key *** refused", "score": 0.5}
