"""Calling a model for one of proctor's roles, with bounded retries and a record of every call.

Providers are reached through their official SDKs (``anthropic``, ``openai``), which also serve
any compatible endpoint through a base URL. Retries with exponential backoff on 429, 5xx and
connection errors (a rate limit or an overload that names no wait of its own backs off for tens
of seconds: see :func:`backoff`); ``insufficient_quota`` and authentication failures are never
retried. Failures are classified by :mod:`proctor.llm.failures`.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from proctor.llm.failures import RETRY_AFTER_CAP_SEC, ProviderError, excerpt
from proctor.llm.refs import ModelRef
from proctor.util.masking import mask

MAX_ATTEMPTS = 4
BACKOFF_BASE_SEC = 0.5
BACKOFF_CAP_SEC = 8.0
"""The waits after a server error or a lost connection: 0.5 s doubling, up to 8 s."""
LIMITED_BACKOFF_BASE_SEC = 10.0
LIMITED_BACKOFF_CAP_SEC = RETRY_AFTER_CAP_SEC
"""The waits after a rate limit or an overload (429, 529, 503) that names no wait of its own
(no ``Retry-After``): 10 s doubling, up to 60 s, as a provider's limit is often per minute."""
LIMITED_STATUSES = frozenset({503})
"""Statuses waited on as an overload whatever their kind (a 503 is "server" otherwise)."""
REQUEST_TIMEOUT_SEC = 120.0
"""The longest one request may take (a reply or an error); a call may make four."""
LAST_ATTEMPT_SEC = 5.0
"""A wait that would not end before the call's deadline is cut to end this many seconds
before it, for one more attempt (none when less is left, or when the provider named a longer
wait of its own)."""
OUT_OF_TIME = "no reply before the trial's time ran out"
T = TypeVar("T")


@dataclass
class Completion:
    text: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    logprobs: list[float] | None = None
    latency_ms: float = 0.0
    attempts: int = 1
    cache_read_tokens: int = 0
    """Prompt tokens the provider read from its cache (not in ``input_tokens``)."""
    cache_write_tokens: int = 0


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
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


class Provider(Protocol):
    def complete(
        self, system: str, user: str, *, max_tokens: int, logprobs: bool, timeout: float
    ) -> Completion: ...

    def check_key(self, timeout: float) -> None:
        """One cheap authenticated request; raises :class:`ProviderError` when it fails."""
        ...

    def check_model(self, model: str, timeout: float) -> None:
        """The provider's lookup of one model (free, as the models list is); raises
        :class:`ProviderError` when it fails, with status 404 when there is no such model (or
        no such lookup: a gateway without one)."""
        ...

    def model_ids(self, timeout: float) -> list[str]:
        """The ids of the models the provider lists (its models list)."""
        ...

    client: Any
    """The SDK's client the calls are made with."""

    def abandon(self, client: Any) -> None:
        """End the calls ``client`` is making (shut down its connections) and close it; the
        calls after are made with a new client (see :func:`within`)."""
        ...


class RenewedClient:
    """A provider whose SDK client is made anew when a call is cut off by its deadline (see
    :func:`within`): ``_make()`` gives a client and the HTTP client it was given."""

    client: Any
    _http: Any
    _make: Callable[[], tuple[Any, Any]]

    def _connect(
        self, sdk: Any, sdk_client: Any, key: str, base_url: str | None, role: str
    ) -> None:
        """Make ``sdk_client`` (a client class of the SDK module ``sdk``), and keep how to make
        it again: its HTTP client is the SDK's own default one, whose connections are kept to
        be shut down when a call is cut off (see :mod:`proctor.llm.connections`)."""
        from proctor.llm import connections  # (httpx2 with the SDK, when one is made)

        def make() -> tuple[Any, Any]:
            http = connections.http_client(sdk.DefaultHttpxClient)
            client = sdk_client(
                api_key=key,
                base_url=base_url,
                max_retries=0,
                timeout=REQUEST_TIMEOUT_SEC,
                default_headers={"X-Proctor-Role": role},
                http_client=http,
            )
            return client, http

        self._make = make
        self.client, self._http = make()

    def abandon(self, client: Any) -> None:
        """End the calls ``client`` is making (one cut off by its deadline): its connections'
        sockets are shut down and it is closed; a new client makes the calls after it."""
        from proctor.llm import connections  # (httpx2, loaded with the SDK)

        if self.client is not client:  # (already abandoned)
            return
        http = self._http
        self.client, self._http = self._make()
        connections.cut(http)
        client.close()


