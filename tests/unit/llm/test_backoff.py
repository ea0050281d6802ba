"""How long a model call waits between its attempts: a rate limit or an overload that names no
wait of its own backs off for tens of seconds (a provider's limit is often per minute), a
server error or a lost connection for a second or so; the call's deadline bounds them all."""

from __future__ import annotations

import time
from typing import Any

import pytest

from proctor.llm.client import Completion, ModelClient
from proctor.llm.failures import FailureKind, ProviderError
from proctor.llm.refs import ModelRef


class Failing:
    """Fails every call with ``error``; the calls made are counted, with the time each was
    given (``timeout``)."""

    def __init__(self, error: ProviderError) -> None:
        self.error = error
        self.calls = 0
        self.timeouts: list[float] = []

    def complete(self, system: str, user: str, **options: Any) -> Completion:
        self.calls += 1
        self.timeouts.append(options["timeout"])
        raise self.error


class Clock:
    """A clock that only the waits move (no real wait)."""

    def __init__(self) -> None:
        self.now = 1_000.0
        self.waits: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        assert seconds >= 0
        self.waits.append(seconds)
        self.now += seconds


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


def timed(
    error: ProviderError, deadline_in: float, draw: float = 1.0
) -> tuple[Clock, ProviderError, Failing]:
    """The waits a call failing with ``error`` makes on a clock the waits move, with its
    deadline ``deadline_in`` seconds away; the error it ends with."""
    failing, clock = Failing(error), Clock()
    client = ModelClient(
        "judge",
        ModelRef("anthropic", "m"),
        failing,
        sleep=clock.sleep,
        jitter=lambda: draw,
        clock=clock,
        deadline=clock() + deadline_in,
    )
    with pytest.raises(ProviderError) as caught:
        client.complete("s", "u")
    assert clock.now <= client.deadline  # type: ignore[operator]
    assert [round(t, 6) for t in failing.timeouts[1:]] == [
        round(client.deadline - 1_000.0 - sum(clock.waits[:n]), 6)  # type: ignore[operator]
        for n in range(1, failing.calls)
    ]
    return clock, caught.value, failing


def test_the_call_s_deadline_bounds_the_waits() -> None:
    """An llm-judge's timeoutSec of 25 s: the second wait (20 s) would end 5 s after the
    deadline, so it is cut to leave 5 s for a last attempt (the call gave up at once, 15 s
    before its deadline); after it the call ends, saying the time ran out."""
    clock, error, failing = timed(ProviderError("rate-limit", "said", 429), 25.0)
    assert clock.waits == [10.0, 10.0] and failing.calls == 3
    assert failing.timeouts[-1] == 5.0 and clock.now == 1_020.0
    assert "; no reply before the trial's time ran out (gave up after 3 attempts in 20.0 s)" in (
        str(error)
    )


def test_a_wait_over_the_deadline_is_cut_for_a_last_attempt_only_with_seconds_to_spare() -> None:
    """A wait that would leave the next attempt less than 5 s is cut to leave it 5 s (it was
    waited whole when it ended before the deadline: 10 s of 10.5 left the attempt 0.5 s, and
    then the call gave up with 5 s of 14 left unused); less than 5 s left after an attempt:
    no other attempt is worth making."""
    clock, error, failing = timed(ProviderError("rate-limit", "said", 429), 14.0)
    assert clock.waits == [9.0] and failing.calls == 2 and failing.timeouts[-1] == 5.0
    assert "time ran out (gave up after 2 attempts in 9.0 s)" in str(error)
    clock, error, failing = timed(ProviderError("rate-limit", "said", 429), 10.5)
    assert clock.waits == [5.5] and failing.calls == 2 and failing.timeouts[-1] == 5.0
    # With less than 5 s in all, a wait that ends before the deadline is waited whole.
    clock, error, failing = timed(ProviderError("server", "said", 500), 2.0, draw=0.0)
    assert clock.waits == [0.25, 0.5, 1.0] and failing.calls == 4
    assert failing.timeouts[-1] == 0.25


def test_a_retry_after_that_would_pass_the_deadline_is_not_cut_short() -> None:
    """The provider named its wait: an attempt before it would be refused again."""
    clock, error, failing = timed(ProviderError("rate-limit", "said", 429, 30.0), 40.0)
    assert clock.waits == [30.0] and failing.calls == 2
    assert "time ran out (gave up after 2 attempts in 30.0 s)" in str(error)


def test_the_scripted_model_s_rate_limits_are_retried_at_once() -> None:
    """Its rate limits are scripted, not a provider's window: the short waits."""
    assert waits_for("rate-limit", 429, provider="scripted")[0] == [0.5, 1.0, 2.0]
