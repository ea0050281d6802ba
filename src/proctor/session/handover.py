"""The secrets of a session a person drives (``proctor prepare`` / ``proctor record``).

A prepared session lives in the results directory (``<out>/prepared/…``), so what it keeps
there is held to a trial's rule: no key in the clear. The one file that must hold a credential
is the MCP configuration ``--configure-mcp`` writes in the workspace (``.mcp.json``,
``.gemini/settings.json``): the person's agent starts the servers from it. It is readable by
its owner only, ``before/`` (the workspace as handed over, for the diff) holds it masked, and
``record`` masks the whole prepared session once it has recorded it: the session is over.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from proctor.agents.credentials import find as find_credentials
from proctor.agents.credentials import register_spec_secrets, register_user_keys
from proctor.errors import ConfigError
from proctor.models.plan import TrialSpec
from proctor.util.masking import register_secret, scrub_tree
from proctor.workspace.confine import link_out

SESSION_FILE = "session.json"
"""What ``prepare`` writes beside the workspace: the case, condition and agent."""
PRIVATE = 0o600
"""The mode of a file that holds a credential the person's agent needs."""


def link_outside(folder: Path, workspace: Path) -> str | None:
    """``"the workspace's .claude is a link to /elsewhere, outside it"`` when ``folder`` (a
    folder under ``workspace``, made or not) lies elsewhere once its links are followed (a link
    the fixture or a setup line made): what proctor writes there would land outside; else None.
    """
    root = Path(os.path.realpath(workspace))
    place = Path(os.path.realpath(folder))
    if place == root or root in place.parents:
        return None
    # The first link on the way that leads out (none named: the folder itself, where it lies).
    link, place = link_out(Path(root), Path(root) / folder.relative_to(workspace)) or (
        Path(root) / folder.relative_to(workspace),
        place,
    )
    return f"the workspace's {link.relative_to(root)} is a link to {place}, outside it"


def write_private_json(path: Path, data: Any, workspace: Path) -> None:
    """``data`` as JSON in ``path``, readable and writable by its owner only (from the moment
    it exists: never a window in which others can read it). Refused when ``path``'s folder is
    not in ``workspace`` (a link the fixture or a setup line made, ``.gemini -> ~/.gemini``):
    the file there would be replaced, with a credential in it."""
    link = link_outside(path.parent, workspace)
    if link is not None:
        raise ConfigError(
            f"{link}: the MCP configuration {path.name} is written in the workspace only "
            "(remove the link the fixture or a setup line made, or prepare without "
            "--configure-mcp)"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_dir() and not path.is_symlink():
        raise ConfigError(
            f"the workspace's {path.relative_to(workspace)} is a folder (the fixture or a setup "
            f"line made it): the MCP configuration {path.name} cannot be written there (remove "
            "it, or prepare without --configure-mcp)"
        )
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(json.dumps(data, indent=2) + "\n")


def register_session_secrets(spec: TrialSpec, agent: str) -> None:
    """Register for masking what a session of ``spec`` may hold: the keys ``agent`` would be
    lent, every key of the environment and ``./.env``, the values the profile forwards and the
    credentials its ``env`` sets, and the MCP servers' credentials."""
    for value in find_credentials(agent, os.environ).keys.values():
        register_secret(value)
    register_user_keys()
    register_spec_secrets(spec, os.environ)


def scrub_session(root: Path) -> list[str]:
    """Mask every registered secret in the prepared session ``root`` (its workspace as the
    session left it, ``before/``); the files masked, relative to ``root``."""
    return scrub_tree(root)


def prepared_session(workspace: Path) -> dict[str, Any] | None:
    """What ``prepare`` wrote beside ``workspace`` (``session.json``): the case, condition
    and agent the session was prepared for; None for a workspace ``prepare`` did not make."""
    path = workspace.parent / SESSION_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read ({exc})") from None
    try:
        session = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(session, dict):
        raise ConfigError(f"{path}: expected the JSON object `proctor prepare` writes")
    return session
