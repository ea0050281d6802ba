"""Claude Code's schema for hooks (2.1.197, the zod definitions in its bundled code): why it
refuses a hooks table, and so skips the file holding it.

Every check the schema makes is here: an event maps to a list of matcher groups; a group is an
object whose ``matcher`` is a string when there and whose ``hooks`` is a list of handlers; a
handler is an object whose ``type`` is ``command``, ``prompt``, ``agent``, ``http`` or
``mcp_tool``, with the fields that type needs (``command``, ``prompt``, ``url``, ``server`` and
``tool``) and its other fields of their type when there (``timeout`` a positive number,
``async`` true or false, ``if`` a string, ...). A field Claude Code does not know is ignored;
``null`` is not "absent" (``"matcher": null`` fails).

What a refusal costs depends on the file. A settings file (user, project, local) is first
cleaned with a warning: a ``hooks`` that is no object, an event Claude Code does not know and
an event that is no list are dropped; any other failure skips the whole file ("Files with
errors are skipped entirely"). A plugin's hooks file (``hooks/hooks.json``, a file its
manifest names) is not cleaned: any failure, an unknown event too, is a ``hook-load-failed``
and none of the file's hooks loads, the plugin's other parts kept. A plugin manifest
(``.claude-plugin/plugin.json``) whose ``hooks`` fails makes the manifest invalid: Claude Code
loads nothing of the plugin.
"""

from __future__ import annotations

import ipaddress
import math
import re
import urllib.parse
from collections.abc import Callable
from typing import Any

from proctor.addons.hooks.cases import EVENTS
from proctor.addons.hooks.idna_host import domain_to_ascii
from proctor.models.errors_format import json_kind

Check = tuple[Callable[[Any], bool], str]
"""A field's test and what the field must be, said to the user."""


def js_number(value: Any) -> float | None:
    """A JSON number as JavaScript reads it (an integer too large for a double, such as one of
    400 digits, is infinity), or None for anything else (``true`` is no number)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def finite_number(value: Any) -> bool:
    """A JSON number JavaScript reads as a finite one (zod's ``number()``)."""
    number = js_number(value)
    return number is not None and math.isfinite(number)


def positive_number(value: Any) -> bool:
    """A JSON number above 0 (``true`` is no number; NaN and infinity, a 400-digit integer
    too, are none either)."""
    number = js_number(value)
    return number is not None and 0 < number < math.inf


SPECIAL_SCHEMES = ("http", "https", "ws", "wss", "ftp")
C0_AND_SPACE = "".join(map(chr, range(0x21)))
"""What ``new URL`` strips from both ends of a URL."""
FORBIDDEN_HOST = re.compile(r"[\x00-\x20#%/:<>?@\[\\\]^|\x7f]")
"""The WHATWG forbidden domain code points: none may stay in a special URL's host once its
percent-escapes are decoded."""
OPAQUE_FORBIDDEN_HOST = re.compile(r"[\x00-\x20#/:<>?@\[\\\]^|]")


def web_url(value: Any) -> bool:
    """A string JavaScript's ``new URL`` parses (what zod's ``url()`` asks): a scheme, and for
    ``http``, ``https``, ``ws``, ``wss`` and ``ftp`` a host and a port of at most 65535."""
    if not isinstance(value, str):
        return False
    text = re.sub(r"[\t\n\r]", "", value.strip(C0_AND_SPACE))
    scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):", text)
    if scheme is None:
        return False
    rest = text[scheme.end() :]
    special = scheme.group(1).lower() in SPECIAL_SCHEMES
    if not special and not rest.startswith("//"):
        return True  # an opaque path (mailto:a@b) or a file: URL
    ends, slashes = (r"[/?#\\]", "/\\") if special else (r"[/?#]", "/")
    authority = re.split(ends, rest.lstrip(slashes))[0]
    host_port = authority.rpartition("@")[2]
    ipv6 = host_port.startswith("[")
    if ipv6:
        host, _, port = host_port.partition("]")
        port = port.removeprefix(":")
    else:
        host, _, port = host_port.partition(":")
    if port and (not port.isascii() or not port.isdigit() or int(port) > 65535):
        return False
    if ipv6:
        return "]" in host_port and ipv6_address(host[1:])
    if not special:
        return not OPAQUE_FORBIDDEN_HOST.search(host)
    return special_host(host)


