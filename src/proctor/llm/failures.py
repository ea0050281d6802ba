"""One classifier for failures of the models behind an agent or a role: an agent CLI's error text
and the provider SDKs' exceptions get the same kinds and the same words.

========== ============================ ===========================================
kind       said as                      recognised by
========== ============================ ===========================================
quota      quota exhausted              "insufficient_quota", "credit balance", "billing"
auth       authentication failed        401/403 as an API error says it, the SDKs'
                                        AuthenticationError and PermissionDeniedError,
                                        the CLIs' rejected-key phrases,
                                        a 400 naming an invalid key (Google's
                                        "API_KEY_INVALID")
rate-limit rate limited                 429, RateLimitError, "rate limit"
overloaded provider overloaded          529, "overloaded"
server     server error                 other 5xx, InternalServerError
network    network error                the SDKs' APIConnectionError (timeouts included)
request    API error                    another HTTP status
response   unexpected reply             a 200 reply of the wrong shape
agent      agent error                  anything else an agent printed
========== ============================ ===========================================
"""

from __future__ import annotations

import datetime
import email.utils
import importlib
import json
import math
import re
import sys
import time
from typing import Any, Literal

from proctor.errors import ProctorError
from proctor.models.trial import AttemptRecord
from proctor.util.masking import mask

FailureKind = Literal[
    "quota", "auth", "rate-limit", "overloaded", "server", "network", "request", "response", "agent"
]
LABELS: dict[FailureKind, str] = {
    "quota": "quota exhausted",
    "auth": "authentication failed",
    "rate-limit": "rate limited",
    "overloaded": "provider overloaded",
    "server": "server error",
    "network": "network error",
    "request": "API error",
    "response": "unexpected reply",
    "agent": "agent error",
}
RETRYABLE: frozenset[FailureKind] = frozenset({"rate-limit", "overloaded", "server", "network"})
AGENT_TEXT_CHARS = 300
BODY_EXCERPT = 200

#: Words that put a number in an HTTP-status context: "API Error: 401", '"code": 403',
#: "statusCode: 429", "HTTP/1.1 529", "status code 500".
_STATUS_CONTEXT = r"(?:status|code|error|api|http(?:/[\d.]+)?)[\"'\s:=]{0,4}"
#: The reason phrase that may follow a bare status: "403 Forbidden".
_STATUS_REASON = r"\s+(?:unauthorized|forbidden|too many requests|bad request|overloaded)"
#: Messages of a rejected or missing credential, from Claude, Codex and Gemini, as their own
#: API errors word them (not a word such as "authentication" anywhere in the text: a Node
#: crash ``(reading 'authentication')``, or an MCP server's ``authentication required``, is
#: no provider refusing the agent's key).
_AUTH_PHRASES = (
    "authentication_error",
    "failed to authenticate",
    "invalid x-api-key",
    "invalid api key",
    "incorrect api key",
    "api key not valid",
    "permission_denied",
    "please run /login",
    "please log in",
    "login required",
    "no api key",
    "api key not found",
    "missing api key",
)
_AUTH_WORDS = re.compile(r"(?i)\bnot logged in\b|\"status\"\s*:\s*\"unauthenticated\"")
"""Claude Code's ``Not logged in`` (not ``not logged into any GitHub hosts``, gh's) and a
Google error body's ``"status": "UNAUTHENTICATED"``."""
_AUTH_STATUS = re.compile(
    r"(?i)(?:\bapi error:?\s*(?:\{\s*\"error\"\s*:\s*\{\s*\"code\"\s*:\s*)?"
    r"|\bunexpected status\s+|\berror code:\s*|^\s*\{\s*\"status\"\s*:\s*)"
    r"(?:401|403)(?!\d|[.:]\d)"
)
"""A 401 or 403 as the agent CLIs and SDKs word their provider's answer: ``API Error: 401``
(Claude Code), ``[API Error: {"error":{"code":403`` (Gemini CLI), ``unexpected status 403
Forbidden`` (Codex), ``Error code: 401 -`` (the OpenAI SDK), a reply that is a JSON error body
``{"status": 401``. Not a status a tool or a test quotes: ``Request failed with status code
403`` (axios), ``assert response.status_code == 403``, ``"code": 403`` in a tool's JSON, a line
``Error: 403 Forbidden``, ``curl: (22) The requested URL returned error: 403``."""
_CODEX_REFUSAL = re.compile(r"(?im)^\s*error:\s*(?:401\s+unauthorized|403\s+forbidden)\b")
"""Codex's own stderr line for a refused key, ``Error: 401 Unauthorized``: read on Codex's
stderr only (see :func:`codex_refused`), where no tool's output goes."""
AUTH_FIX = (
    "the agent's key or login is missing or was refused: proctor lends it the key variables "
    "in your environment and the login in your home unless its profile says "
    '"credentials": "none" (docs/agents.md#credentials)'
)
_QUOTA_PHRASES = ("insufficient_quota", "credit balance", "quota", "billing")
_NETWORK_PHRASES = (
    "unable to connect",
    "failedtoopensocket",
    "econnrefused",
    "econnreset",
    "enotfound",
    "etimedout",
    "eai_again",
    "connection refused",
    "connection reset",
    "fetch failed",
    "socket hang up",
    "getaddrinfo",
    "could not resolve host",
    "network is unreachable",
)
"""How an agent CLI says it could not reach its provider at all (Claude Code's "Unable to
connect to API (FailedToOpenSocket)", Node's error codes): no reply, so no status."""


