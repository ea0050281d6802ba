"""The MCP server of the example add-on "tidy" (stdio): one tool, ``count_todos``, which lists
the TODO comments of a text file. Needs the ``mcp`` package (the official MCP Python SDK, 2.x)."""

from __future__ import annotations

from pathlib import Path

from mcp.server.mcpserver import MCPServer

server = MCPServer("tidy")


@server.tool()
def count_todos(path: str) -> list[str]:
    """The lines of ``path`` that hold a TODO, as ``<line number>: <text>``."""
    lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    return [f"{n}: {line.strip()}" for n, line in enumerate(lines, 1) if "TODO" in line]


if __name__ == "__main__":
    server.run()
