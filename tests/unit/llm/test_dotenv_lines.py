"""A ``.env`` with a line python-dotenv cannot read: its keys are read, and the line is said
once, naming the file, not as python-dotenv's own log line once per lookup."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

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


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        ("\ufeffANTHROPIC_API_KEY=sk-ant-abcdefghijklmnop\r\n", "utf-8"),
        ("ANTHROPIC_API_KEY=sk-ant-abcdefghijklmnop\r\n", "utf-16"),
    ],
    ids=["utf-8 with its byte order mark", "utf-16"],
)
def test_a_env_an_editor_saved_with_a_byte_order_mark_serves_its_keys(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    data: str,
    encoding: str,
) -> None:
    """Notepad's "UTF-8 with BOM" made the first name ``\\ufeffANTHROPIC_API_KEY`` (no key
    found, silently); its "Unicode" (UTF-16) made the whole file no ``.env``."""
    monkeypatch.setattr(secrets, "_WARNED", set())
    (tmp_path / ".env").write_bytes(data.encode(encoding))
    caplog.set_level(logging.WARNING)
    assert secrets.load_dotenv(tmp_path) == {"ANTHROPIC_API_KEY": "sk-ant-abcdefghijklmnop"}
    assert caplog.records == []


def _make_folder(env: Path) -> str:
    env.mkdir()
    return "./.env is not a file: no key is read from it"


def _make_dangling_link(env: Path) -> str:
    env.symlink_to(env.parent / "gone")
    return "./.env is a link to nothing: no key is read from it"


def _make_latin1(env: Path) -> str:
    env.write_bytes("# clé\nANTHROPIC_API_KEY=sk-ant-abcdefghijklmnop\n".encode("latin-1"))
    return "./.env is not UTF-8 text (byte 5 is not): no key is read from it; save it as UTF-8"


def _make_broken_utf16(env: Path) -> str:
    env.write_bytes(b"\xff\xfeA\x00=\x00B")  # its byte order mark says UTF-16; an odd byte
    return "./.env is not UTF-16 text (byte 7 is not): no key is read from it; save it as UTF-8"


@pytest.mark.parametrize(
    "make", [_make_folder, _make_dangling_link, _make_latin1, _make_broken_utf16]
)
def test_a_env_that_serves_no_key_is_said_once(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    make: Any,
) -> None:
    """A ``.env`` that is there but cannot be read was silently no ``.env``: the user's key
    then "was not found" with no word of the file that holds it."""
    monkeypatch.setattr(secrets, "_WARNED", set())
    monkeypatch.chdir(tmp_path)
    expected = make(tmp_path / ".env")
    caplog.set_level(logging.WARNING)
    for _ in range(2):
        assert secrets.load_dotenv() == {}
    assert [r.getMessage() for r in caplog.records] == [expected]
    caplog.clear()
    monkeypatch.setattr(secrets, "_WARNED", set())
    assert secrets.load_dotenv(quiet=True) == {}
    assert caplog.records == []
