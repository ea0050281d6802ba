"""What the add-on commands (``audit``, ``hooks test``, ``addon check-install``) show of a
command line from a user's configuration: a credential in it masked.

:func:`~proctor.util.masking.credentials_masked` masks a URL's password, an option, query
parameter or variable named like a key, and every registered key. A command line also carries
a key in a header (``curl -H 'Authorization: Bearer …'``, ``-H 'x-api-key: …'``,
``mcp-remote --header 'Authorization: …'``): :func:`command_masked` masks the value of a
header named like a credential, the token after ``Bearer`` and a URL's ``key`` parameter (how
Google's APIs take a key) too. A reference to a variable (``Bearer $TOKEN``, ``${API_KEY}``)
is no key and stays as written.
"""

from __future__ import annotations

import re

from proctor.util.masking import MASK, credentials_masked

_HEADER_NAME = (
    r"(?:[A-Za-z0-9]+-)*"  # x-, proxy-, x-goog-
    r"(?:authorization|api-?key|auth-?token|access-?token|token|secret|password)"
)
"""A header named like a credential: ``Authorization``, ``Proxy-Authorization``,
``x-api-key``, ``X-Auth-Token``, ``x-goog-api-key``."""
_SCHEME = r"(?:bearer|basic|token|bot)\s+"
"""The scheme an ``Authorization`` value may start with, kept in the clear."""
_VALUE = rf"(?![$%])(?!{_SCHEME})[^\s'\"]+"
"""A header's value up to a space or a quote, unless it is a variable (``$TOKEN``,
``${TOKEN}``, ``%TOKEN%``)."""
_HEADER = re.compile(rf"(?<![\w-])({_HEADER_NAME}\s*:\s*)({_SCHEME})?{_VALUE}", re.IGNORECASE)
_BEARER = re.compile(rf"(?<![\w-])(bearer\s+){_VALUE}", re.IGNORECASE)
_KEY_PARAMETER = re.compile(r"([?&]key=)(?![$%])[^&\s#'\"]+", re.IGNORECASE)
"""A URL's ``key`` parameter: how Google's APIs take a key (``?key=AIza…``)."""


def command_masked(text: str) -> str:
    """``text`` (a command line, a URL) with a credential in it masked: a header's value
    (``Authorization: Bearer ***``, ``x-api-key: ***``), a ``Bearer`` token, a URL's ``key``
    parameter (``?key=***``), and what
    :func:`~proctor.util.masking.credentials_masked` masks (every registered key among it)."""
    text = _HEADER.sub(lambda m: m.group(1) + (m.group(2) or "") + MASK, text)
    text = _BEARER.sub(lambda m: m.group(1) + MASK, text)
    text = _KEY_PARAMETER.sub(lambda m: m.group(1) + MASK, text)
    return credentials_masked(text)
