"""Base URLs: anything but a plain http(s) URL with a host and a valid port is a one-sentence
``ConfigError`` naming the variable."""

from __future__ import annotations

import json

import pytest

from proctor.errors import ConfigError
from proctor.llm.refs import base_url, parse_ref


@pytest.mark.parametrize(
    "value",
    [
        "ftp://nope",
        "http://:80",
        "http://host:99999",
        "http://host:0",
        "http://host:abc",
        " http://host",
        "http://ho\nst",
        "http://host/\t",
        "https://[::1",
        "localhost:8080",
    ],
)
def test_a_bad_base_url_is_a_config_error_naming_the_variable(value: str) -> None:
    with pytest.raises(ConfigError) as caught:
        base_url("openai", {"OPENAI_BASE_URL": value}, {})
    message = str(caught.value)
    assert message.startswith("OPENAI_BASE_URL: expected an http(s) URL")
    assert "\n" not in message


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("http://localhost:8080/v1/", "http://localhost:8080/v1"),
        ("https://api.example.com", "https://api.example.com"),
        ("http://[::1]:11434", "http://[::1]:11434"),
        ("http://user:pw@gateway:65535/", "http://user:pw@gateway:65535"),
    ],
)
def test_a_good_base_url_is_kept(value: str, expected: str) -> None:
    assert base_url("openai", {}, {"PROCTOR_BASE_URL": value}) == expected


def test_a_bad_base_url_s_password_is_not_shown() -> None:
    with pytest.raises(ConfigError) as info:
        base_url("anthropic", {"ANTHROPIC_BASE_URL": "http://me:PROXYpw123@127.0.0.1:99999"}, {})
    assert "PROXYpw123" not in str(info.value) and "me:***@" in str(info.value)


@pytest.mark.parametrize("value", ["google/gemini-2.5-pro", "gemini/gemini-2.5-pro"])
def test_a_gemini_model_says_how_to_reach_it(value: str) -> None:
    """A user with a Gemini key got only 'unknown provider' for their judge."""
    from proctor.llm.refs import parse_ref

    with pytest.raises(ConfigError) as caught:
        parse_ref(value, "--judge-model")
    assert str(caught.value).endswith(
        "(known: anthropic, openai, scripted); a Gemini model is reached through Google's "
        "OpenAI-compatible endpoint: openai/gemini-2.5-pro with PROCTOR_OPENAI_BASE_URL="
        "https://generativelanguage.googleapis.com/v1beta/openai and PROCTOR_OPENAI_KEY set to "
        "your Gemini key"
    )


def test_control_another_unknown_provider_has_no_gemini_hint() -> None:
    from proctor.llm.refs import parse_ref

    with pytest.raises(ConfigError) as caught:
        parse_ref("nope/x", "--judge-model")
    assert str(caught.value).endswith("(known: anthropic, openai, scripted)")


@pytest.mark.parametrize(
    "value", ["openai/gpt-5 ", "openai/ gpt-5", "anthropic/claude\tx", "openai/gpt-5\n"]
)
def test_a_model_with_spaces_in_it_is_refused(value: str) -> None:
    """It passed validate, and the provider answered every call 'model not found'."""
    from proctor.llm.refs import parse_ref

    with pytest.raises(ConfigError) as caught:
        parse_ref(value, "evaluators[0].model")
    assert str(caught.value) == (
        "evaluators[0].model: expected 'provider/model' without spaces or control characters, "
        f"got {json.dumps(value)}"
    )


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("scripted", " (did you mean 'scripted/MODEL', proctor's scripted model: scripted/judge?)"),
        ("openai", " (did you mean 'openai/MODEL'?)"),
        ("gpt-5", ""),
    ],
)
def test_a_provider_named_alone_is_said_with_the_reference_it_likely_meant(
    given: str, said: str
) -> None:
    """``--judge-model scripted`` was refused as not 'provider/model' with no word of the
    scripted model's own reference."""
    with pytest.raises(ConfigError) as raised:
        parse_ref(given, "--judge-model")
    assert str(raised.value) == (
        f"--judge-model: expected 'provider/model' (e.g. anthropic/claude-x), got \"{given}\"{said}"
    )
