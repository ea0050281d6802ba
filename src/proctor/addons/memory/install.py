"""The pinned reference memory server, installed from the npm registry like the agent CLIs.

``python -m proctor.addons.memory.install [FOLDER]`` (run by ``make agents``, hence ``make
test``) puts ``@modelcontextprotocol/server-memory`` at :data:`MEMORY_SERVER_VERSION` into
``./.agents`` (or ``FOLDER``), reusing what is there; the tests run it from there.
"""

from __future__ import annotations

import sys
from pathlib import Path

from proctor.agents.install import install_agents, installed_version

MEMORY_SERVER_PACKAGE = "@modelcontextprotocol/server-memory"
MEMORY_SERVER_VERSION = "2026.8.31"
PINS = {MEMORY_SERVER_PACKAGE: MEMORY_SERVER_VERSION}


def memory_server_entry(folder: Path) -> Path | None:
    """The server's script in ``folder`` when the pinned version is installed there."""
    if installed_version(folder, MEMORY_SERVER_PACKAGE) != MEMORY_SERVER_VERSION:
        return None
    entry = folder / "node_modules" / MEMORY_SERVER_PACKAGE / "dist" / "index.js"
    return entry if entry.is_file() else None


def install_memory_server(folder: Path) -> list[str]:
    """Install the pinned server unless present; the ``package@version`` specs installed."""
    return install_agents(folder, PINS)


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else Path(".agents")
    installed = install_memory_server(folder)
    done = f"installed {', '.join(installed)}" if installed else "pinned memory server present"
    print(f"{done} in {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
