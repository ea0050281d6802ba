"""What the masking tests share: one secret registered, the only one, while a test runs."""

from __future__ import annotations

import pytest

from proctor.util import masking

SECRET = "sk-test-0123456789abcdef"


@pytest.fixture
def one_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(masking, "_SECRETS", {SECRET})