class ProviderError(ProctorError):
    """A model call failed for good; ``kind`` is a :data:`FailureKind`."""

    def __init__(
        self,
        kind: FailureKind,
        message: str,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.kind: FailureKind = kind
        self.status = status
        self.retry_after = retry_after
        """Seconds the provider asked to wait before another try (its ``Retry-After``)."""
        self.input_tokens = 0
        self.output_tokens = 0
        """What a reply that came back unusable still cost (one cut at its token limit)."""
        self.token_limit: int | None = None
        """The limit a reply reached before any text, when that is what went wrong."""

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE


def excerpt(text: str, limit: int = BODY_EXCERPT, *, quoted: bool = False) -> str:
    """The first ``limit`` characters of ``text`` with every registered key masked; cut only
    after masking the whole text, so no part of a key survives the cut (a window cut before
    masking could split a key that the masks before it bring within ``limit``). A text cut is
    marked so, with its whole length (masked): ``… (cut: 1,234 characters in all)``.
    ``quoted``: the kept text as a Python string literal, the mark after its closing quote."""
    masked = mask(text)
    head = masked[: max(limit, 0)]
    shown = repr(head) if quoted else head
    return shown if len(masked) <= limit else f"{shown}… (cut: {len(masked):,} characters in all)"


def has_status(text: str, codes: str) -> bool:
    """Whether ``text`` carries one of ``codes`` (a regex alternation) as an HTTP status: a whole
    number after a status word or before a reason phrase, so that digits in a line number
    (``cli.js:1401``) or a token count (``8529``) do not count."""
    code = rf"(?<![\d.])(?:{codes})(?!\d|[.:]\d)"
    return bool(
        re.search(rf"(?i){_STATUS_CONTEXT}{code}", text)
        or re.search(rf"(?i){code}{_STATUS_REASON}", text)
    )


def kind_of_text(text: str) -> FailureKind:
    """The kind of failure an agent's error message describes."""
    lowered = text.lower()
    if any(p in lowered for p in _QUOTA_PHRASES):
        return "quota"
    if _AUTH_STATUS.search(text) or _AUTH_WORDS.search(text):
        return "auth"
    if any(p in lowered for p in _AUTH_PHRASES):
        return "auth"
    if has_status(text, "429") or "rate limit" in lowered or "too many requests" in lowered:
        return "rate-limit"
    if has_status(text, "529") or "overloaded" in lowered:
        return "overloaded"
    if any(p in lowered for p in _NETWORK_PHRASES):
        return "network"
    if "api error" in lowered or has_status(text, r"[45]\d\d"):
        return "request"
    return "agent"


_ROLE_REFUSED = re.compile(
    rf"(?:answering model|judge) (\S+) failed: {re.escape(LABELS['auth'])}(?: \(\d+\))?: "
)
"""Where the reason of a trial whose answering model or judge was refused its key says so
(and the model, ``provider/model``)."""


def refused_said(status: str, reason: str) -> bool:
    """Whether a trial (or an attempt of one) that ended in ``status`` for ``reason`` met a
    key a provider refused: its agent could not authenticate (``agent-error``, ``authentication
    failed: …``), or proctor's answering model or judge was refused (see
    :func:`refused_model_in`)."""
    auth = LABELS["auth"]
    agent = status == "agent-error" and reason.startswith((f"{auth}:", f"{auth} ("))
    return agent or refused_model_in(status, reason) is not None


def retried_attempt(attempt: AttemptRecord) -> bool:
    """Whether a trial's earlier ``attempt`` was a retry of an error (``--retry-errors``), not
    one that met a key a provider refused (which a resume runs again whatever
    ``--retry-errors`` says)."""
    return not refused_said(attempt.status, attempt.reason)


def refused_model_in(status: str, reason: str) -> str | None:
    """The model (``provider/model``) of proctor's answering model or judge whose key a trial
    that ended in ``status`` for ``reason`` was refused; None when none was."""
    if status not in ("infra-error", "eval-error"):
        return None
    found = _ROLE_REFUSED.search(reason)
    return found.group(1) if found is not None else None


def codex_refused(stderr: str) -> bool:
    """Whether Codex's stderr ends on its own refused-key line (``Error: 401 Unauthorized``)."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    return bool(lines) and bool(_CODEX_REFUSAL.match(lines[-1]))


def describe_agent_failure(text: str, kind: FailureKind | None = None) -> str:
    """``<what failed>: <the agent's own words>`` for a trial's reason, their first
    :data:`AGENT_TEXT_CHARS` characters, marked when cut (``… (cut: 1,234 characters in
    all)``, after the label ``--retry-errors`` reads, so that a cut changes nothing of how the
    reason is classified); an authentication failure also says what to do about it. ``kind``:
    what the caller knows the failure to be (Codex's own refused-key line on its stderr, an
    ACP agent's ``auth_required`` error), else :func:`kind_of_text` reads it."""
    kind = kind or kind_of_text(text)
    # Masked before it is cut (see excerpt): a key the message quotes, cut in two, is no longer
    # the key the masker knows, and its first part would be kept.
    said = f"{LABELS[kind]}: {excerpt(text.strip(), AGENT_TEXT_CHARS)}"
    return f"{said} ({AUTH_FIX})" if kind == "auth" else said


def _sdk_class(name: str) -> tuple[type[BaseException], ...]:
    """The SDKs' exception class ``name``, from each SDK that is already loaded (an exception
    of an SDK that was never imported cannot have been raised)."""
    found = []
    for module in ("anthropic", "openai"):
        if module in sys.modules:
            cls = getattr(importlib.import_module(module), name, None)
            if isinstance(cls, type) and issubclass(cls, BaseException):
                found.append(cls)
    return tuple(found)


def kind_of_sdk_error(exc: BaseException) -> FailureKind:
    """The kind of failure a provider SDK raised, by its exception class and HTTP status."""
    status = getattr(exc, "status_code", None)
    raw = str(getattr(exc, "body", "") or exc).lower()
    if any(p in raw for p in ("insufficient_quota", "credit balance")):
        return "quota"
    if isinstance(exc, _sdk_class("AuthenticationError") + _sdk_class("PermissionDeniedError")):
        return "auth"
    if isinstance(exc, _sdk_class("RateLimitError")) or status == 429:
        return "rate-limit"
    if isinstance(exc, _sdk_class("APIConnectionError")):
        return "network"
    if status in (401, 403) or (status == 400 and _names_invalid_key(raw)):
        return "auth"
    if status == 529:
        return "overloaded"
    if isinstance(exc, _sdk_class("InternalServerError")) or (
        isinstance(status, int) and status >= 500
    ):
        return "server"
    return "request"


_INVALID_KEY_PHRASES = ("api_key_invalid", "api key not valid")
"""How a provider that answers a refused key with a 400 says so: Google's Gemini endpoints
(the OpenAI-compatible one included) reply ``400 INVALID_ARGUMENT`` with the reason
``API_KEY_INVALID`` and the message "API key not valid", where others say 401 or 403."""


def _names_invalid_key(raw: str) -> bool:
    """Whether a 400's lowered body says the key was refused (not a malformed request)."""
    return any(p in raw for p in _INVALID_KEY_PHRASES)


def provider_error(exc: BaseException, model: str | None = None) -> ProviderError:
    """The SDK's exception as a :class:`ProviderError`, its message masked and bounded; a 404
    whose body does not name ``model`` (the model a completion asked for) says the address was
    not found, with the base URL's variables (see :func:`_not_found`)."""
    if isinstance(exc, json.JSONDecodeError):
        # A reply declared JSON whose body is not (a proxy's HTML page, a body cut short): the
        # SDKs raise the parser's own error, which says nothing of the reply.
        said = excerpt(exc.doc, 120, quoted=True) if isinstance(exc.doc, str) else "''"
        return ProviderError(
            "response", f"{LABELS['response']}: the body is not JSON ({exc.msg}): {said}"
        )
    kind = kind_of_sdk_error(exc)
    status = getattr(exc, "status_code", None)
    status = status if isinstance(status, int) else None
    if kind == "network":
        return ProviderError(kind, f"{LABELS[kind]}: {excerpt(str(exc))}", None)
    body = excerpt(said_by_provider(getattr(exc, "body", None)) or str(exc))
    label = LABELS[kind] if status is None else f"{LABELS[kind]} ({status})"
    said = f"{label}: {body}{_not_found(exc, model) if status == 404 else ''}"
    return ProviderError(kind, said, status, retry_after(exc))


def _not_found(exc: BaseException, model: str | None) -> str:
    """What a 404 that is not the provider saying it has no such model (its body names the
    model) means: the base URL leads to no API, most often an OpenAI-compatible server's
    given without its ``/v1``. Empty for a 404 naming the model, or when no model is known."""
    if model is None or model.lower() in str(getattr(exc, "body", "") or exc).lower():
        return ""
    url: Any = getattr(getattr(getattr(exc, "response", None), "request", None), "url", None)
    where = "the address called"
    try:  # (without its query, or a user and password it may hold)
        port = f":{url.port}" if url.port else ""
        where = f"{url.scheme}://{url.host}{port}{url.path}"
    except AttributeError:
        pass
    openai = "openai" in type(exc).__module__
    provider = "OPENAI" if openai else "ANTHROPIC"
    advice = (
        "an OpenAI-compatible server's usually ends in /v1"
        if openai
        else "it is the server's root: the SDK adds /v1/messages"
    )
    return (
        f" ({excerpt(where, 120)} was not found: check the base URL in "
        f"PROCTOR_{provider}_BASE_URL, {provider}_BASE_URL or PROCTOR_BASE_URL; {advice})"
    )


def said_by_provider(body: object) -> str:
    """What an error reply's body says, as its provider wrote it: a JSON error's type and
    message (``authentication_error: invalid x-api-key``; the SDKs hand the body over parsed,
    Anthropic's whole, OpenAI's ``error`` object, Google's a list holding one), other JSON as
    JSON, never as a Python ``repr`` (``{'type': 'error', …}``); text as it is."""
    if isinstance(body, str) or body is None:
        return body or ""
    if isinstance(body, dict | list) and not body:  # `{}` says nothing: the SDK's text does
        return ""
    error: object = body[0] if isinstance(body, list) and body else body
    if isinstance(error, dict) and isinstance(error.get("error"), dict):
        error = error["error"]
    if not isinstance(error, dict):
        error = {}
    message = error.get("message")
    if isinstance(message, str) and message.strip():
        labels = [error.get(name) for name in ("type", "code", "status")]
        label = next((x for x in labels if isinstance(x, str) and x.strip()), None)
        return f"{label}: {message}" if label else message
    try:
        return json.dumps(body, ensure_ascii=False, default=str)
    except (TypeError, ValueError):  # (a value json cannot write, such as a circular one)
        return str(body)


RETRY_AFTER_CAP_SEC = 60.0
"""The longest wait a provider's ``Retry-After`` gets: a longer one is waited this long."""


def retry_after(exc: BaseException, now: float | None = None) -> float | None:
    """The seconds an SDK error's response asks to wait (``Retry-After``: a number of seconds,
    or an HTTP-date, RFC 9110, whose wait is that date less ``now``, the clock's time when not
    given, and 0 once it is past), at most :data:`RETRY_AFTER_CAP_SEC`; None without one."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    try:
        value = headers.get("retry-after")
    except Exception:  # a stand-in response without a mapping of headers
        return None
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        until = _seconds_until(value, time.time() if now is None else now)
        if until is None:
            return None
        seconds = until
    if not math.isfinite(seconds) or seconds < 0:
        return None
    return min(seconds, RETRY_AFTER_CAP_SEC)


def _seconds_until(value: object, now: float) -> float | None:
    """The seconds from ``now`` to the HTTP-date ``value`` (``Wed, 21 Oct 2026 07:28:00 GMT``,
    or one of the obsolete forms RFC 9110 still accepts), 0 for a date past; None for another
    text."""
    if not isinstance(value, str):
        return None
    try:
        when = email.utils.parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:  # "-0000" or no zone: an HTTP-date is in GMT
        when = when.replace(tzinfo=datetime.UTC)
    try:
        return max(0.0, when.timestamp() - now)
    except (OverflowError, OSError, ValueError):
        return None
