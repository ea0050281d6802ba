"""A ``.env`` with a line python-dotenv cannot read: its keys are read, and the line is said
once, naming the file, not as python-dotenv's own log line once per lookup."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from proctor.llm import secrets


def test_an_unreadable_line_is_said_once_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(secrets, "_WARNED", set())
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("ANTHROPIC_API_KEY=sk-ant-abcdefghijklmnop\nnot a line\n")
    caplog.set_level(logging.WARNING)
    for _ in range(3):  # the keys are looked up several times before a run
        assert secrets.load_dotenv()["ANTHROPIC_API_KEY"] == "sk-ant-abcdefghijklmnop"
    said = [(r.name, r.getMessage()) for r in caplog.records]
    assert said == [
        (
            "proctor",
            "./.env: line 2 is not NAME=VALUE and skipped (the keys of its other lines are read)",
        )
    ]


def test_a_well_formed_env_says_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(secrets, "_WARNED", set())
    (tmp_path / ".env").write_text("# keys\nexport OPENAI_API_KEY='sk-x y'\n\nA=1 # note\n")
    caplog.set_level(logging.WARNING)
    assert secrets.load_dotenv(tmp_path) == {"OPENAI_API_KEY": "sk-x y", "A": "1"}
    assert caplog.records == []
