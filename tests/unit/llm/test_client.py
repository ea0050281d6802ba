"""Provider errors: classified, masked before they are cut, and never a raw exception."""

from __future__ import annotations

import pytest

from proctor.llm import secrets
from proctor.llm.client import classify_sdk_error

KEY = "sk-test-SECRETKEY-" + "z" * 40
BODY_EXCERPT = 200  # how much of an error body a message quotes


class FakeSdkError(Exception):
    def __init__(self, status: int | None, body: str) -> None:
        super().__init__(body)
        self.status_code = status
        self.body = body


class APIConnectionError(Exception):
    """Named like the SDKs' connection error, which classification goes by."""


@pytest.fixture(autouse=True)
def planted_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(secrets, "_SECRETS", set())
    secrets.register_secret(KEY)


@pytest.mark.parametrize("at", [0, 150, BODY_EXCERPT - 30, BODY_EXCERPT - 12, BODY_EXCERPT - 1])
@pytest.mark.parametrize("status", [401, 429, 500, 400])
def test_a_key_echoed_near_the_cut_leaves_no_trace(at: int, status: int) -> None:
    body = "a" * at + f"Bearer {KEY} is not valid" + "b" * 300
    error = classify_sdk_error(FakeSdkError(status, body))
    assert KEY[:8] not in str(error), str(error)
    assert "***" in str(error) or at + len("Bearer ") >= BODY_EXCERPT


def test_a_network_error_message_is_masked() -> None:
    error = classify_sdk_error(APIConnectionError(f"cannot reach https://x/?key={KEY}"))
    assert error.kind == "network" and KEY[:8] not in str(error)


def test_the_excerpt_stays_bounded() -> None:
    error = classify_sdk_error(FakeSdkError(500, "x" * 100_000))
    assert error.kind == "server" and len(str(error)) < BODY_EXCERPT + 50
