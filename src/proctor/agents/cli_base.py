"""What the adapters of real agent CLIs share: finding the binary, its version, JSON files."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from proctor.errors import AgentError
from proctor.models.config import AgentProfile
from proctor.models.trajectory import Trajectory

if TYPE_CHECKING:
    from proctor.agents.base import Launch

#: Where ``scripts/install-agents.sh`` / ``proctor agents install`` put the pinned CLIs.
AGENTS_DIR_NAME = ".agents"
SOURCE_CHECKOUT = Path(__file__).resolve().parents[3]


def agents_dirs() -> list[Path]:
    """Folders searched for project-local CLIs: ``$PROCTOR_AGENTS_DIR``, ``./.agents`` and the
    proctor checkout's own ``.agents``."""
    dirs = []
    if os.environ.get("PROCTOR_AGENTS_DIR"):
        dirs.append(Path(os.environ["PROCTOR_AGENTS_DIR"]))
    dirs += [Path.cwd() / AGENTS_DIR_NAME, SOURCE_CHECKOUT / AGENTS_DIR_NAME]
    return dirs


def find_binary(name: str, profile: AgentProfile) -> Path | None:
    """The configured binary, else one installed under ``.agents``, else one on PATH.

    The path returned is absolute: a relative one (``binary: bin/claude``, a relative
    ``$PROCTOR_AGENTS_DIR`` or PATH entry) is made absolute against the current directory here,
    once, because the agent is launched from its workspace, where it would name nothing.
    Symlinks are kept (``absolute``, not ``resolve``) so that ``.bin`` shims run as installed."""
    if profile.binary:
        path = Path(profile.binary).expanduser()
        found = shutil.which(str(path)) if not path.is_absolute() else str(path)
        return Path(found).absolute() if found and Path(found).exists() else None
    for folder in agents_dirs():
        candidate = folder / "node_modules" / ".bin" / name
        if candidate.exists():
            return candidate.absolute()
    found = shutil.which(name)
    return Path(found).absolute() if found else None


def require_binary(name: str, agent: str, profile: AgentProfile) -> Path:
    binary = find_binary(name, profile)
    if binary is None:
        raise AgentError(
            f"agent '{agent}': the '{name}' CLI was not found (looked at codingagents.{agent}."
            f"binary, {', '.join(str(d) for d in agents_dirs())} and PATH); "
            "run `proctor agents install`"
        )
    return binary


@functools.lru_cache(maxsize=32)
def cli_version(binary: str) -> str | None:
    """The first version-looking word of ``BINARY --version`` (None when it fails)."""
    try:
        with tempfile.TemporaryDirectory(prefix="proctor-version-") as home:
            # A throwaway HOME: asking for the version must not touch the user's own.
            out = subprocess.run(
                [binary, "--version"],
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
                env={**os.environ, "HOME": home, "CODEX_HOME": home},
            ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    for word in out.replace("(", " ").split():
        if word[:1].isdigit() and "." in word:
            return word
    return out.strip() or None


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def read_json_lines(path: Path) -> list[dict[str, Any]]:
    """Every JSON object line of ``path``; other lines are skipped."""
    rows: list[dict[str, Any]] = []
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return rows
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                rows.append(value)
    return rows


def running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


class RealCli:
    """What the adapters of the npm-installed CLIs share: the binary's version, parsing the
    native transcript by format, and counting answered questions."""

    binary_name: ClassVar[str]
    transcript_format: ClassVar[str]

    def version(self, profile: AgentProfile) -> str | None:
        binary = find_binary(self.binary_name, profile)
        return cli_version(str(binary)) if binary else None

    def parse(self, path: Path) -> Trajectory:
        from proctor.transcripts.detect import parse_any

        return parse_any(path, self.transcript_format)

    def note_answered(self, launch: Launch) -> None:
        launch.extra["answered"] = launch.extra.get("answered", 0) + 1
