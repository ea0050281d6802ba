"""Per-provider limits on how a run starts its trials (``limits`` in ``proctor.json``).

Each provider (the one an agent's requests go to: ``anthropic`` for Claude Code, ``openai`` for
Codex, ``google`` for Gemini CLI, ``scripted`` for the scripted agent) may cap how many of its
trials run at once and how far apart they start. A trial that ends *rate limited* pauses the
provider's next start for a second (or its spacing), doubling with each rate-limited trial in a
row up to ``backoffMaxSec``; a trial that ends otherwise ends the backoff. Trials of other
providers start meanwhile, so a large suite on a real provider slows down instead of failing.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

from proctor.agents.spec import spec_for
from proctor.models.config import ProviderLimit
from proctor.models.plan import TrialSpec
from proctor.models.trial import TrialRecord

RATE_LIMITED = "rate limited:"
FIRST_BACKOFF_SEC = 1.0


def provider_of(spec: TrialSpec) -> str:
    """The provider of the trial's agent (its adapter's, through a profile's ``agent``);
    ``scripted`` for every trial on the scripted model."""
    if spec.backend == "scripted":
        return "scripted"  # the scripted model server: no provider is called
    adapter = spec.profile.agent or spec.agent
    found = spec_for(adapter)
    return found.provider if found is not None else adapter


@dataclass
class _Provider:
    running: int = 0
    next_start: float = 0.0
    backoff: float = 0.0


class Throttle:
    """Which waiting trial may start now, by the providers' limits."""

    def __init__(self, limits: Mapping[str, ProviderLimit]) -> None:
        self.limits = dict(limits)
        self.state: dict[str, _Provider] = {}
        self.serial: set[tuple[str, str, str]] = set()
        """Case × agent × condition with a ``serialRepeats`` trial running."""

    def _state(self, provider: str) -> _Provider:
        return self.state.setdefault(provider, _Provider())

    def _may_start(self, provider: str, now: float) -> bool:
        limit = self.limits.get(provider)
        state = self._state(provider)
        if state.next_start > now:
            return False
        return limit is None or limit.concurrency is None or state.running < limit.concurrency

    def take(self, pending: deque[TrialSpec], now: float) -> TrialSpec | None:
        """The first waiting trial whose provider allows a start now (removed from
        ``pending``), or None."""
        for i, spec in enumerate(pending):
            if spec.serial_repeats and spec.key[:3] in self.serial:
                continue  # another repeat of it runs
            if self._may_start(provider_of(spec), now):
                del pending[i]
                return spec
        return None

    def started(self, spec: TrialSpec, now: float) -> None:
        if spec.serial_repeats:
            self.serial.add(spec.key[:3])
        provider = provider_of(spec)
        state = self._state(provider)
        state.running += 1
        limit = self.limits.get(provider)
        if limit is not None and limit.start_spacing_sec:
            state.next_start = max(state.next_start, now + limit.start_spacing_sec)

    def finished(self, spec: TrialSpec, record: TrialRecord, now: float) -> None:
        self.serial.discard(spec.key[:3])
        provider = provider_of(spec)
        state = self._state(provider)
        state.running = max(0, state.running - 1)
        limit = self.limits.get(provider) or ProviderLimit()
        if record.reason.startswith(RATE_LIMITED):
            first = max(FIRST_BACKOFF_SEC, limit.start_spacing_sec)
            state.backoff = min(
                limit.backoff_max_sec, state.backoff * 2 if state.backoff else first
            )
            state.next_start = max(state.next_start, now + state.backoff)
        else:
            state.backoff = 0.0

    def wait(self, pending: deque[TrialSpec], now: float, longest: float) -> float:
        """How long the run loop may wait before a waiting trial could start (at most
        ``longest``; a finishing trial wakes it sooner)."""
        soonest = longest
        for spec in pending:
            state = self._state(provider_of(spec))
            if state.next_start > now:  # a trial blocked by concurrency waits for a finish
                soonest = min(soonest, state.next_start - now)
        return soonest
