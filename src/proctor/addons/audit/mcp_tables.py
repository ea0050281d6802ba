"""MCP servers as the three CLIs lay them out (a ``{name: {command, args} | {url}}`` table):
each entry read as a server or a decoy with the reason, its malformed parts as problems, and
the servers of one name that the scope that wins shadows."""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

from proctor.addons.audit.reading import Reader, Scope, as_dict
from proctor.addons.shown import command_masked
from proctor.models.audit import AuditComponent
from proctor.models.errors_format import json_kind

NO_ENDPOINT = "MCP entry with no command or url"


def shadow_same_names(reader: Reader, rank: Callable[[AuditComponent], int | None]) -> None:
    """Of the MCP servers the agent would load that share a name, the one of the lowest
    ``rank`` (the scope that wins) is loaded and the others are decoys shadowed by it; a
    server ``rank`` gives None (a plugin's, an extension's) is left as it is."""
    servers = [c for c in reader.components if c.kind == "mcp" and c.decoy is None]
    ranked = [(order, c) for c in servers if (order := rank(c)) is not None]
    winner: dict[str, AuditComponent] = {}
    for _, component in sorted(ranked, key=lambda pair: pair[0]):
        first = winner.setdefault(component.name, component)
        if first is not component:
            component.decoy = f"shadowed by the server of the same name in {first.file}"


def mcp_servers(
    reader: Reader,
    table: Any,
    file: Path,
    scope: Scope,
    transport_of: Callable[[dict[str, Any]], tuple[str | None, str | None]],
    decoy_of: Callable[[str, dict[str, Any]], str | None] = lambda name, entry: None,
    *,
    field: str = "mcpServers",
    bad_args: tuple[str, bool] = ("", False),
) -> None:
    """MCP servers of a ``{name: {command, args} | {url}}`` table (the file's ``field``).
    ``transport_of`` gives an entry's (transport, url) in the CLI's own terms; ``decoy_of`` why
    a well-formed entry would still not load (disabled, excluded). ``args`` that are not a list
    of strings are a problem naming the field; ``bad_args`` is what the CLI does with such an
    entry (said in the problem) and whether that keeps the server from loading (a decoy)."""
    for name, entry in as_dict(table).items():
        if not isinstance(entry, dict):
            reader.add("mcp", name, file, scope=scope, decoy="MCP entry is not a table")
            continue
        command = entry.get("command") if isinstance(entry.get("command"), str) else None
        args = entry.get("args")
        listed: list[Any] = args if isinstance(args, list) else []
        words = [a if isinstance(a, str) else json.dumps(a) for a in listed]  # as a CLI runs it
        line = shlex.join([command, *words]) if command else None
        transport, url = transport_of(entry)
        decoy = None if (line or url) else NO_ENDPOINT
        if entry.get("command") is not None and command is None:
            reader.problems.append(
                f"{file}: field '{field}.{name}.command': expected a string, "
                f"got {json_kind(entry['command'])}"
            )
            decoy = decoy and "the MCP entry's command is not a string"
        said, skipped = bad_args
        if not _string_args(reader, file, f"{field}.{name}.args", entry.get("args"), said):
            decoy = decoy or (f"an argument is not a string: {said}" if skipped else None)
        reader.add(
            "mcp",
            name,
            file,
            scope=scope,
            command=line,
            url=url,
            transport=transport if decoy is None else None,
            decoy=decoy or decoy_of(name, entry),
        )


def _string_args(reader: Reader, file: Path, field: str, args: Any, said: str) -> bool:
    """Whether an MCP entry's ``args`` (when present) is a list of strings; each part that is
    not is a problem naming the field, ending with ``said`` (what the CLI does with it)."""
    if args is None:
        return True
    if isinstance(args, list):
        bad = [
            (f"{field}[{i}]", "a string", a) for i, a in enumerate(args) if not isinstance(a, str)
        ]
    else:
        # A command line written as one string: shown as the audit shows a command line, a
        # credential in it masked (`--token ***`), never in the clear in a problem.
        shown = command_masked(args) if isinstance(args, str) else args
        bad = [(field, "a list", shown)]
    ending = f"; {said}" if said else ""
    for where, wanted, value in bad:
        reader.problems.append(
            f"{file}: field '{where}': expected {wanted}, got {json_kind(value)}{ending}"
        )
    return not bad
