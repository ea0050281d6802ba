"""What the adapters of the npm-installed agent CLIs share: finding the binary and its version,
checking both before any trial, parsing the native transcript by format, JSON files."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import signal
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from proctor.agents.base import AgentAdapter
from proctor.errors import AgentError
from proctor.models.config import AgentProfile
from proctor.models.trajectory import Trajectory
from proctor.transcripts.detect import parse_any
from proctor.util.masking import mask
from proctor.util.processes import run_captured
from proctor.workspace.environment import without_credentials

#: Where ``proctor agents install`` puts the pinned CLIs.
AGENTS_DIR_NAME = ".agents"
SOURCE_CHECKOUT = Path(__file__).resolve().parents[3]
INSTALL_HINT = "run `proctor agents install`"

S = TypeVar("S")


def agents_dirs() -> list[Path]:
    """Folders searched for project-local CLIs: ``$PROCTOR_AGENTS_DIR``, ``./.agents`` and the
    proctor checkout's own ``.agents`` (no ``./.agents`` when the current folder is gone)."""
    from proctor.paths import current_folder

    dirs = []
    if os.environ.get("PROCTOR_AGENTS_DIR"):
        dirs.append(Path(os.environ["PROCTOR_AGENTS_DIR"]))
    here = current_folder()
    dirs += [here / AGENTS_DIR_NAME] if here is not None else []
    dirs += [SOURCE_CHECKOUT / AGENTS_DIR_NAME]
    return dirs


def find_binary(name: str, profile: AgentProfile) -> Path | None:
    """The configured binary, else one installed under ``.agents``, else one on PATH.

    The path returned is absolute: a relative one (``binary: bin/claude``, a relative
    ``$PROCTOR_AGENTS_DIR`` or PATH entry) is made absolute against the current directory here,
    once, because the agent is launched from its workspace, where it would name nothing.
    Symlinks are kept (``absolute``, not ``resolve``) so that ``.bin`` shims run as installed."""
    if profile.binary:
        return None if binary_problem(profile.binary) else _configured(profile.binary)
    if "/" in name:  # a path (an ACP profile's command): that file only
        return None if binary_problem(name) else _configured(name)
    for folder in agents_dirs():
        candidate = folder / "node_modules" / ".bin" / name
        if candidate.exists():
            return candidate.absolute()
    found = shutil.which(name)
    return Path(found).absolute() if found else None


def _configured(binary: str) -> Path | None:
    path = Path(binary).expanduser()
    if not path.is_absolute() and "/" not in binary:  # a name on PATH
        found = shutil.which(binary)
        return Path(found).absolute() if found else None
    return path.absolute()


def binary_problem(binary: str) -> str | None:
    """Why a profile's ``binary`` is no program proctor can run, else None: it names nothing,
    a folder, or a file without execute permission."""
    path = _configured(binary)
    if path is None:
        return "names no program on PATH"
    if not path.exists():
        return "names no file"
    if path.is_dir():
        return "is a folder, not a program"
    if not os.access(path, os.X_OK):
        return f"is not executable (`chmod +x {path}` if it is the CLI)"
    return None


def missing_binary_message(agent: str, name: str, profile: AgentProfile | None = None) -> str:
    if profile is not None and profile.binary:  # only the profile's binary was looked at
        why = binary_problem(profile.binary) or "names no program"
        return (
            f"agent '{agent}': the '{name}' CLI was not found: codingagents.{agent}.binary "
            f"{profile.binary!r} {why} (a path, or a name on PATH; nothing else is "
            f"looked at when it is given); fix it, or leave it out and run "
            f"`proctor agents install` to use the pinned CLI"
        )
    return (
        f"agent '{agent}': the '{name}' CLI was not found (looked at codingagents.{agent}."
        f"binary, {', '.join(str(d) for d in agents_dirs())} and PATH); {INSTALL_HINT}"
    )


def require_binary(name: str, agent: str, profile: AgentProfile) -> Path:
    binary = find_binary(name, profile)
    if binary is None:
        raise AgentError(missing_binary_message(agent, name, profile))
    return binary


#: How long ``BINARY --version`` may answer in. The pinned CLIs answer in 0.1 to 0.4 s (Gemini
#: CLI in about 1.7 s: it starts itself again), their files not yet read from disk and with a
#: throwaway HOME, as proctor asks; a program still silent after this is stopped (it hangs).
#: The margin is for a machine busy with other work (a CI job running tests beside it).
VERSION_TIMEOUT_SEC = 20.0


@dataclass(frozen=True)
class VersionProbe:
    """What ``BINARY --version`` said: the version, else why there is none."""

    version: str | None
    problem: str | None = None
    """Why there is no version (``--version`` exited 1: …, timed out, printed nothing)."""


