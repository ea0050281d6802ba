"""A Codex turn that printed no events on stdout is reported with the end of its stderr,
masked before the cut and marked when cut."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.agents.codex.adapter import Codex, CodexSession
from proctor.agents.protocol import Launch
from proctor.util import masking
from proctor.util.masking import register_secret

KEY = "sk-ant-api03-LEAKTESTKEY0123456789abcdef"


@pytest.fixture(autouse=True)
def secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(masking, "_SECRETS", set())
    register_secret(KEY)


def _reason(stderr: str, tmp_path: Path) -> str:
    state = CodexSession(binary=tmp_path / "codex", codex_home=tmp_path, model=None, args=[])
    launch = Launch(argv=[], env={}, cwd=tmp_path, state=state, mode="headless")
    error = Codex.headless_report(Codex.__new__(Codex), launch, [], stderr).error
    assert error is not None
    return error


def test_a_long_stderr_is_cut_to_its_end_and_marked(tmp_path: Path) -> None:
    stderr = "warning: something\n" * 40 + f"Error: unauthorized with key {KEY}\n"
    reason = _reason(stderr, tmp_path)
    whole = len(masking.mask(stderr).strip())
    assert reason.startswith("agent error: no events on stdout (…")
    assert reason.endswith(f" (cut: {whole:,} characters in all, the last 200 kept))")
    assert "Error: unauthorized with key " + masking.MASK in reason
    assert KEY[:10] not in reason


def test_a_short_stderr_is_quoted_whole_and_an_empty_one_said_so(tmp_path: Path) -> None:
    assert _reason("  boom\n", tmp_path) == "agent error: no events on stdout (boom)"
    assert _reason("", tmp_path) == "agent error: no events on stdout (nothing on stderr)"


@pytest.mark.parametrize(
    ("stderr", "label"),
    [
        ("Error: 401 Unauthorized", "authentication failed"),
        ("Error: unexpected status 429 Too Many Requests", "rate limited"),
        ("ERROR: You exceeded your current quota", "quota exhausted"),
        ("error sending request: Connection refused (os error 111)", "network error"),
        ("Error: stream error: 503 Service Unavailable", "API error"),
    ],
)
def test_what_stderr_says_went_wrong_gives_the_reason_its_kind(
    stderr: str, label: str, tmp_path: Path
) -> None:
    reason = _reason(stderr, tmp_path)
    assert reason.startswith(f"{label}: no events on stdout ({stderr})")