def ipv6_address(text: str) -> bool:
    """Whether ``new URL`` takes ``text``, what a host holds between its brackets, as an IPv6
    address (the WHATWG IPv6 parser, as Claude Code 2.1.197 runs it): up to eight groups of at
    most 4 ASCII hex digits, one ``::``, an IPv4 address of 4 decimal numbers without leading
    zeros in the last two groups' place; no zone id (``fe80::1%25eth0``), no percent-escape,
    no full-width colon or Arabic digit."""
    if not text.isascii() or "%" in text:
        return False
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def special_host(host: str) -> bool:
    """Whether ``new URL`` takes ``host`` as a special URL's host (the WHATWG host parser, as
    Claude Code 2.1.197's Bun runs it, measured with ``claude plugin validate``): its
    percent-escapes decoded (``%41`` is ``a``; ``%25``, ``%zz`` and ``%00`` fail), then no
    forbidden code point, and one that ends in a number (``1.2.3.256``, ``99999999999``,
    ``a.1``) an IPv4 address of at most 4 parts of decimal, ``0x`` hex or ``0`` octal numbers
    that fit (``0x7f.1`` and ``1.2.3`` pass), once a name that is not all ASCII is mapped and
    checked as UTS #46 does (:func:`.domain_to_ascii`: a full-width ``０x7f.1`` is ``0x7f.1``;
    a zero-width joiner or a no-break space fails)."""
    try:
        text = urllib.parse.unquote_to_bytes(host.encode("utf-8", "surrogatepass"))
        domain = domain_to_ascii(text.decode("utf-8"))
    except UnicodeDecodeError:  # read as U+FFFD, which no domain holds
        return False
    if not domain or FORBIDDEN_HOST.search(domain):
        return False
    labels = domain.split(".")
    if labels[-1] == "" and len(labels) > 1:
        labels.pop()
    last = labels[-1]
    if not (last.isascii() and last.isdigit()) and _ipv4_number(last) is None:
        return True  # a domain
    numbers = [_ipv4_number(label) for label in labels]
    if len(numbers) > 4 or any(n is None for n in numbers):
        return False
    *first, final = [n for n in numbers if n is not None]
    return all(n <= 255 for n in first) and final < 256 ** (5 - len(numbers))


def _ipv4_number(label: str) -> int | None:
    """An IPv4 address part (``12``, ``0x1f``, ``017``), or None."""
    digits, radix = label, 10
    if label[:2] == "0x":
        digits, radix = label[2:], 16
    elif len(label) > 1 and label.startswith("0"):
        digits, radix = label[1:], 8
    allowed = "0123456789abcdef"[:radix]
    if label == "" or not all(c in allowed for c in digits):
        return None
    return int(digits, radix) if digits else 0


STRING: Check = (lambda v: isinstance(v, str), "a string")
NON_EMPTY: Check = (lambda v: isinstance(v, str) and v != "", "a non-empty string")
BOOLEAN: Check = (lambda v: isinstance(v, bool), "true or false")
POSITIVE: Check = (positive_number, "a positive number")
OBJECT: Check = (lambda v: isinstance(v, dict), "an object")
STRINGS: Check = (
    lambda v: isinstance(v, list) and all(isinstance(s, str) for s in v),
    "a list of strings",
)
STRING_VALUES: Check = (
    lambda v: isinstance(v, dict) and all(isinstance(s, str) for s in v.values()),
    "an object of strings",
)
SHELL: Check = (lambda v: v in ("bash", "powershell"), '"bash" or "powershell"')
URL: Check = (web_url, "a URL (scheme and host, such as http://localhost:8080/hook)")

COMMON: dict[str, Check] = {
    "if": STRING,
    "timeout": POSITIVE,
    "statusMessage": STRING,
    "once": BOOLEAN,
}
"""The fields every handler type may have."""

HANDLERS: dict[str, tuple[dict[str, Check], dict[str, Check]]] = {
    "command": (
        {"command": STRING},
        {
            **COMMON,
            "args": STRINGS,
            "shell": SHELL,
            "async": BOOLEAN,
            "asyncRewake": BOOLEAN,
            "rewakeMessage": NON_EMPTY,
            "rewakeSummary": NON_EMPTY,
        },
    ),
    "prompt": ({"prompt": STRING}, {**COMMON, "model": STRING, "continueOnBlock": BOOLEAN}),
    "agent": ({"prompt": STRING}, {**COMMON, "model": STRING}),
    "http": (
        {"url": URL},
        {**COMMON, "headers": STRING_VALUES, "allowedEnvVars": STRINGS},
    ),
    "mcp_tool": ({"server": STRING, "tool": STRING}, {**COMMON, "input": OBJECT}),
}
"""Each handler ``type``: the fields it needs, and the fields it may have, with their checks."""

TYPES = ", ".join(f'"{name}"' for name in HANDLERS)


