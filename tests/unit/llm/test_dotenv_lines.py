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


def test_a_env_read_only_to_mask_its_keys_says_nothing_of_its_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A resume masks the keys of the current folder's ``.env`` but reads its roles' keys from
    the folder its run was started in: the current one's lines are not its business."""
    from proctor.agents.credentials import register_user_keys
    from proctor.util import masking

    monkeypatch.setattr(secrets, "_WARNED", set())
    monkeypatch.setattr(masking, "_SECRETS", set())
    (tmp_path / ".env").write_text("OPENAI_API_KEY=sk-proj-abcdefghijklmnop\nnot a line\n")
    caplog.set_level(logging.WARNING)
    register_user_keys(tmp_path)
    assert masking.mask("sk-proj-abcdefghijklmnop") == "***"
    assert caplog.records == []
