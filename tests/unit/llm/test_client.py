"""Provider errors: classified by the SDKs' own exception classes, masked before they are cut,
and never a raw exception."""

from __future__ import annotations

import time

import anthropic
import httpx2 as httpx
import openai
import pytest

from proctor.llm.failures import provider_error
from proctor.util import masking

KEY = "sk-test-SECRETKEY-" + "z" * 40
BODY_EXCERPT = 200  # how much of an error body a message quotes
REQUEST = httpx.Request("POST", "https://models.example/v1/messages")
CLASSES = {
    400: "BadRequestError",
    401: "AuthenticationError",
    403: "PermissionDeniedError",
    429: "RateLimitError",
    500: "InternalServerError",
}


def status_error(sdk: object, status: int, body: str) -> Exception:
    cls = getattr(sdk, CLASSES.get(status, "APIStatusError"))
    response = httpx.Response(status, request=REQUEST)
    error: Exception = cls(body, response=response, body=body)
    return error


@pytest.fixture(autouse=True)
def planted_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(KEY)


@pytest.mark.parametrize("sdk", [anthropic, openai])
@pytest.mark.parametrize("at", [0, 150, BODY_EXCERPT - 30, BODY_EXCERPT - 12, BODY_EXCERPT - 1])
@pytest.mark.parametrize("status", [401, 429, 500, 400])
def test_a_key_echoed_near_the_cut_leaves_no_trace(sdk: object, at: int, status: int) -> None:
    body = "a" * at + f"Bearer {KEY} is not valid" + "b" * 300
    error = provider_error(status_error(sdk, status, body))
    assert KEY[:8] not in str(error), str(error)
    assert "***" in str(error) or at + len("Bearer ") >= BODY_EXCERPT


@pytest.mark.parametrize("sdk", [anthropic, openai])
@pytest.mark.parametrize(
    ("status", "kind", "retryable"),
    [
        (401, "auth", False),
        (403, "auth", False),
        (429, "rate-limit", True),
        (500, "server", True),
        (529, "overloaded", True),
        (400, "request", False),
    ],
)
def test_the_sdks_classes_decide_the_kind(
    sdk: object, status: int, kind: str, retryable: bool
) -> None:
    error = provider_error(status_error(sdk, status, "nope"))
    assert (error.kind, error.retryable, error.status) == (kind, retryable, status)


@pytest.mark.parametrize("sdk", [anthropic, openai])
def test_a_quota_message_is_quota_whatever_the_status(sdk: object) -> None:
    body = '{"error": {"code": "insufficient_quota"}}'
    assert provider_error(status_error(sdk, 429, body)).kind == "quota"


@pytest.mark.parametrize("sdk", [anthropic, openai])
def test_a_connection_error_is_network_and_masked(sdk: object) -> None:
    exc = sdk.APIConnectionError(message=f"cannot reach https://x/?key={KEY}", request=REQUEST)  # type: ignore[attr-defined]
    error = provider_error(exc)
    assert error.kind == "network" and KEY[:8] not in str(error)
    timeout = sdk.APITimeoutError(request=REQUEST)  # type: ignore[attr-defined]
    assert provider_error(timeout).kind == "network"


def test_control_a_class_named_like_the_sdks_is_not_taken_for_it() -> None:
    class APIConnectionError(Exception):
        """Named like the SDKs' connection error; classification goes by class, not name."""

    assert provider_error(APIConnectionError("boom")).kind == "request"


def test_the_excerpt_stays_bounded_and_says_it_was_cut() -> None:
    error = provider_error(status_error(anthropic, 500, "x" * 100_000))
    assert error.kind == "server" and len(str(error)) < BODY_EXCERPT + 80
    assert str(error).endswith("x… (cut: 100,000 characters in all)")


def test_an_excerpt_counts_the_body_as_masked_and_a_short_one_has_no_mark() -> None:
    body = f"key {KEY} refused " + "y" * 300
    error = provider_error(status_error(openai, 400, body))
    masked = len(body) - len(KEY) + len("***")
    assert str(error).endswith(f"y… (cut: {masked:,} characters in all)")
    assert KEY[:8] not in str(error)
    assert str(provider_error(status_error(openai, 400, "y" * BODY_EXCERPT))).endswith("y")


@pytest.mark.parametrize("sdk", [anthropic, openai])
def test_a_rate_limit_s_retry_after_is_waited(sdk: object) -> None:
    from proctor.llm.client import Completion, ModelClient
    from proctor.llm.failures import RETRY_AFTER_CAP_SEC
    from proctor.llm.refs import ModelRef

    def limited(seconds: str) -> Exception:
        cls = getattr(sdk, CLASSES[429])
        response = httpx.Response(429, request=REQUEST, headers={"retry-after": seconds})
        error: Exception = cls("rate limited", response=response, body="rate limited")
        return error

    assert provider_error(limited("5")).retry_after == 5.0
    assert provider_error(limited("9999")).retry_after == RETRY_AFTER_CAP_SEC
    assert provider_error(limited("Wed, 21 Oct 2015 07:28:00 GMT")).retry_after == 0.0  # past
    assert provider_error(limited("soon")).retry_after is None
    assert provider_error(status_error(sdk, 500, "x")).retry_after is None

    class Once:
        prompts: list[str] = []

        def complete(self, system: str, user: str, **_: object) -> Completion:
            self.prompts.append(user)
            if len(self.prompts) == 1:
                raise provider_error(limited("5"))
            return Completion("ok", "m")

    waits: list[float] = []
    provider = Once()
    client = ModelClient("judge", ModelRef("anthropic", "m"), provider, sleep=waits.append)
    assert client.complete("s", f"the agent printed {KEY}").text == "ok"
    assert waits and waits[0] >= 5.0  # not the 0.25-0.5 s of the first backoff
    # No registered secret leaves the machine in a prompt.
    assert all(KEY not in p and "***" in p for p in provider.prompts)


