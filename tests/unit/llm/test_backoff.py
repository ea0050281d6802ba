"""How long a model call waits between its attempts: a rate limit or an overload that names no
wait of its own backs off for tens of seconds (a provider's limit is often per minute), a
server error or a lost connection for a second or so; the call's deadline bounds them all."""

from __future__ import annotations

import time

import pytest

from proctor.llm.client import Completion, ModelClient
from proctor.llm.failures import FailureKind, ProviderError
from proctor.llm.refs import ModelRef


class Failing:
    """Fails every call with ``error``; the calls made are counted."""

    def __init__(self, error: ProviderError) -> None:
        self.error = error
        self.calls = 0

    def complete(self, system: str, user: str, **_: object) -> Completion:
        self.calls += 1
        raise self.error


def waits_for(
    kind: FailureKind,
    status: int | None,
    *,
    draw: float = 1.0,
    retry_after: float | None = None,
    provider: str = "anthropic",
    deadline_in: float | None = None,
) -> tuple[list[float], ProviderError, Failing]:
    """The waits a call failing so makes (no real wait), the error it ends with."""
    failing = Failing(ProviderError(kind, "said", status, retry_after))
    waits: list[float] = []
    client = ModelClient(
        "judge", ModelRef(provider, "m"), failing, sleep=waits.append, jitter=lambda: draw
    )
    if deadline_in is not None:
        client.deadline = time.monotonic() + deadline_in
    with pytest.raises(ProviderError) as caught:
        client.complete("s", "u")
    return waits, caught.value, failing


@pytest.mark.parametrize(
    ("kind", "status"), [("rate-limit", 429), ("overloaded", 529), ("server", 503)]
)
def test_a_rate_limit_or_overload_without_retry_after_backs_off_for_tens_of_seconds(
    kind: FailureKind, status: int
) -> None:
    """It waited 0.25-0.5, 0.5-1 and 1-2 s: 3.5 s at most, which no limit per minute resets in."""
    assert waits_for(kind, status)[0] == [10.0, 20.0, 40.0]
    assert waits_for(kind, status, draw=0.0)[0] == [5.0, 10.0, 20.0]
    waits, error, failing = waits_for(kind, status, draw=0.5)
    assert waits == [7.5, 15.0, 30.0] and failing.calls == 4
    assert str(error).startswith("said (gave up after 4 attempts in ")


def test_the_jitter_spreads_each_wait_over_its_upper_half() -> None:
    failing = Failing(ProviderError("rate-limit", "said", 429))
    for _ in range(20):
        waits: list[float] = []
        client = ModelClient("judge", ModelRef("openai", "m"), failing, sleep=waits.append)
        with pytest.raises(ProviderError):
            client.complete("s", "u")
        low = [5.0, 10.0, 20.0]
        assert all(a <= w <= 2 * a for a, w in zip(low, waits, strict=True)), waits


@pytest.mark.parametrize(("kind", "status"), [("server", 500), ("server", 502), ("network", None)])
def test_control_a_server_error_or_a_lost_connection_keeps_its_short_waits(
    kind: FailureKind, status: int | None
) -> None:
    assert waits_for(kind, status)[0] == [0.5, 1.0, 2.0]


def test_a_retry_after_is_the_provider_s_own_wait_not_the_long_backoff() -> None:
    assert waits_for("rate-limit", 429, retry_after=3.0)[0] == [3.0, 3.0, 3.0]
    # Shorter than the short wait: the short wait.
    assert waits_for("overloaded", 529, retry_after=0.0)[0] == [0.5, 1.0, 2.0]


def test_the_call_s_deadline_bounds_the_waits() -> None:
    """An llm-judge's timeoutSec of 25 s: a third wait (40 s) would not fit, so the call ends
    after its third attempt, saying the time ran out."""
    waits, error, failing = waits_for("rate-limit", 429, deadline_in=25.0)
    assert waits == [10.0, 20.0] and failing.calls == 3
    assert "; no reply before the trial's time ran out (gave up after 3 attempts in" in str(error)


def test_the_scripted_model_s_rate_limits_are_retried_at_once() -> None:
    """Its rate limits are scripted, not a provider's window: the short waits."""
    assert waits_for("rate-limit", 429, provider="scripted")[0] == [0.5, 1.0, 2.0]
