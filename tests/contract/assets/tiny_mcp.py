"""A tiny stdio MCP server for contract tests, built with the official ``mcp`` package."""

from mcp.server.mcpserver import MCPServer

server = MCPServer("tiny")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


if __name__ == "__main__":
    server.run()
