"""Model references (``provider/model``), roles and base URLs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlparse

from proctor.errors import ConfigError

ROLES = ("fast", "workhorse", "judge")
PROVIDERS = ("anthropic", "openai", "scripted")
#: Providers that need no key: ``scripted`` is proctor's scripted model server, started per
#: trial, answering from the case plan's ``roles``.
KEYLESS = ("scripted",)


@dataclass(frozen=True)
class ModelRef:
    provider: str
    model: str

    def __str__(self) -> str:
        return f"{self.provider}/{self.model}"


def parse_ref(value: str, where: str) -> ModelRef:
    provider, sep, model = value.partition("/")
    if not sep or not provider or not model:
        raise ConfigError(
            f"{where}: expected 'provider/model' (e.g. anthropic/claude-x), got {value!r}"
        )
    if provider not in PROVIDERS:
        raise ConfigError(
            f"{where}: unknown provider '{provider}' in {value!r} (known: {', '.join(PROVIDERS)})"
        )
    return ModelRef(provider, model)


def base_url(provider: str, env: Mapping[str, str], dotenv: Mapping[str, str]) -> str | None:
    """``PROCTOR_<P>_BASE_URL``, then ``<P>_BASE_URL``, then ``PROCTOR_BASE_URL`` (every
    provider); validated as an http(s) URL."""
    upper = provider.upper()
    for name in (f"PROCTOR_{upper}_BASE_URL", f"{upper}_BASE_URL", "PROCTOR_BASE_URL"):
        for source in (env, dotenv):
            value = source.get(name)
            if value:
                parsed = urlparse(value)
                if parsed.scheme not in ("http", "https") or not parsed.netloc:
                    raise ConfigError(f"{name}: expected an http(s) URL, got {value!r}")
                return value.rstrip("/")
    return None
