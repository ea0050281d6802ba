"""The environment an agent (and everything else a trial runs) sees.

It is the parent's environment minus a deny-list, except the variables a profile forwards by
name (``forwardEnv``, whose values are then masked in everything the trial writes):

- provider and harness settings: names starting with ``ANTHROPIC_``, ``OPENAI_``, ``GEMINI_``,
  ``GOOGLE_``, ``PROCTOR_``, ``CLAUDE_``, ``CODEX_``, ``AWS_``, ``AZURE_``;
- credentials by their name: names ending in ``_KEY``, ``_TOKEN``, ``_PAT``, ``_KEY_ID``,
  ``_DSN`` or ``_AUTH``, or containing ``SECRET``, ``PASSWORD``, ``PASSWD``, ``CREDENTIAL``,
  ``APIKEY``, ``API_KEY``, ``ACCESS_KEY``, ``PRIVATE_KEY``, ``WEBHOOK`` or ``COOKIE``;
- credentials by their value: a URL with a password in it (``postgres://app:pw@db/app`` in
  ``DATABASE_URL``);
- the user's SSH and GPG agents (``SSH_AUTH_SOCK``, ``GPG_AGENT_INFO``);
- the files through which a CI step talks to its job (GitHub Actions' ``GITHUB_ENV``,
  ``GITHUB_OUTPUT``, ``GITHUB_PATH``, ``GITHUB_STATE``, ``GITHUB_STEP_SUMMARY``): an agent that
  wrote there would set variables and ``PATH`` for the job's later steps, or forge the job's
  summary of the run that evaluates it.

``HOME`` points at the trial's scratch home so that nothing the agent does lands in the user's
real home.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

DENY_PREFIXES = (
    "ANTHROPIC_",
    "OPENAI_",
    "GEMINI_",
    "GOOGLE_",
    "PROCTOR_",
    "CLAUDE_",
    "CODEX_",
    "AWS_",
    "AZURE_",
)
DENY_SUFFIXES = ("_KEY", "_TOKEN", "_PAT", "_KEY_ID", "_DSN", "_AUTH")
DENY_PARTS = (
    *("SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "APIKEY", "API_KEY", "ACCESS_KEY"),
    *("PRIVATE_KEY", "WEBHOOK", "COOKIE"),
)
_URL_PASSWORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#@\s:]*:[^/?#@\s]+@")
"""A URL whose user part holds a password (``scheme://user:password@host``)."""
CI_JOB_FILES = frozenset(
    {"GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STATE", "GITHUB_STEP_SUMMARY"}
)
"""The files a GitHub Actions step writes to set the job's variables, ``PATH``, outputs, state
and summary."""
DENY_NAMES = frozenset({"SSH_AUTH_SOCK", "GPG_AGENT_INFO", *CI_JOB_FILES})
#: Variables that would point the agent's tools back at the user's own configuration.
ALWAYS_REPLACED = ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME")


def is_denied(name: str) -> bool:
    upper = name.upper()
    return upper.startswith(DENY_PREFIXES) or names_credential(name) or upper in DENY_NAMES


def names_credential(name: str) -> bool:
    """Whether ``name`` says its variable holds a credential (``GITHUB_TOKEN``,
    ``DB_PASSWORD``; not a provider's other settings, ``GOOGLE_CLOUD_PROJECT``)."""
    upper = name.upper()
    return upper.endswith(DENY_SUFFIXES) or any(part in upper for part in DENY_PARTS)


_CREDENTIAL_WORD = re.compile(
    r"KEY|TOKEN|SECRET|PASS|AUTH|CREDENTIAL|COOKIE|HEADER|SESSION|SIGNATURE|CERT|(?:^|_)PAT(?:_|$)"
)
"""A word in a variable's name that says its value may be a credential (``AWS_BEARER_TOKEN_…``,
``ANTHROPIC_CUSTOM_HEADERS``)."""


def is_setting(name: str) -> bool:
    """Whether ``name`` is denied only by a provider's prefix and mentions no credential: a
    setting such as ``ANTHROPIC_MODEL``, ``AWS_REGION`` or ``GOOGLE_CLOUD_PROJECT``, whose
    value, forwarded, is no secret to mask."""
    upper = name.upper()
    return (
        upper.startswith(DENY_PREFIXES)
        and not names_credential(name)
        and upper not in DENY_NAMES
        and _CREDENTIAL_WORD.search(upper) is None
    )


def holds_password(value: str) -> bool:
    """Whether a variable's value is, or holds, a URL with a password in it."""
    return "://" in value and _URL_PASSWORD.search(value) is not None


def url_passwords(value: str) -> list[str]:
    """The passwords of the URLs in ``value`` (``postgres://app:pw@db`` gives ``pw``)."""
    if "://" not in value:
        return []
    return [found.group()[:-1].rpartition(":")[2] for found in _URL_PASSWORD.finditer(value)]


def without_credentials(parent: Mapping[str, str], forward: Iterable[str] = ()) -> dict[str, str]:
    """``parent`` without the variables the deny-list holds back (a key, a token, a URL with a
    password in it), but those ``forward`` names."""
    allowed = set(forward)
    return {
        k: v for k, v in parent.items() if k in allowed or not (is_denied(k) or holds_password(v))
    }


def agent_environment(
    parent: Mapping[str, str],
    *,
    home: Path,
    forward: Iterable[str] = (),
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The filtered environment with ``HOME`` (and XDG dirs) inside the scratch home."""
    env = without_credentials(parent, forward)
    for name in ALWAYS_REPLACED:
        env.pop(name, None)
    env["HOME"] = str(home)
    env["XDG_CONFIG_HOME"] = str(home / ".config")
    env["XDG_CACHE_HOME"] = str(home / ".cache")
    env["XDG_DATA_HOME"] = str(home / ".local" / "share")
    env["TERM"] = "xterm-256color"
    env.setdefault("LANG", "C.UTF-8")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if extra:
        env.update(extra)
    return env
