"""Installing the pinned agent CLIs from the npm registry into a project-local folder.

``proctor agents install`` (and ``make test``) put them in ``./.agents``, where proctor finds
them without any PATH change. Already-installed pinned versions are reused.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from proctor.agents.spec import ACP_PINS, npm_specs
from proctor.errors import AgentError
from proctor.util.cutting import masked_tail
from proctor.util.masking import mask

#: npm package → version: the versions proctor's contract tests and goldens were made with.
PINNED: dict[str, str] = {
    **{s.npm_package: s.version for s in npm_specs() if s.npm_package and s.version},
    **ACP_PINS,
}


def installed_version(folder: Path, package: str) -> str | None:
    manifest = folder / "node_modules" / package / "package.json"
    try:
        version = json.loads(manifest.read_text(encoding="utf-8")).get("version")
    except (OSError, json.JSONDecodeError):
        return None
    return str(version) if version else None


def missing_pins(folder: Path, pins: dict[str, str] = PINNED) -> list[str]:
    return [f"{p}@{v}" for p, v in pins.items() if installed_version(folder, p) != v]


def install_agents(folder: Path, pins: dict[str, str] = PINNED) -> list[str]:
    """Install what is missing; return the ``package@version`` specs installed."""
    missing = missing_pins(folder, pins)
    if not missing:
        return []
    npm = shutil.which("npm")
    if npm is None:
        raise AgentError("npm was not found on PATH; install Node.js and npm to install agent CLIs")
    folder.mkdir(parents=True, exist_ok=True)
    argv = [
        npm,
        "install",
        "--prefix",
        str(folder),
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        "--foreground-scripts",
        *missing,
    ]
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise AgentError(npm_failure_message(proc.returncode, proc.stderr))
    return missing


#: How many of npm's own error lines a failure message shows.
NPM_ERROR_LINES = 6


def npm_failure_message(returncode: int, stderr: str) -> str:
    """The message for a failed ``npm install``: npm's first ``npm error`` / ``npm ERR!`` lines,
    which name the cause (``request to … failed, reason: ECONNREFUSED``); the stderr's tail only
    when there are none, since a tail usually starts mid stack trace and misses the cause."""
    lines = [
        line.strip()
        for line in stderr.splitlines()
        if line.lstrip().startswith(("npm error", "npm ERR!"))
    ]
    lines = [line for line in lines if line not in ("npm error", "npm ERR!")]
    # Masked before the tail is cut: a key the cut would split shows no part of it.
    detail = mask("\n".join(lines[:NPM_ERROR_LINES])) if lines else masked_tail(stderr.strip(), 600)
    return f"npm install failed ({returncode}): {detail}"
