"""The HTTP headers ``memory-eval --header 'NAME: VALUE'`` sends to a server at a URL.

A header's value is taken for a secret (a bearer token, an API key, under any name a service
gives its header) and registered for masking as soon as it is read, as a key of the
environment is: a value of lowercase letters alone (``X-Team: research``) is no key, and is
left alone, unless the header is named as a credential is (:data:`_CREDENTIAL`), where any
value of four characters or more is one. No sentence here shows a value.
``${NAME}`` in a value is the environment variable's value, so a key need not be typed on the
command line (``--header 'Authorization: Bearer ${TOKEN}'``, in single quotes so that the
shell leaves it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from proctor.errors import ConfigError
from proctor.util.masking import register_secret
from proctor.util.text import escaped_line

Headers = tuple[tuple[str, str], ...]
"""Each header's name and value, in the order given."""

_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
"""A header's name: an HTTP token (RFC 9110), no space, colon or control character."""
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
"""A character no header's value may hold (a tab may be one)."""
_WORDS = (
    r"auth|authorization|authentication|apikey|key|token|secret|password|passwd|pass|passphrase"
    r"|passcode|cookie|session|sig|signature|credentials?|jwt"
)
_CREDENTIAL = re.compile(
    rf"(?:^|[-_.])(?:[a-z0-9]*(?:{_WORDS})|(?:{_WORDS})[a-z0-9]*)(?:$|[-_.])", re.IGNORECASE
)
"""A header's name that says its value is a credential: one of its parts (between ``-``,
``_`` and ``.``) begins or ends with such a word (``X-Api-Key``, ``X-AccessToken``,
``X-Authentication``, ``X-Api-Keys``, ``Cookie``; not ``X-Design`` nor ``X-Team``; one such
as ``X-Monkey`` is taken for one, the safe way: a value too many masked, never one too few)."""


def is_credential_name(name: str) -> bool:
    """Whether a header's ``name`` says its value is a credential (see :data:`_CREDENTIAL`)."""
    return _CREDENTIAL.search(name) is not None


def register_value(name: str, value: str, from_variable: bool = False) -> None:
    """Register a header's ``value`` for masking, as :func:`parse_headers` does: any value
    under a credential's name or from the environment, else a value that may be a key (not
    lowercase letters alone, six characters or more)."""
    _register(value, named=from_variable or is_credential_name(name))


_SCHEME = re.compile(r"\S+\s+(\S.*)")
"""A value of a scheme and a credential (``Bearer abc``): the credential, masked alone too."""

TRANSPORT_OWN = frozenset(
    {
        "accept",
        "content-length",
        "content-type",
        "host",
        "last-event-id",
        "mcp-protocol-version",
        "mcp-session-id",
        "transfer-encoding",
    }
)
"""Headers the MCP client's transport sets on its requests itself (a value given for one
would be replaced, or break the protocol)."""


def parse_headers(given: tuple[str, ...], environ: Mapping[str, str]) -> Headers:
    """Each ``--header`` as its name and value (``${NAME}`` expanded from ``environ``), the
    value registered for masking; a header that is not ``NAME: VALUE``, whose name is no
    HTTP name or is given twice, whose variable is unset or empty, or whose value holds a
    line break or a control character, is a :class:`ConfigError` (exit 2)."""
    headers: list[tuple[str, str]] = []
    seen: set[str] = set()
    for raw in given:
        name, colon, rest = raw.partition(":")
        if not colon:
            raise ConfigError(
                "--header: expected 'NAME: VALUE', with a colon after the name; one given has "
                "no colon (not shown: a header's value is a secret)"
            )
        if not name.strip():
            raise ConfigError("--header: a header's name is empty (expected 'NAME: VALUE')")
        if not _TOKEN.fullmatch(name):
            raise ConfigError(f"--header: {_bad_name(name)}")
        if name.lower() in seen:
            raise ConfigError(f"--header {name}: given twice")
        if name.lower() in TRANSPORT_OWN:
            raise ConfigError(
                f"--header {name}: the MCP client sets this header itself on every request"
            )
        seen.add(name.lower())
        value = _expanded(name, rest.strip(" \t"), environ)
        register_value(name, value, from_variable=bool(_VARIABLE.search(rest)))
        control = _CONTROL.search(value)
        if control:
            what = (
                "a line break (CR or LF), which would end the header"
                if control.group() in "\r\n"
                else f"the control character {escaped_line(control.group())}"
            )
            raise ConfigError(
                f"--header {name}: its value{_from(rest)} holds {what}; the value is not shown"
            )
        if not value.isascii():
            where = next(i for i, c in enumerate(value, 1) if not c.isascii())
            raise ConfigError(
                f"--header {name}: its value{_from(rest)} holds a character outside ASCII (its "
                f"character {where}), which an HTTP header cannot carry as text; the value is "
                "not shown"
            )
        headers.append((name, value))
    return tuple(headers)


def _bad_name(name: str) -> str:
    """Why the text before a header's first colon is no HTTP name, without showing it (a
    ``Name=value`` or ``Name value`` typed for ``Name: value`` holds the value there)."""
    if any(c.isspace() for c in name):
        what = "a space"
    elif "=" in name:
        what = "'='"
    else:
        found = next(c for c in name if not _TOKEN.fullmatch(c))
        what = (
            "a control character"
            if _CONTROL.fullmatch(found) or found == "\t"
            else f"'{escaped_line(found)}'"
        )
    return (
        f"the name of a header given holds {what}, so it is no HTTP header name (expected "
        "'NAME: VALUE', the name of letters, digits and !#$%&'*+-.^_`|~ before the colon); "
        "it is not shown, as it may hold the value"
    )


def _expanded(name: str, value: str, environ: Mapping[str, str]) -> str:
    """``value`` with each ``${VAR}`` replaced by the variable's value, each registered."""

    def replaced(found: re.Match[str]) -> str:
        variable = found.group(1)
        if variable not in environ:
            raise ConfigError(f"--header {name}: ${{{variable}}} is not set in this environment")
        if not environ[variable]:
            raise ConfigError(f"--header {name}: ${{{variable}}} is empty in this environment")
        _register(environ[variable])
        return environ[variable]

    return _VARIABLE.sub(replaced, value)


def _register(value: str, named: bool = True) -> None:
    """Mask ``value``, and the credential after its scheme (``Bearer …``) alone too; not
    ``named`` a secret, only as :func:`~proctor.util.masking.register_secret` takes a key of
    the environment (not lowercase letters alone)."""
    register_secret(value, named=named)
    credential = _SCHEME.fullmatch(value)
    if credential:
        register_secret(credential.group(1), named=named)


def _from(raw: str) -> str:
    names = _VARIABLE.findall(raw)
    return f" (with {', '.join('${' + n + '}' for n in names)} expanded)" if names else ""
