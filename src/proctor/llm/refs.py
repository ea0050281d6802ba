"""Model references (``provider/model``), roles and base URLs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from proctor.errors import ConfigError
from proctor.util.json_shown import json_text
from proctor.util.masking import credentials_masked

ROLES = ("fast", "workhorse", "judge")
PROVIDERS = ("anthropic", "openai", "scripted")
#: Providers that need no key: ``scripted`` is proctor's scripted model server, started per
#: trial, answering from the case plan's ``roles``.
KEYLESS = ("scripted",)
GEMINI_OPENAI_URL = "https://generativelanguage.googleapis.com/v1beta/openai"
"""Google's OpenAI-compatible endpoint for Gemini models, reached through the ``openai``
provider."""


@dataclass(frozen=True)
class ModelRef:
    provider: str
    model: str
    where: str = field(default="", compare=False, repr=False)
    """Where the reference was given (``proctor.json: field 'models.judge'``,
    ``--judge-model``), for a message about it; not part of the reference's identity."""

    def __str__(self) -> str:
        return f"{self.provider}/{self.model}"


def parse_ref(value: str, where: str) -> ModelRef:
    provider, sep, model = value.partition("/")
    if not sep or not provider or not model:
        # A provider named alone (scripted, openai): the reference it likely meant.
        named = value.strip()
        meant = f" (did you mean '{named}/MODEL'?)" if named in PROVIDERS else ""
        if named in KEYLESS:  # its model is the role's name in the plan: scripted/judge
            meant = f" (did you mean '{named}/MODEL', proctor's scripted model: {named}/judge?)"
        raise ConfigError(
            f"{where}: expected 'provider/model' (e.g. anthropic/claude-x), got "
            f"{json_text(value)}{meant}"
        )
    if any(ch.isspace() or not ch.isprintable() for ch in value):
        # Sent as it is, the provider answers every call "model not found".
        raise ConfigError(
            f"{where}: expected 'provider/model' without spaces or control characters, "
            f"got {json_text(value)}"
        )
    if provider not in PROVIDERS:
        hint = ""
        if provider.lower() in ("google", "gemini", "vertex", "vertex_ai", "googleai"):
            hint = (
                f"; a Gemini model is reached through Google's OpenAI-compatible endpoint: "
                f"openai/{model} with PROCTOR_OPENAI_BASE_URL={GEMINI_OPENAI_URL} and "
                "PROCTOR_OPENAI_KEY set to your Gemini key"
            )
        raise ConfigError(
            f"{where}: unknown provider '{provider}' in {value!r} (known: {', '.join(PROVIDERS)})"
            + hint
        )
    return ModelRef(provider, model, where)


def base_url(provider: str, env: Mapping[str, str], dotenv: Mapping[str, str]) -> str | None:
    """``PROCTOR_<P>_BASE_URL``, then ``<P>_BASE_URL``, then ``PROCTOR_BASE_URL`` (every
    provider); checked by :func:`url_problem`, a bad one is a :class:`ConfigError` naming the
    variable."""
    upper = provider.upper()
    for name in (f"PROCTOR_{upper}_BASE_URL", f"{upper}_BASE_URL", "PROCTOR_BASE_URL"):
        for source in (env, dotenv):
            value = source.get(name)
            if value:
                problem = url_problem(value)
                if problem:
                    shown = credentials_masked(value)  # a proxy's password, a query key
                    raise ConfigError(f"{name}: expected an http(s) URL ({problem}), got {shown!r}")
                return value.rstrip("/")
    return None


def url_problem(value: str) -> str | None:
    """What is wrong with ``value`` as a provider base URL, or None: it must be http(s) with a
    host, a port (if any) from 1 to 65535, and no whitespace or control characters (which
    ``urlsplit`` would silently strip, so the SDK would reach a different URL than shown)."""
    if any(ch.isspace() or not ch.isprintable() for ch in value):
        return "it contains whitespace or control characters"
    try:
        parsed = urlsplit(value)
    except ValueError as exc:
        return f"it cannot be parsed: {exc}"
    if parsed.scheme not in ("http", "https"):
        return "the scheme must be http or https"
    if not parsed.hostname:
        return "it has no host"
    try:
        port = parsed.port
    except ValueError:
        port = 0
    if port is not None and not 1 <= port <= 65535:
        return "the port must be a number from 1 to 65535"
    return None
