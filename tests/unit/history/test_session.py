"""A session to replay: the same file named by text or by path is the same session, and it
crosses a process boundary whole."""

from __future__ import annotations

import pickle
from pathlib import Path

from proctor.history.layout import Session


def test_a_session_named_by_text_or_by_path_is_the_same() -> None:
    by_text = Session("claude-code", "/h/projects/p/s.jsonl")
    by_path = Session("claude-code", Path("/h/projects/p/s.jsonl"))
    assert by_text == by_path and hash(by_text) == hash(by_path)
    assert by_text.file == "/h/projects/p/s.jsonl"
    assert by_text.path == Path("/h/projects/p/s.jsonl") and by_text.path is by_text.path
    assert Session("codex", "/h/projects/p/s.jsonl") != by_text  # another agent's
    assert len({by_text, by_path}) == 1


def test_a_session_is_pickled_whole() -> None:
    session = Session("gemini-cli", "/h/.gemini/tmp/x/chats/session-1.json")
    again = pickle.loads(pickle.dumps(session))
    assert again == session and again.path.name == "session-1.json"
    assert repr(again) == "Session('gemini-cli', '/h/.gemini/tmp/x/chats/session-1.json')"