@dataclass
class ModelClient:
    """One role's model. ``calls`` collects a record of every call for cost and time roll-ups.

    ``deadline`` (a value of ``clock``, ``time.monotonic``; None for none) bounds every call,
    retries and their waits included: while an agent waits on an answer, the trial's own
    timeout."""

    role: str
    ref: ModelRef
    provider: Provider
    calls: list[CallRecord] = field(default_factory=list)
    sleep: Any = time.sleep
    deadline: float | None = None
    out_of_time: str = OUT_OF_TIME
    """What a call cut off by ``deadline`` says (whose time ran out)."""
    key_source: str | None = None
    """Where the key sent was found, masked (see :func:`proctor.llm.secrets.key_source`): an
    authentication failure names it."""
    jitter: Callable[[], float] = random.random
    """A number from 0 to 1 drawn for each wait (see :func:`backoff`)."""
    clock: Callable[[], float] = time.monotonic
    """The time ``deadline`` is a value of."""

    def close(self) -> None:
        """Close the connections of the provider's client (the SDK's own); no call is made
        after. The records of the calls made stay."""
        close = getattr(getattr(self.provider, "client", None), "close", None)
        if callable(close):
            try:
                close()
            except Exception:  # (a client that cannot close holds nothing more to give back)
                pass

    def complete(
        self, system: str, user: str, *, max_tokens: int = 1024, logprobs: bool = False
    ) -> Completion:
        # No registered secret leaves the machine in a prompt (a key the agent printed, in the
        # material a judge reads or the screen an answering model sees).
        system, user = mask(system), mask(user)
        started = self.clock()
        for attempt in range(1, MAX_ATTEMPTS + 1):
            left = self._left()
            try:
                if left is not None and left <= 0:
                    raise ProviderError("network", self.out_of_time)
                result = self.provider.complete(
                    system,
                    user,
                    max_tokens=max_tokens,
                    logprobs=logprobs,
                    timeout=min(REQUEST_TIMEOUT_SEC, left or REQUEST_TIMEOUT_SEC),
                )
            except ProviderError as exc:
                # (The scripted model's rate limits are scripted, not a provider's window.)
                scripted = self.ref.provider == "scripted"
                delay = backoff(exc, attempt, self.jitter(), patient=not scripted)
                wait = self._wait(exc, delay)
                out_of_time = wait is None and attempt < MAX_ATTEMPTS
                if not exc.retryable or attempt == MAX_ATTEMPTS or wait is None:
                    exc = self._final(exc, attempt, started, out_of_time)
                    self.calls.append(
                        CallRecord(
                            self.role,
                            str(self.ref),
                            exc.input_tokens,
                            exc.output_tokens,
                            (self.clock() - started) * 1000,
                            attempt,
                            False,
                            str(exc),
                        )
                    )
                    raise exc from exc.__cause__
                self.sleep(wait)
                continue
            result.latency_ms = (self.clock() - started) * 1000
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
                    cache_read_tokens=result.cache_read_tokens,
                    cache_write_tokens=result.cache_write_tokens,
                )
            )
            return result
        raise AssertionError("unreachable")

    def _final(
        self, exc: ProviderError, attempt: int, started: float, out_of_time: bool
    ) -> ProviderError:
        """The error a call ends with: a retryable one says how many attempts were made in
        how long, and when the deadline cut the retries short; a refused key names where the
        key sent was found (masked, never the key)."""
        said = str(exc)
        if exc.retryable:
            if out_of_time and said != self.out_of_time:
                said += f"; {self.out_of_time}"
            took = self.clock() - started
            tries = "1 attempt" if attempt == 1 else f"{attempt} attempts"
            said += f" (gave up after {tries} in {took:.1f} s)"
        elif exc.kind == "auth" and self.key_source:
            said += f" (the key sent: {self.key_source})"
        if said == str(exc):
            return exc
        final = ProviderError(exc.kind, said, exc.status, exc.retry_after)
        final.input_tokens, final.output_tokens = exc.input_tokens, exc.output_tokens
        final.token_limit = exc.token_limit
        final.__cause__ = exc.__cause__
        return final

    def _left(self) -> float | None:
        return None if self.deadline is None else self.deadline - self.clock()

    def _wait(self, exc: ProviderError, delay: float) -> float | None:
        """How long to wait before the next attempt after ``exc`` (whose backoff is ``delay``),
        None when no attempt is worth making before the deadline: ``delay`` when it leaves the
        next attempt :data:`LAST_ATTEMPT_SEC`; else, for a last attempt given those seconds,
        what is left but them, when more than that is left and the provider named no longer
        wait of its own (a retry before its ``Retry-After`` would be refused again); else, with
        little time in all, ``delay`` when it ends before the deadline."""
        left = self._left()
        if left is None or delay <= left - LAST_ATTEMPT_SEC:
            return delay
        wait = left - LAST_ATTEMPT_SEC
        if wait > 0 and wait >= (exc.retry_after or 0.0):
            return wait
        return delay if delay < left else None