def claude_refusal(table: Any, *, plugin: bool = False) -> str | None:
    """Why Claude Code's schema refuses a ``hooks`` table, or None. ``plugin``: the table is a
    plugin's (its hooks file, its manifest), which Claude Code checks as it is; a settings
    file's is checked once its unknown events and events that are no list are dropped (and a
    ``hooks`` that is no object is dropped whole), which are left to the callers' own checks."""
    if not isinstance(table, dict):
        if not plugin:
            return None  # dropped with a warning
        return f"field 'hooks' must be an object of events, got {json_kind(table)}"
    for event, groups in table.items():
        if event not in EVENTS["claude-code"] or not isinstance(groups, list):
            if not plugin:
                continue  # dropped with a warning
            if event not in EVENTS["claude-code"]:
                return f"field 'hooks.{event}' is not a hook event Claude Code knows"
            return (
                f"field 'hooks.{event}' must be a list of matcher groups, got {json_kind(groups)}"
            )
        for index, group in enumerate(groups):
            refusal = group_refusal(f"hooks.{event}[{index}]", group)
            if refusal is not None:
                return refusal
    return None


def group_refusal(where: str, group: Any) -> str | None:
    """Why a matcher group (``{matcher, hooks}``) at ``where`` fails the schema, or None."""
    if not isinstance(group, dict):
        return (
            f"field '{where}' must be a matcher group (an object with 'hooks'), got "
            f"{json_kind(group)}"
        )
    if "matcher" in group and not isinstance(group["matcher"], str):
        return f"field '{where}.matcher' must be a string, got {json_kind(group['matcher'])}"
    if "hooks" not in group:
        return f"field '{where}.hooks' is missing (the group's list of hook handlers)"
    listed = group["hooks"]
    if not isinstance(listed, list):
        return f"field '{where}.hooks' must be a list of hook handlers, got {json_kind(listed)}"
    for index, handler in enumerate(listed):
        refusal = handler_refusal(f"{where}.hooks[{index}]", handler)
        if refusal is not None:
            return refusal
    return None


def handler_refusal(where: str, handler: Any) -> str | None:
    """Why a hook handler at ``where`` fails the schema, or None."""
    if not isinstance(handler, dict):
        return (
            f"field '{where}' must be a hook handler (an object with 'type'), got "
            f"{json_kind(handler)}"
        )
    if "type" not in handler:
        return f"field '{where}.type' is missing (one of {TYPES})"
    kind = handler["type"]
    if not isinstance(kind, str) or kind not in HANDLERS:
        return f"field '{where}.type' must be one of {TYPES}, got {json_kind(kind)}"
    needed, allowed = HANDLERS[kind]
    for key, (_, expected) in needed.items():
        if key not in handler:
            return f"field '{where}.{key}' is missing (a {kind} hook needs {expected})"
    for key, (test, expected) in {**needed, **allowed}.items():
        if key in handler and not test(handler[key]):
            return f"field '{where}.{key}' must be {expected}, got {json_kind(handler[key])}"
    return None


def hooks_file_refusal(data: Any) -> str | None:
    """Why Claude Code refuses a plugin's hooks file (``{description, hooks}``), or None."""
    if not isinstance(data, dict):
        return f"the file must hold an object with 'hooks', got {json_kind(data)}"
    if "description" in data and not isinstance(data["description"], str):
        return f"field 'description' must be a string, got {json_kind(data['description'])}"
    return claude_refusal(data.get("hooks"), plugin=True)


def manifest_hooks_refusal(declared: Any) -> str | None:
    """Why Claude Code refuses a plugin manifest's ``hooks`` (a ``./…json`` path, an object of
    events, or a list of those), or None: the whole manifest is invalid then."""
    items = declared if isinstance(declared, list) else [declared]
    for index, item in enumerate(items):
        field = f"hooks[{index}]" if isinstance(declared, list) else "hooks"
        if isinstance(item, str):
            if not (item.startswith("./") and item.endswith(".json")):
                return (
                    f"field '{field}' must be a path starting with ./ and ending in .json, got "
                    f"{json_kind(item)}"
                )
        elif isinstance(item, dict):
            refusal = claude_refusal(item, plugin=True)
            if refusal is not None:
                return refusal.replace("field 'hooks", f"field '{field}", 1)
        else:
            return (
                f"field '{field}' must be a ./….json path or an object of events, got "
                f"{json_kind(item)}"
            )
    return None


def mcp_tool_called(handler: Any) -> str | None:
    """What an ``mcp_tool`` handler calls (``MCP tool 'check' of server 'guard'``), or None
    when its ``server`` or ``tool`` is no non-empty string."""
    server, tool = handler.get("server"), handler.get("tool")
    if not all(isinstance(v, str) and v.strip() for v in (server, tool)):
        return None
    return f"MCP tool '{tool}' of server '{server}'"