@pytest.mark.parametrize("sdk", [anthropic, openai])
def test_a_retry_after_given_as_an_http_date_is_the_wait_until_it(sdk: object) -> None:
    import email.utils

    from proctor.llm.failures import RETRY_AFTER_CAP_SEC, retry_after

    now = 1_800_000_000.0

    def limited(value: str) -> Exception:
        cls = getattr(sdk, CLASSES[429])
        response = httpx.Response(429, request=REQUEST, headers={"retry-after": value})
        error: Exception = cls("rate limited", response=response, body="rate limited")
        return error

    def date(at: float) -> str:
        return email.utils.formatdate(at, usegmt=True)  # Fri, 15 Jan 2027 08:00:00 GMT for now

    assert retry_after(limited(date(now + 30)), now=now) == 30.0
    assert retry_after(limited(date(now - 30)), now=now) == 0.0  # a date past: no wait
    assert retry_after(limited(date(now + 3600)), now=now) == RETRY_AFTER_CAP_SEC
    # RFC 9110's obsolete forms (RFC 850 and asctime) are read too.
    assert retry_after(limited("Friday, 15-Jan-27 08:00:30 GMT"), now=now) == 30.0
    assert retry_after(limited("Fri Jan 15 08:00:30 2027"), now=now) == 30.0
    assert retry_after(limited("Fri, 15 Jan 99999 08:00:30 GMT"), now=now) is None
    # Without ``now``, the clock's time: the wait a provider's error carries.
    waited = provider_error(limited(date(time.time() + 20))).retry_after
    assert waited is not None and 15.0 <= waited <= 20.0


def test_a_key_split_far_into_a_long_body_is_no_trace_once_the_keys_before_it_are_masked() -> None:
    """The keys before it, masked, bring a key 8,400 characters into the body within the
    excerpt: masked whole before the cut, none of it shows."""
    long = "eyJ" + "L" * 997  # a long registered secret (a token), 1,000 characters
    masking.register_secret(long)
    body = long * 8 + KEY * 5 + "y" * 60 + KEY + "b" * 100
    error = provider_error(status_error(anthropic, 400, body))
    assert KEY[:8] not in str(error) and long[:8] not in str(error), str(error)
    assert str(error).endswith(
        "y" * 60 + "***" + "b" * (200 - 24 - 15 - 60 - 3) + f"… (cut: {24 + 15 + 60 + 3 + 100:,} "
        "characters in all)"
    )


def parsed_error(sdk: object, status: int, body: object) -> Exception:
    """An SDK's status error whose body is parsed JSON, as the SDKs hand it over."""
    cls = getattr(sdk, CLASSES.get(status, "APIStatusError"))
    error: Exception = cls(
        "Error code", response=httpx.Response(status, request=REQUEST), body=body
    )
    return error


@pytest.mark.parametrize(
    ("sdk", "status", "body", "said"),
    [
        (  # Anthropic's whole body
            anthropic,
            401,
            {
                "type": "error",
                "error": {"type": "authentication_error", "message": "invalid x-api-key"},
            },
            "authentication failed (401): authentication_error: invalid x-api-key",
        ),
        (  # OpenAI's error object, its key masked
            openai,
            401,
            {
                "message": f"Incorrect API key provided: {KEY}.",
                "type": "invalid_request_error",
                "code": "invalid_api_key",
            },
            "authentication failed (401): invalid_request_error: Incorrect API key provided: ***.",
        ),
        (  # Google's list holding one error
            openai,
            400,
            [
                {
                    "error": {
                        "code": 400,
                        "message": "API key not valid.",
                        "status": "INVALID_ARGUMENT",
                    }
                }
            ],
            "authentication failed (400): INVALID_ARGUMENT: API key not valid.",
        ),
        (  # JSON of another shape stays JSON
            anthropic,
            500,
            {"detail": "upstream down"},
            'server error (500): {"detail": "upstream down"}',
        ),
    ],
)
def test_a_json_error_is_quoted_as_the_provider_wrote_it_not_as_a_python_repr(
    sdk: object, status: int, body: object, said: str
) -> None:
    error = provider_error(parsed_error(sdk, status, body))
    assert str(error) == said
    assert "{'" not in str(error)


@pytest.mark.parametrize("body", [{}, []])
def test_an_empty_json_error_body_leaves_the_sdks_message(body: object) -> None:
    """A reply whose body is `{}` says nothing of the error: the SDK's own message is quoted,
    as for a reply with no body, not the `{}`."""
    error = provider_error(parsed_error(anthropic, 500, body))
    assert str(error) == "server error (500): Error code"