def backoff(exc: ProviderError, attempt: int, draw: float, *, patient: bool = True) -> float:
    """The seconds to wait after ``exc`` ended attempt number ``attempt`` (from 1): exponential,
    the doubling wait times 0.5 plus half of ``draw`` (a random number from 0 to 1), so that
    calls limited together do not all come back at once. A server error or a lost connection
    waits 0.5 s doubling (up to 8 s); a rate limit or an overload (429, 529, 503) that names
    no wait of its own, 10 s doubling (up to 60 s: 5-10, 10-20, 20-40 s, 35-70 s in all over
    four attempts), which a limit per minute can reset in; ``patient`` False, the short waits
    for it too. A ``Retry-After`` the reply gives (see :func:`proctor.llm.failures.retry_after`)
    is waited when longer than the short wait."""
    limited = exc.kind in ("rate-limit", "overloaded") or exc.status in LIMITED_STATUSES
    if patient and limited and exc.retry_after is None:
        base, cap = LIMITED_BACKOFF_BASE_SEC, LIMITED_BACKOFF_CAP_SEC
    else:
        base, cap = BACKOFF_BASE_SEC, BACKOFF_CAP_SEC
    delay = min(cap, base * 2.0 ** (attempt - 1)) * (0.5 + min(max(draw, 0.0), 1.0) / 2)
    # The provider's own Retry-After, when longer (a 429 that names its wait).
    return max(delay, exc.retry_after or 0.0)


def token_count(value: Any) -> int:
    """A reply's token count, 0 when the server leaves it out or sends something else."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def unexpected_response(ref: ModelRef, problem: str, response: Any) -> ProviderError:
    """A 200 reply whose shape is not the provider's (an HTML page from a proxy, ``{}``, no
    choices): a provider failure of kind ``response``, so callers treat it like any other."""
    message = f"unexpected reply from {ref}: {problem}"
    if isinstance(response, str):  # the SDKs hand back a non-JSON body as text
        message += f" (the body is not JSON: {excerpt(response, 120, quoted=True)})"
    return ProviderError("response", message)


def cut_before_text(
    ref: ModelRef, max_tokens: int, usage: Any, names: tuple[str, str]
) -> ProviderError:
    """A reply that stopped at its token limit before any text: a provider failure, not an
    empty answer (a reasoning model can spend the whole limit thinking). It keeps the tokens
    the reply cost (``names``: the usage fields of input and output tokens)."""
    error = ProviderError(
        "response",
        f"unexpected reply from {ref}: it reached its token limit ({max_tokens}) before any "
        "text (a reasoning model can spend the whole limit thinking)",
    )
    error.token_limit = max_tokens
    error.input_tokens = token_count(getattr(usage, names[0], 0))
    error.output_tokens = token_count(getattr(usage, names[1], 0))
    return error


PROVIDER_CLASSES: dict[str, Any] = {}
"""Provider name → class taking ``(ref, key, base_url, role)``; each provider module adds
itself (see :mod:`proctor.llm.providers`)."""


def within(timeout: float, call: Callable[[], T], abandon: Callable[[], None]) -> T:
    """``call()``'s result (or its exception), within ``timeout`` seconds in all. The SDKs'
    timeout bounds each step (the connection, each read), not the whole: a server that sends
    its reply a byte at a time, or a header line every few seconds, would hold the call for
    as long as it kept sending. So the call runs in a thread of its own; one not over in time
    is a network failure (retried like any), and ``abandon()`` shuts its connections down:
    closing them would not wake the thread's blocked read (see :mod:`proctor.llm.connections`).
    The thread (a daemon) ends then, its error swallowed."""
    outcome: list[T] = []
    raised: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(call())
        except BaseException as exc:
            raised.append(exc)

    worker = threading.Thread(target=run, name="provider-call", daemon=True)
    worker.start()
    worker.join(timeout)
    if raised:
        raise raised[0]
    if outcome:
        return outcome[0]
    try:
        abandon()
    except Exception:
        pass
    raise ProviderError("network", f"network error: no reply within {round(timeout, 1):g} s")
