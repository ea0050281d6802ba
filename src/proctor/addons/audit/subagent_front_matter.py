"""What each CLI makes of a subagent's file: its front matter (``front_matter``), read by the
CLI's YAML parser (measured with the real CLIs: Claude Code's ``system/init`` agents, Gemini
CLI's ``parseAgentMarkdown``).

- Claude Code 2.1.197 loads a subagent (its front matter ending at the first ``---``, even
  inside a line) when Bun's YAML parser, or its second try after its repair
  (``claude_repair``), gives a ``name`` and a ``description`` that are non-empty texts;
- Gemini CLI 0.61 loads a subagent only when js-yaml reads its front matter and its schema
  takes it (known keys only, a ``name`` of ``a-z0-9-_``, each key's type: ``tools`` a list of
  its tools' names, ``temperature`` a number…), a front matter that is a list giving one
  remote subagent per item.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from proctor.addons.audit.claude_repair import claude_repaired
from proctor.addons.audit.front_matter import GEMINI_BLOCK, KEYS, fields_of, not_yaml, written_of
from proctor.addons.audit.yaml_check import BUN, JS_YAML, yaml_fault
from proctor.addons.audit.yaml_mapping import (
    PROPERTIES,
    anchors_before,
    entries_of,
    has_text,
    key_lines,
    list_items,
)
from proctor.addons.audit.yaml_scalar import (
    BUN_NOT_STRING,
    JS_YAML_NOT_STRING,
    is_string,
    scalar_text,
    yaml_lines,
)

AgentsRule = Callable[[str, str], list[tuple[str, str | None]]]
"""A CLI's reading of a subagent's file that may define several: (its text, its file's stem)
→ each subagent's (name, why it is not loaded or None)."""


_CLAUDE_BLOCK = re.compile(r"^---\s*\n([\s\S]*?)---\s*\n?")


def claude_code_agent(text: str, stem: str) -> tuple[str, str | None]:
    """Claude Code 2.1's reading of a subagent's file: its front matter (up to the first
    ``---`` anywhere, even inside a line: ``description: a---b`` ends it at ``a``) read by
    Bun's YAML parser, else once more as Claude Code repairs it (``claude_repair.claude_repaired``:
    every unindented value holding a character YAML gives a meaning to is then a quoted text,
    ``name: &a x`` the name ``&a x``); it loads the subagent when that gives a ``name`` and a
    ``description`` that are non-empty strings, the name not starting with ``-``."""
    match = _CLAUDE_BLOCK.match(text)
    block = match.group(1) if match else ""
    lines = yaml_lines(block)
    fault = yaml_fault(lines, BUN) if match else None
    if fault:
        repaired = yaml_lines(claude_repaired(block))
        if yaml_fault(repaired, BUN) is None:
            lines, fault = repaired, None
    fields = fields_of(lines)
    name = fields.get("name") or stem
    if fault:
        return name, not_yaml("Claude Code", fault)
    if not match or not fields.get("name") or not fields.get("description"):
        if block and not block.endswith("\n"):  # `description: a---b`: it ends at "a"
            cut = f"line {len(lines) + 1}"
            return name, f"{NO_AGENT_FRONT_MATTER}: Claude Code ends it at the '---' in {cut}"
        return name, NO_AGENT_FRONT_MATTER
    raw = written_of(lines)
    for key in KEYS:
        if not is_string(raw.get(key), BUN_NOT_STRING) or not fields.get(key):
            return name, f"its '{key}' is not a text; Claude Code does not load it"
    if name.startswith("-"):
        return name, "its name starts with '-'; Claude Code does not load it"
    return name, None


def claude_code_agents(text: str, stem: str) -> list[tuple[str, str | None]]:
    return [claude_code_agent(text, stem)]


_GEMINI_LOCAL_KEYS = frozenset(
    {"kind", "name", "description", "display_name", "tools", "mcp_servers", "model"}
    | {"temperature", "max_turns", "timeout_mins"}
)
_GEMINI_REMOTE_KEYS = frozenset(
    ("kind", "name", "description", "display_name", "auth", "agent_card_url", "agent_card_json")
)
_GEMINI_SLUG = re.compile(r"[a-z0-9_-]+")  # (js: `$` is the very end)
_GEMINI_TOOLS = frozenset(
    (
        "glob",
        "write_todos",
        "write_file",
        "google_web_search",
        "web_fetch",
        "replace",
        "run_shell_command",
        "grep_search",
        "read_many_files",
        "read_file",
        "list_directory",
        "activate_skill",
        "ask_user",
        "tracker_create_task",
        "tracker_update_task",
        "tracker_get_task",
        "tracker_list_tasks",
        "tracker_add_dependency",
        "tracker_visualize",
        "get_internal_docs",
        "enter_plan_mode",
        "exit_plan_mode",
        "update_topic",
        "complete_task",
        "invoke_agent",
        "read_mcp_resource",
        "list_mcp_resources",
        "search_file_content",
        "*",
        "mcp_*",
    )
)
"""The tool names Gemini CLI 0.61's ``isValidToolName`` takes (its built-in tools, a legacy
alias, the wildcards), beside ``discovered_tool_…`` and ``mcp_<server>_<tool>``."""
_GEMINI_MCP_TOOL = re.compile(r"mcp_(?P<server>[^_]+)_(?P<tool>.+)")
_MCP_SLUG = re.compile(r"[a-zA-Z0-9_.:-]+")


def _gemini_tool(name: str) -> bool:
    """Whether Gemini CLI 0.61 takes ``name`` in a subagent's ``tools``."""
    if name in _GEMINI_TOOLS or name.startswith("discovered_tool_"):
        return True
    match = _GEMINI_MCP_TOOL.fullmatch(name)
    if match is None or not _MCP_SLUG.fullmatch(match["server"]):
        return False
    tool = match["tool"]
    return tool == "*" or (not re.fullmatch(r"_*", tool) and bool(_MCP_SLUG.fullmatch(tool)))


def _js_number(raw: str) -> float | None:
    """The number js-yaml reads the unquoted value ``raw`` as, or None when it is no number."""
    plain = raw.split(" #")[0].strip()
    if not plain or plain[0] in "'\"" or not JS_YAML_NOT_STRING.fullmatch(plain):
        return None
    lowered = plain.lower().replace("_", "")
    if lowered.lstrip("+-") in (".inf", ".nan"):
        return float(lowered.replace(".", ""))
    sign = -1 if lowered.startswith("-") else 1
    digits = lowered.lstrip("+-")
    for prefix, base in (("0x", 16), ("0o", 8), ("0b", 2)):
        if digits.startswith(prefix):
            return sign * int(digits[2:], base)
    try:
        return float(lowered)
    except ValueError:  # (null, a boolean, a timestamp)
        return None


_URL = re.compile(
    r"(?i:(?:https?|wss?|ftp):/*[^\s/?#:@]"  # (a special scheme: a host)
    r"|(?!(?:https?|wss?|ftp|file):)[a-z][a-z0-9+.-]*:|file:)\S*$"
)
"""What ``new URL()`` takes (zod's ``url()``), near enough: a scheme, and a host after the
special ones'."""


def _gemini_fault(lines: list[str], remote: bool) -> str | None:
    """What Gemini CLI 0.61's schema for a local (``localAgentSchema``) or a remote agent
    (``remoteAgentUrlSchema``/``remoteAgentJsonSchema``) refuses in the mapping ``lines``."""
    entries = entries_of(lines)
    written = {key: raw for key, (raw, _) in entries.items()}
    if unknown := sorted(set(written) - (_GEMINI_REMOTE_KEYS if remote else _GEMINI_LOCAL_KEYS)):
        keys = ", ".join(f"'{key}'" for key in unknown)
        return f"its front matter has keys Gemini CLI does not know ({keys})"
    kind = written.get("kind")
    if kind is not None and kind.strip("'\"") != ("remote" if remote else "local"):
        return f"its 'kind' is {kind!r}, not 'local' or 'remote'"
    text_keys = ("name", "description", "display_name", "model", "agent_card_url")
    for key in (*text_keys, "agent_card_json"):
        if key in written and not is_string(written[key], JS_YAML_NOT_STRING):
            return f"its '{key}' is not a text"
    name = entries.get("name", ("", ""))[1]
    if not remote and not entries.get("description", ("", ""))[1]:
        return "its description is empty"
    if not _GEMINI_SLUG.fullmatch(name):
        return "its name is not lowercase letters, digits, '-' and '_'"
    if remote:
        card = {"agent_card_url", "agent_card_json"} & set(written)
        if len(card) != 1:
            both = "both 'agent_card_url' and" if card else "neither 'agent_card_url' nor"
            return f"it gives {both} 'agent_card_json'"
        if "agent_card_url" in card and not _URL.match(entries["agent_card_url"][1]):
            return "its 'agent_card_url' is not a URL"
        if "agent_card_json" in card:
            try:
                json.loads(entries["agent_card_json"][1])
            except ValueError:
                return "its 'agent_card_json' is not valid JSON"
        return None
    if "tools" in written:
        items = list_items(written["tools"], key_lines(lines, "tools"))
        if items is None:
            return "its 'tools' is not a list"
        anchors = anchors_before(lines, "tools")
        for given in items:
            properties = PROPERTIES.match(given)  # (`- &d read_file` is `read_file`)
            item = given[properties.end() :] if properties else given
            raw, tool = item, scalar_text(item, [])
            if (alias := re.fullmatch(r"\*(\S+)", item)) and alias.group(1) in anchors:
                raw, tool = anchors[alias.group(1)]  # (`- *d`: its anchor's value)
            elif anchor := re.search(r"&(\S+)", properties.group() if properties else ""):
                anchors[anchor.group(1)] = (raw, tool)  # (`- &d read_file`, then `- *d`)
            if not is_string(raw, JS_YAML_NOT_STRING) or not _gemini_tool(tool):
                return f"its 'tools' names {item!r}, not a tool Gemini CLI knows"
    if "mcp_servers" in written and written["mcp_servers"][:1] != "{":  # (`|`: a text)
        return "its 'mcp_servers' is not a mapping"
    number = _js_number(written.get("temperature", "0"))
    if number is None or number != number:  # (zod refuses NaN)
        return "its 'temperature' is not a number"
    for key in ("max_turns", "timeout_mins"):
        number = _js_number(written.get(key, "1"))
        if number is None or number <= 0 or number == float("inf") or number != int(number):
            return f"its '{key}' is not a whole number above 0"
    return None


def gemini_cli_agents(text: str, stem: str) -> list[tuple[str, str | None]]:
    """Gemini CLI 0.61's ``parseAgentMarkdown``: :func:`gemini_cli_agent`, or, for front
    matter that is a list, one remote agent per item (``remoteAgentsListSchema``; any item
    refused: none is loaded)."""
    match = GEMINI_BLOCK.match(text)
    lines = yaml_lines(match.group(1)) if match else []
    content = [line for line in lines if has_text(line)]
    if not content or not re.match(r"\s*-(?:\s|$)", content[0]):
        return [gemini_cli_agent(text, stem)]
    indent = len(content[0]) - len(content[0].lstrip(" "))
    items: list[list[str]] = []
    for number, line in enumerate(lines):
        here = len(line) - len(line.lstrip(" "))
        if has_text(line) and here == indent and (item := re.match(r"\s*-(\s+|$)", line)):
            # (blank lines above it: the faults name the front matter's lines)
            items.append([""] * number + [" " * item.end() + line[item.end() :]])
        elif not has_text(line) and not items:
            continue  # (a comment above the first item)
        elif (has_text(line) and here <= indent) or not items:
            return [(stem, not_yaml("Gemini CLI", f"'{line.strip()[:40]}' is not a list item"))]
        else:
            items[-1].append(line)
    found = []
    for number, mapping in enumerate(items, 1):
        name = fields_of(mapping).get("name") or f"{stem}[{number}]"
        fault = yaml_fault(mapping, JS_YAML) or _gemini_fault(mapping, remote=True)
        if fault and fault.startswith("the front matter is "):
            fault = "it is not a mapping of keys"
        found.append((name, fault))
    if faulty := next(((n, why) for n, (_, why) in enumerate(found, 1) if why), None):
        why = f"item {faulty[0]} of its list of remote agents: {faulty[1]}"
        return [(name, f"{why}; Gemini CLI does not load it") for name, _ in found]
    return found


def gemini_cli_agent(text: str, stem: str) -> tuple[str, str | None]:
    """Gemini CLI 0.61's ``parseAgentMarkdown``: js-yaml reads the front matter, and any fault
    stops it ("YAML frontmatter parsing failed"); then its schema takes it as a local agent
    (``localAgentSchema``: a ``name`` of ``a-z0-9-_``, a non-empty ``description``, ``tools``
    a list of tool names it knows, ``temperature`` a number, ``max_turns`` and
    ``timeout_mins`` whole numbers above 0, known keys only) or a remote one
    (``remoteAgent*Schema``: one of ``agent_card_url`` and ``agent_card_json``); its error
    names the kind the keys point to (``kind``, a remote agent's keys)."""
    match = GEMINI_BLOCK.match(text)
    lines = yaml_lines(match.group(1)) if match else []
    fields = fields_of(lines)
    name = fields.get("name") or stem
    if match and (fault := yaml_fault(lines, JS_YAML)):
        return name, not_yaml("Gemini CLI", fault)
    written = written_of(lines)
    remote = written.get("kind", "").strip("'\"") == "remote" or bool(
        {"agent_card_url", "agent_card_json", "auth"} & set(written)
    )
    if "name" not in written or ("description" not in written and not remote):
        return name, NO_AGENT_FRONT_MATTER
    local_fault = _gemini_fault(lines, remote=False)
    remote_fault = _gemini_fault(lines, remote=True)
    if local_fault is None or remote_fault is None:
        return name, None
    fault = remote_fault if remote else local_fault
    return name, f"{fault}; {'it' if 'Gemini CLI' in fault else 'Gemini CLI'} does not load it"


NO_AGENT_FRONT_MATTER = "no front matter giving a name and a description"
