"""Claude Code's ``if`` on a hook handler: a permission-rule pattern the tool call must match
for the handler to run (Claude Code 2.1.197).

Forms read, as in permission rules:

- ``Tool``: any call of that tool (``*`` in the name matches any text: ``mcp__github__*``);
- ``Tool(exact)``: the call's subject is exactly that text;
- ``Tool(prefix *)`` or the older ``Tool(prefix:*)``: the subject starts with ``prefix`` as a
  whole word (``prefix`` alone also matches); any other ``*`` matches any text.

The subject is, for ``Bash``, each subcommand of the command (split at ``&&``, ``||``, ``;``,
``|`` and new lines, leading ``VAR=value`` assignments dropped: one match is enough); for
``Read``, ``Edit``, ``Write``, ``MultiEdit`` and ``NotebookEdit``, the file's path, matched
like gitignore (``*.py`` matches the name in any folder, ``src/**`` a path under the project,
``/src/x`` from the project root, ``//abs/x`` an absolute path, ``*`` stops at ``/`` and
``**`` does not); for ``WebFetch(domain:host)``, the URL's host; for any other tool, any string
field of the tool input. ``if`` is only read on tool events; on any other event Claude Code
never runs a handler that has one.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import urlsplit

RULE = re.compile(r"\s*([A-Za-z0-9_.*-]+)\s*(?:\((.*)\))?\s*", re.DOTALL)
FILE_TOOLS = frozenset({"Read", "Edit", "Write", "MultiEdit", "NotebookEdit"})
PATH_KEYS = ("file_path", "path", "notebook_path")
SPLIT_COMMAND = re.compile(r"&&|\|\||[;|\n]")
ASSIGNMENT = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)+")


def parse_rule(rule: str) -> tuple[str, str | None] | None:
    """``(tool, content)`` of a permission rule (content None for a bare ``Tool``), or None
    when ``rule`` is not in a form proctor reads."""
    found = RULE.fullmatch(rule)
    if found is None:
        return None
    content = found.group(2)
    if content is not None and not content.strip():
        return None
    return found.group(1), content


def rule_matches(rule: str, tool: str, tool_input: dict[str, Any], project: str) -> bool:
    """Whether a call of ``tool`` with ``tool_input`` matches ``rule`` (``project`` is the
    folder relative paths are taken from)."""
    parsed = parse_rule(rule)
    if parsed is None:
        return False
    name, content = parsed
    if not _glob(name, star=".*").fullmatch(tool):
        return False
    if content is None or content.strip() == "*":
        return True
    content = content.strip()
    if tool == "Bash":
        command = tool_input.get("command")
        return isinstance(command, str) and any(
            _command_matches(content, part) for part in _subcommands(command)
        )
    if tool in FILE_TOOLS:
        paths = [tool_input.get(k) for k in PATH_KEYS]
        return any(_path_matches(content, p, project) for p in paths if isinstance(p, str) and p)
    if tool == "WebFetch" and content.startswith("domain:"):
        url = tool_input.get("url")
        host = urlsplit(url).hostname if isinstance(url, str) else None
        return (
            host is not None and _glob(content[len("domain:") :], ".*").fullmatch(host) is not None
        )
    return any(
        _command_matches(content, value) for value in tool_input.values() if isinstance(value, str)
    )


def _subcommands(command: str) -> list[str]:
    parts = [ASSIGNMENT.sub("", p.strip()) for p in SPLIT_COMMAND.split(command)]
    return [p for p in parts if p]


def _command_matches(pattern: str, text: str) -> bool:
    text = text.strip()
    if pattern.endswith(":*"):  # the older prefix form: ``npm run test:*``
        prefix = pattern[:-2]
        return text == prefix or text.startswith(prefix)
    if pattern.endswith(" *"):  # ``git push *``: the words, then anything or nothing
        head = pattern[:-2]
        if _glob(head, ".*").fullmatch(text):
            return True
    return _glob(pattern, ".*").fullmatch(text) is not None


def _path_matches(pattern: str, path: str, project: str) -> bool:
    absolute = path if path.startswith("/") else str(PurePosixPath(project) / path)
    root = project.rstrip("/") + "/"
    relative = absolute[len(root) :] if absolute.startswith(root) else None
    if pattern.startswith("//"):
        return _glob(pattern[1:], "[^/]*").fullmatch(absolute) is not None
    pattern = pattern[2:] if pattern.startswith("./") else pattern.lstrip("/")
    if relative is None:
        return False
    if "/" not in pattern.rstrip("/"):  # a bare name matches in any folder
        name = _glob(pattern.rstrip("/"), "[^/]*")
        return any(name.fullmatch(part) for part in PurePosixPath(relative).parts)
    return _glob(pattern, "[^/]*").fullmatch(relative) is not None


def _glob(pattern: str, star: str) -> re.Pattern[str]:
    """``pattern`` as a regex: ``**/`` any folders, ``**`` any text, ``*`` ``star``, ``?`` one
    character; everything else literal."""
    out = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
        elif pattern.startswith("**", i):
            out += ".*"
            i += 2
        elif pattern[i] == "*":
            out += star
            i += 1
        elif pattern[i] == "?":
            out += "." if star == ".*" else "[^/]"
            i += 1
        else:
            out += re.escape(pattern[i])
            i += 1
    return re.compile(out, re.DOTALL)
