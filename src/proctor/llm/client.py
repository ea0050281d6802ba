"""Calling a model for one of proctor's roles, with bounded retries and a record of every call.

Providers are reached through their official SDKs (``anthropic``, ``openai``), which also serve
any compatible endpoint through a base URL. Retries with exponential backoff on 429, 5xx and
connection errors; ``insufficient_quota`` and authentication failures are never retried.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from proctor.errors import ProctorError
from proctor.llm.refs import ModelRef

MAX_ATTEMPTS = 4
BACKOFF_BASE_SEC = 0.5
BACKOFF_CAP_SEC = 8.0


class ProviderError(ProctorError):
    """A model call failed for good. ``kind``: auth, quota, rate-limit, server, network, request."""

    def __init__(self, kind: str, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status

    @property
    def retryable(self) -> bool:
        return self.kind in ("rate-limit", "server", "network")


@dataclass
class Completion:
    text: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    logprobs: list[float] | None = None
    latency_ms: float = 0.0
    attempts: int = 1


@dataclass
class CallRecord:
    role: str
    model: str
    input_tokens: int
    output_tokens: int
    latency_ms: float
    attempts: int
    ok: bool
    error: str | None = None


class Provider(Protocol):
    def complete(
        self, system: str, user: str, *, max_tokens: int, logprobs: bool
    ) -> Completion: ...


@dataclass
class ModelClient:
    """One role's model. ``calls`` collects a record of every call for cost and time roll-ups."""

    role: str
    ref: ModelRef
    provider: Provider
    calls: list[CallRecord] = field(default_factory=list)
    sleep: Any = time.sleep

    def complete(
        self, system: str, user: str, *, max_tokens: int = 1024, logprobs: bool = False
    ) -> Completion:
        started = time.monotonic()
        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                result = self.provider.complete(
                    system, user, max_tokens=max_tokens, logprobs=logprobs
                )
            except ProviderError as exc:
                if not exc.retryable or attempt == MAX_ATTEMPTS:
                    self.calls.append(
                        CallRecord(
                            self.role,
                            str(self.ref),
                            0,
                            0,
                            (time.monotonic() - started) * 1000,
                            attempt,
                            False,
                            str(exc),
                        )
                    )
                    raise
                delay = min(BACKOFF_CAP_SEC, BACKOFF_BASE_SEC * 2 ** (attempt - 1))
                self.sleep(delay * (0.5 + random.random() / 2))
                continue
            result.latency_ms = (time.monotonic() - started) * 1000
            result.attempts = attempt
            self.calls.append(
                CallRecord(
                    self.role,
                    str(self.ref),
                    result.input_tokens,
                    result.output_tokens,
                    result.latency_ms,
                    attempt,
                    True,
                )
            )
            return result
        raise AssertionError("unreachable")


def classify_sdk_error(exc: Exception) -> ProviderError:
    status = getattr(exc, "status_code", None)
    body = str(getattr(exc, "body", "") or exc)
    name = type(exc).__name__
    if "insufficient_quota" in body or "credit balance" in body.lower():
        return ProviderError("quota", f"quota exhausted ({status}): {body[:200]}", status)
    if status in (401, 403) or name in ("AuthenticationError", "PermissionDeniedError"):
        return ProviderError("auth", f"authentication failed ({status}): {body[:200]}", status)
    if status == 429:
        return ProviderError("rate-limit", f"rate limited (429): {body[:200]}", status)
    if isinstance(status, int) and status >= 500:
        return ProviderError("server", f"server error ({status}): {body[:200]}", status)
    if "Connection" in name or "Timeout" in name:
        return ProviderError("network", f"network error: {exc}", None)
    return ProviderError("request", f"request failed ({status}): {body[:200]}", status)


PROVIDER_CLASSES: dict[str, Any] = {}
"""Provider name → class taking ``(ref, key, base_url, role)``; each provider module adds
itself (see :mod:`proctor.llm.providers`)."""
