"""Per-provider limits: concurrency, spacing, and the backoff after rate limiting."""

from __future__ import annotations

from collections import deque
from pathlib import Path

from proctor.execute.limits import Throttle, provider_of
from proctor.models.config import ProviderLimit
from proctor.models.plan import TrialSpec
from proctor.models.trial import TrialRecord
from tests.unit.execute.test_executor import spec as one_spec


def trial_spec(agent: str, index: int) -> TrialSpec:
    return one_spec(Path("/nonexistent")).model_copy(update={"agent": agent, "index": index})


def ended(reason: str) -> TrialRecord:
    return TrialRecord(case="c", agent="a", repeat=1, status="agent-error", reason=reason)


def test_providers_of_the_agents() -> None:
    assert provider_of(trial_spec("claude-code", 0)) == "anthropic"
    assert provider_of(trial_spec("codex", 0)) == "openai"
    assert provider_of(trial_spec("gemini-cli", 0)) == "google"
    assert provider_of(trial_spec("scripted", 0)) == "scripted"


def test_concurrency_and_spacing_hold_one_provider_not_the_others() -> None:
    throttle = Throttle({"anthropic": ProviderLimit(concurrency=1, start_spacing_sec=2.0)})
    a1, a2, c1 = trial_spec("claude-code", 0), trial_spec("claude-code", 1), trial_spec("codex", 2)
    pending = deque([a1, a2, c1])
    assert throttle.take(pending, 0.0) is a1
    throttle.started(a1, 0.0)
    assert throttle.take(pending, 0.1) is c1  # another provider goes ahead
    throttle.started(c1, 0.1)
    assert throttle.take(pending, 0.2) is None  # anthropic: one running
    assert throttle.wait(pending, 0.2, 0.5) == 0.5  # no busy loop: a finish wakes the run
    throttle.finished(a1, ended("score 100 >= 60"), 0.5)
    assert throttle.take(pending, 1.0) is None  # spaced 2 s from the last start
    assert throttle.wait(pending, 1.0, 0.5) == 0.5 and throttle.wait(pending, 1.8, 0.5) < 0.21
    assert throttle.take(pending, 2.0) is a2


def test_rate_limiting_backs_off_doubling_then_resets() -> None:
    throttle = Throttle({"openai": ProviderLimit(backoff_max_sec=3.0)})
    trials = [trial_spec("codex", i) for i in range(5)]
    pending = deque(trials)
    now = 0.0
    gaps = []
    for reason in ("rate limited: 429", "rate limited: 429", "rate limited: 429", "passed"):
        spec = throttle.take(pending, now)
        assert spec is not None
        throttle.started(spec, now)
        throttle.finished(spec, ended(reason), now)
        wait = throttle.wait(pending, now, 100.0)
        gaps.append(wait)
        now += wait
    assert gaps == [1.0, 2.0, 3.0, 100.0]  # doubled, capped at backoffMaxSec, reset


def test_without_limits_the_run_loop_waits_for_a_finish_not_in_a_busy_loop() -> None:
    pending = deque([trial_spec("scripted", 0)])
    assert Throttle({}).wait(pending, 123.0, 0.5) == 0.5
