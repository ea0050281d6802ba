"""A judge's rationale longer than a trial keeps is masked whole before it is cut: a key
across the cut kept its first part (masking matches whole keys only)."""

from __future__ import annotations

import pytest

from proctor.evaluators.llm_judge import RATIONALE_CHARS, _kept
from proctor.util import masking


def test_a_key_across_the_cut_keeps_no_part(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(masking, "_SECRETS", set())
    key = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcd"
    masking.register_secret(key)
    kept = _kept("x" * (RATIONALE_CHARS - 20) + " " + key + " and more" * 2000)
    assert "sk-proj" not in kept and "ABCDEFG" not in kept
    assert kept.endswith(
        f"… (cut: {RATIONALE_CHARS - 20 + 1 + len(key) + 18_000:,} characters in all)"
    )
    assert _kept("short") == "short"
