"""The one failure classifier: an agent CLI's error text (Claude, Codex and Gemini) and the
provider SDKs' exceptions get the same kinds and words."""

from __future__ import annotations

import pytest

from proctor.llm.failures import AUTH_FIX
from proctor.llm.failures import describe_agent_failure as classify_error

CRASH = (
    "TypeError: Cannot read properties of undefined (reading 'map')\n"
    "    at Ab (/home/u/.agents/node_modules/@anthropic-ai/claude-code/cli.js:1401:2210)"
)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Credit balance is too low", "quota exhausted"),
        (
            '{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"Quota exceeded"}}',
            "quota exhausted",
        ),
        (
            'API Error: 401 {"type":"error","error":{"type":"authentication_error"}}',
            "authentication failed",
        ),
        ("Invalid API key · Please run /login", "authentication failed"),
        ("Not logged in · Please run /login", "authentication failed"),
        ("invalid x-api-key", "authentication failed"),
        (
            'Failed to authenticate. API Error: 403 {"error":{"message":"Request not allowed"}}',
            "authentication failed",
        ),
        (
            '{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.",'
            '"status":"INVALID_ARGUMENT"}}',
            "authentication failed",
        ),
        (
            '{"error":{"code":403,"message":"The caller does not have permission",'
            '"status":"PERMISSION_DENIED"}}',
            "authentication failed",
        ),
        ("unexpected status 403 Forbidden: Missing scopes", "authentication failed"),
        ("Incorrect API key provided: sk-xxxx", "authentication failed"),
        ('{"status": 401, "message": "no"}', "authentication failed"),
        ("API Error: 429 rate_limit_error", "rate limited"),
        ("exceeded retry limit, last status: 429 Too Many Requests", "rate limited"),
        ("You have hit the rate limit", "rate limited"),
        ('API Error: 529 {"type":"overloaded_error"}', "provider overloaded"),
        ("HTTP/1.1 529", "provider overloaded"),
        ("API Error: 500 Internal server error", "API error"),
        ("unexpected status 502 Bad Gateway", "API error"),
        ("stream disconnected: statusCode: 503", "API error"),
        ("got status: 400 Bad Request. invalid tool schema", "API error"),
        (CRASH, "agent error"),
        ("Error: context too long after 8529 tokens", "agent error"),
        ("Error: 8529 tokens in cli.js:529:401", "agent error"),
        ("wrote 401 lines to server.py; exit code 1", "agent error"),
        ("no result event on stdout", "agent error"),
    ],
)
def test_classify_error(text: str, kind: str) -> None:
    fix = f" ({AUTH_FIX})" if kind == "authentication failed" else ""
    assert classify_error(text) == f"{kind}: {text.strip()[:300]}{fix}"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (
            "TypeError: Cannot read properties of undefined (reading 'authentication')\n"
            "    at /usr/lib/node_modules/x.js:12",
            "agent error",
        ),
        (
            'Error: MCP server "github": authentication required (GITHUB_TOKEN not set)',
            "agent error",
        ),
        ("Bash tool error: curl: (22) The requested URL returned error: 403", "API error"),
        ("Error: HTTP 403 Forbidden fetching https://example.com/docs (WebFetch)", "API error"),
        ("fatal: Authentication failed for 'https://github.com/o/r.git/'", "agent error"),
        ("AxiosError: Request failed with status code 403", "API error"),
        ("Error: MCP server github failed to start (authentication required)", "agent error"),
        ("You are not logged into any GitHub hosts. To log in, run: gh auth login", "agent error"),
        ("E   assert response.status_code == 403", "API error"),
        ("Error: 403 Forbidden", "API error"),
        ('{"message": "Resource not accessible by integration", "code": 403}', "API error"),
    ],
)
def test_a_401_403_or_authentication_word_not_from_the_agent_s_provider_is_no_refused_key(
    text: str, kind: str
) -> None:
    """A word or a status of the agent's tools (a crash reading a property, an MCP server's
    login, a page fetched, a git push) is no provider refusing the agent's key: classified as
    one, it stopped the run's further trials of the agent."""
    assert classify_error(text) == f"{kind}: {text.strip()[:300]}"


def test_an_authentication_failure_names_the_fix() -> None:
    reason = classify_error("Not logged in · Please run /login")
    assert reason.startswith("authentication failed: Not logged in")
    assert '"credentials": "none"' in reason and "docs/agents.md#credentials" in reason
    assert "docs/agents.md" not in classify_error("API Error: 500 Internal server error")


def test_classify_error_keeps_only_the_start_of_a_long_message_and_says_it_was_cut() -> None:
    """It ended at 300 characters unmarked, as if the agent had said no more."""
    assert (
        classify_error("  overloaded " + "x" * 400)
        == "provider overloaded: overloaded " + ("x" * 289) + "… (cut: 411 characters in all)"
    )
    assert classify_error("overloaded " + "x" * 289) == "provider overloaded: overloaded " + (
        "x" * 289
    )  # (one that fits: no mark)


def test_a_key_the_message_quotes_where_it_is_cut_leaves_no_part_of_it() -> None:
    from proctor.util.masking import register_secret

    key = "sk-ant-api03-PLANTEDkey0123456789abcdefXYZ"
    register_secret(key)
    # The key straddles the 300th character: cut first, its first 30 characters were kept.
    said = classify_error("API Error: 401 " + "p" * 255 + " " + key + " end")
    assert "sk-ant-api03" not in said and "PLANTED" not in said
