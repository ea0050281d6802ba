"""The golden check of the contract tests: a deleted golden fails instead of being recreated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.contract.goldens import check_golden

EVENTS = [{"type": "user_message", "text": "hi"}, {"type": "assistant_text", "text": "ok"}]


def test_a_missing_golden_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("UPDATE_GOLDENS", raising=False)
    with pytest.raises(pytest.fail.Exception, match="is missing: run `make goldens`"):
        check_golden("gone", "1.0", EVENTS, tmp_path)
    assert not (tmp_path / "gone.json").exists()


def test_update_goldens_writes_it_and_then_it_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UPDATE_GOLDENS", "1")
    check_golden("new", "1.0", EVENTS, tmp_path)
    assert json.loads((tmp_path / "new.json").read_text())["cliVersion"] == "1.0"
    monkeypatch.delenv("UPDATE_GOLDENS")
    check_golden("new", "1.0", EVENTS, tmp_path)
    with pytest.raises(pytest.fail.Exception, match="drifted") as drift:
        check_golden("new", "1.0", [EVENTS[0]], tmp_path)
    assert '-{"text": "ok", "type": "assistant_text"}' in str(drift.value)  # the difference shown