@functools.lru_cache(maxsize=32)
def version_probe(binary: str) -> VersionProbe:
    """``BINARY --version``: its first version-looking word, else its first line (a wrapper's
    usage text), else why it gave none. Its whole process group is stopped after
    :data:`VERSION_TIMEOUT_SEC`, and it reads no input (a program waiting for some would hang)."""
    try:
        with tempfile.TemporaryDirectory(prefix="proctor-version-") as home:
            # A throwaway HOME: asking for the version must not touch the user's own. Nor
            # does it need a key: the environment is the deny-listed one a trial starts from,
            # so no version line (a wrapper's, a crash's) can quote one.
            env = without_credentials(os.environ)
            proc = run_captured(
                [binary, "--version"],
                cwd=Path(home),
                env={**env, "HOME": home, "CODEX_HOME": home},
                timeout=VERSION_TIMEOUT_SEC,
            )
    except OSError as exc:
        return VersionProbe(None, f"`--version` did not start: {exc.strerror or exc}")
    if proc.timed_out:
        return VersionProbe(
            None, f"`--version` did not answer within {VERSION_TIMEOUT_SEC:g} s and was stopped"
        )
    out = proc.stdout
    for word in out.replace("(", " ").split():
        if word[:1].isdigit() and "." in word:
            return VersionProbe(word)
    # No version in it: its first line, cut short (a wrapper's usage text can be long).
    first = next((line.strip() for line in out.splitlines() if line.strip()), "")
    if first:
        return VersionProbe(repr(first[:60] + ("…" if len(first) > 60 else "")))
    if proc.returncode < 0:
        try:
            ended = f"was killed by {signal.Signals(-proc.returncode).name}"
        except ValueError:
            ended = f"was killed by signal {-proc.returncode}"
    elif proc.returncode > 0:
        ended = f"exited {proc.returncode}"
    else:
        ended = "exited 0"
    said = next((line.strip() for line in proc.stderr.splitlines() if line.strip()), "")
    said = mask(said)
    said = said[:100] + ("…" if len(said) > 100 else "")
    return VersionProbe(
        None, f"`--version` {ended}, printing " + (f"only on stderr: {said}" if said else "nothing")
    )


def _found(probe: VersionProbe) -> str:
    """The version as a sentence says it: unknown with the reason when there is none."""
    return probe.version or f"unknown ({probe.problem})"


def cli_version(binary: str) -> str | None:
    """The version ``BINARY --version`` prints (None when it gives none: see
    :func:`version_probe` for why)."""
    return version_probe(binary).version


def write_json(path: Path, data: Any) -> None:
    write_replacing(path, json.dumps(data, indent=2) + "\n")


def write_replacing(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` in the scratch home through a new file renamed into place:
    a link a case's setup line left there is replaced, never written through (see
    :mod:`proctor.workspace.confine`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.proctor-new")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temporary)
    with open(temporary, "x", encoding="utf-8") as fh:  # "x": never through a link
        fh.write(text)
    os.replace(temporary, path)


def running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


class RealCli(AgentAdapter[S]):
    """Base of the adapters of npm-installed CLIs (the spec names the binary and format)."""

    @property
    def binary_name(self) -> str:
        return self.spec.binary or self.spec.id

    def binary(self, profile: AgentProfile) -> Path:
        return require_binary(self.binary_name, self.name, profile)

    def version(self, profile: AgentProfile) -> str | None:
        binary = find_binary(self.binary_name, profile)
        return cli_version(str(binary)) if binary else None

    def version_problem(self, profile: AgentProfile) -> str | None:
        binary = find_binary(self.binary_name, profile)
        return version_probe(str(binary)).problem if binary else None

    def preflight(self, profile: AgentProfile) -> str | None:
        binary = find_binary(self.binary_name, profile)
        if binary is None:
            return missing_binary_message(self.name, self.binary_name, profile)
        probe = version_probe(str(binary))
        found = probe.version
        if profile.version is not None and found != profile.version:
            if profile.binary:  # installing changes nothing: the profile names its binary
                pinned = profile.version == self.spec.version
                fix = (
                    f"point codingagents.{self.name}.binary at {self.spec.npm_package}@"
                    f"{profile.version}'s `{self.binary_name}`"
                    + (" (or leave it out and run `proctor agents install`)" if pinned else "")
                    + ", or change the pin"
                )
            elif profile.version == self.spec.version:
                fix = INSTALL_HINT
            else:
                fix = f"install {self.spec.npm_package}@{profile.version} or change the pin"
            return (
                f"agent '{self.name}': {binary} is version {_found(probe)}, but its profile "
                f"pins {profile.version}; {fix}"
            )
        return None

    def version_warning(self, profile: AgentProfile) -> str | None:
        if profile.version is not None or self.spec.version is None:
            return None  # a pinned profile is checked by preflight
        binary = find_binary(self.binary_name, profile)
        if binary is None:
            return None
        probe = version_probe(str(binary))
        found = probe.version
        if found == self.spec.version:
            return None
        if profile.binary:  # installing changes nothing: the profile names its binary
            fix = (
                f"point the profile's binary at {self.spec.npm_package}@{self.spec.version}'s "
                f"`{self.binary_name}` (or leave it out and run `proctor agents install`)"
            )
        else:
            fix = f"`proctor agents install` puts {self.spec.version} in ./.agents"
        return (
            f"{binary} is version {_found(probe)}, not {self.spec.version}, the version "
            f"proctor pins and is tested with (its flags, terminal UI and transcript may "
            f'differ); {fix}, or set "version": "{found or "…"}" in the profile to run this '
            "one without this warning"
        )

    def parse(self, path: Path) -> Trajectory:
        return parse_any(path, self.transcript_format)
