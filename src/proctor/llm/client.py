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
from proctor.llm.secrets import mask

MAX_ATTEMPTS = 4
BACKOFF_BASE_SEC = 0.5
BACKOFF_CAP_SEC = 8.0


class ProviderError(ProctorError):
    """A model call failed for good. ``kind``: auth, quota, rate-limit, server, network, request,
    or response (a 200 reply the provider's format does not explain)."""

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


BODY_EXCERPT = 200
MASK_WINDOW = BODY_EXCERPT + 8_192
"""Masking runs over this much of an error body before the excerpt is cut, so a key that
straddles the excerpt's end is masked whole rather than left as a prefix (keys are far shorter)."""


def excerpt(text: str, limit: int = BODY_EXCERPT) -> str:
    """The first ``limit`` characters of ``text`` with every registered key masked; cut only
    after masking, so no part of a key survives the cut."""
    return mask(text[:MASK_WINDOW])[:limit]


def classify_sdk_error(exc: Exception) -> ProviderError:
    """The SDK's exception as a :class:`ProviderError`, its message masked and bounded."""
    status = getattr(exc, "status_code", None)
    raw = str(getattr(exc, "body", "") or exc)
    body = excerpt(raw)
    name = type(exc).__name__
    if "insufficient_quota" in raw or "credit balance" in raw.lower():
        return ProviderError("quota", f"quota exhausted ({status}): {body}", status)
    if status in (401, 403) or name in ("AuthenticationError", "PermissionDeniedError"):
        return ProviderError("auth", f"authentication failed ({status}): {body}", status)
    if status == 429:
        return ProviderError("rate-limit", f"rate limited (429): {body}", status)
    if isinstance(status, int) and status >= 500:
        return ProviderError("server", f"server error ({status}): {body}", status)
    if "Connection" in name or "Timeout" in name:
        return ProviderError("network", f"network error: {excerpt(str(exc))}", None)
    return ProviderError("request", f"request failed ({status}): {body}", status)


def token_count(value: Any) -> int:
    """A reply's token count, 0 when the server leaves it out or sends something else."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def unexpected_response(ref: ModelRef, problem: str, response: Any) -> ProviderError:
    """A 200 reply whose shape is not the provider's (an HTML page from a proxy, ``{}``, no
    choices): a provider failure of kind ``response``, so callers treat it like any other."""
    message = f"unexpected reply from {ref}: {problem}"
    if isinstance(response, str):  # the SDKs hand back a non-JSON body as text
        message += f" (the body is not JSON: {excerpt(response, 120)!r})"
    return ProviderError("response", message)


PROVIDER_CLASSES: dict[str, Any] = {}
"""Provider name → class taking ``(ref, key, base_url, role)``; each provider module adds
itself (see :mod:`proctor.llm.providers`)."""
