"""Tool calls the scripted model made that the real CLI had not offered it.

A plan's raw ``tool`` step is sent as written. When the CLI playing it does not offer that tool
(``{"tool": "Grep"}`` on a Claude Code release that searches with ``Bash``), the CLI answers the
call as an unknown tool and the step fails mid-trial. The request log says which tools each
request offered and which one the response called (``played.tool``); this reads it back, after
the trial, into one warning per tool. Read without the server's modules: every trial on the
scripted model may be asked.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SHOWN_TOOLS = 12
"""The offered tools a warning names before it says how many more."""


def unoffered_calls(log: Path, agent: str) -> list[str]:
    """One sentence per tool the scripted model called although the request did not offer it,
    from the request log ``log`` (none when the log is missing or unreadable)."""
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    found: dict[str, tuple[int, int, list[str]]] = {}
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if type(record) is not dict:
            continue
        played, tools = record.get("played"), record.get("tools")
        tool = unoffered_tool(played, tools)
        if tool is None or tool in found:
            continue
        assert type(played) is dict and type(tools) is list  # as unoffered_tool checked
        found[tool] = (played.get("segment", 0), played.get("response", 0), tools)
    return [
        unoffered_sentence(tool, turn, response, agent, tools)
        for tool, (turn, response, tools) in found.items()
    ]


def unoffered_tool(played: object, tools: object) -> str | None:
    """The tool a request's answer called (its log line's ``played.tool``) that the request
    did not offer (``tools``); None when it called none, an offered one, or the request
    offered no tools at all (a side request)."""
    if type(played) is not dict or type(tools) is not list or not tools:
        return None
    tool = played.get("tool")
    return tool if type(tool) is str and tool not in tools else None


def unoffered_sentence(
    tool: str, turn: object, response: object, agent: str, tools: list[str]
) -> str:
    """The warning that the scripted model called ``tool`` (in prompt ``turn``, its tool
    response ``response``) although ``agent`` offered the model only ``tools``."""
    names = ", ".join(str(name) for name in tools[:SHOWN_TOOLS])
    more = f" and {len(tools) - SHOWN_TOOLS} more" if len(tools) > SHOWN_TOOLS else ""
    return (
        f"the plan called {tool} (turn {turn}, response {response}), which {agent} did not offer "
        f"the model (it offered {names}{more}): the CLI answers such a call as an unknown tool; "
        f"a read, search, write, edit or shell step is played with the CLI's own tool"
    )


def _played(log: Path) -> list[dict[str, Any]]:
    """The ``played`` records of the request log ``log`` that played the plan (those naming a
    ``segment``), in order; none when the log cannot be read."""
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    found = []
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        played = record.get("played") if type(record) is dict else None
        if type(played) is dict and "segment" in played:
            found.append(played)
    return found


def played_steps(log: Path) -> set[int] | None:
    """The plan's steps the scripted model played, as its request log ``log`` names them
    (``played.steps``); None when no request of the log played the plan (the scripted agent
    plays it itself; a judge's requests play none of it)."""
    records = _played(log)
    if not records:
        return None
    steps: set[int] = set()
    for played in records:
        listed = played.get("steps")
        if type(listed) is list:
            steps.update(i for i in listed if type(i) is int)
    return steps


def exhausted_prompts(log: Path) -> list[int] | None:
    """The prompts (1-based, as the request log ``log`` counts them: ``played.segment``) the
    scripted model answered with only "I have nothing left in my plan." (``played.exhausted``),
    each once, in order; None when no request of the log played the plan."""
    records = _played(log)
    if not records:
        return None
    return sorted(
        {
            played["segment"]
            for played in records
            if played.get("exhausted") is True and type(played["segment"]) is int
        }
    )
