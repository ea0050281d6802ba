"""Keeping an installer away from the user's real home: refuse a command that points a home
variable elsewhere, names a hidden folder or file of the real home (``/home/me/.claude``,
``/home/me/.config``…) or names a home by user (``~me``, ``getent passwd``), and fingerprint
the agents' folders before and after so a write that slipped through (an absolute path built
at run time) is caught.

What this cannot see: a command that writes to an absolute path it builds itself outside the
watched folders. Only a sandbox could prevent that; ``docs/addons.md`` says so.
"""

from __future__ import annotations

import hashlib
import json
import os
import pwd
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from proctor.addons.install_planted import claude_state_servers
from proctor.addons.install_scratch import file_digest
from proctor.errors import ConfigError

HOME_VARIABLES = re.compile(
    r"(?<![\w])(HOME|XDG_[A-Z]+_HOME|CODEX_HOME|CLAUDE_CONFIG_DIR|GEMINI_CLI_HOME)=(\S*)"
)
WATCHED = (
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".claude/skills",
    ".claude/plugins",
    ".claude/hooks",
    ".claude/agents",
    ".claude/commands",
    ".claude/CLAUDE.md",
    ".claude.json",
    ".codex/config.toml",
    ".codex/hooks.json",
    ".codex/skills",
    ".codex/AGENTS.md",
    ".codex/prompts",
    ".agents/skills",
    ".gemini/settings.json",
    ".gemini/extensions",
    ".gemini/skills",
    ".gemini/GEMINI.md",
    ".gemini/commands",
)
"""Where an installer for the three agents writes. Only these are watched: the rest of a home
changes all the time (a running agent rewrites its own state), which is not the installer's."""
MAX_ENTRIES = 5000
OTHER_HOME = re.compile(r"(?:^|(?<=[\s=:;|&(`'\"]))~[A-Za-z_][\w.-]*|getent\s+passwd")
"""A home named by user (``~root/.claude``, a ``~`` that begins a word: ``a~b`` is no home)
or looked up (``getent passwd``): refused."""
QUOTES = re.compile(r"[\"'\\]")
SAME_FOLDER = re.compile(r"/(?:\.?/)+")
"""``//`` and ``/./`` in a path: the same folder as ``/``."""


UP_AGAIN = re.compile(r"/(?!\.\.?(?:/|$))[^/\s;|&()]+/\.\.(?=/|[\s;|&)]|$)")
"""A folder then ``..``: the folder above it (``/home/me/sub/..`` is ``/home/me``)."""


def _plain_paths(text: str) -> str:
    """A command as the shell would join its paths: quotes and backslashes gone, ``//`` and
    ``/./`` read as ``/``, a folder then ``..`` as the folder above (``'/home/me'/.claude``,
    ``/home/me//.claude`` and ``/home/me/sub/../.claude`` name one folder)."""
    text = SAME_FOLDER.sub("/", QUOTES.sub("", text))
    while (shorter := UP_AGAIN.sub("", text)) != text:
        text = shorter
    return text


def real_homes() -> list[Path]:
    """The user's home as ``$HOME`` says and as the password database says."""
    homes = [Path(os.path.expanduser("~"))]
    try:
        homes.append(Path(pwd.getpwuid(os.getuid()).pw_dir))
    except KeyError:
        pass
    return list(dict.fromkeys(h for h in homes if str(h) not in ("", "/")))


def refuse_real_home(command: str, homes: Iterable[Path], option: str) -> None:
    """Refuse a command that would resolve a home to anything but the scratch one."""
    for match in HOME_VARIABLES.finditer(command):
        if not match[2].strip("\"'").startswith(("{home}", "{project}")):
            raise ConfigError(
                f"{option}: the command sets {match[1]} itself; proctor points it at the "
                "scratch home ({home})"
            )
    plain = _plain_paths(command)
    for home in homes:
        root = _plain_paths(str(home)).rstrip("/")
        found = re.search(re.escape(root) + r"/\.[^\s/;|&)]*", plain)
        if found:
            raise ConfigError(
                f"{option}: the command names {found[0]} in your real home; use {{home}}"
            )
        # The home itself (`cd /home/me && … .claude`, `H=/home/me; … $H/.claude`): its
        # hidden folders are a step away, written as no path of the home names them.
        itself = re.search(r"(?<![\w./-])" + re.escape(root) + r"/?(?=$|[\s;|&)`])", plain)
        if itself:
            raise ConfigError(
                f"{option}: the command names your real home {root} itself; use {{home}}"
            )
    other = OTHER_HOME.search(command)
    if other:
        raise ConfigError(f"{option}: the command names a home by user ({other[0]}); use {{home}}")


Fingerprint = dict[str, str]


def fingerprint(homes: Sequence[Path]) -> Fingerprint:
    """What identifies the watched files of each home: a digest per file (for ``.claude.json``
    its ``mcpServers`` only, the rest being Claude Code's own bookkeeping)."""
    found: Fingerprint = {}
    for home in homes:
        for rel in WATCHED:
            path = home / rel
            items = _walk(path)
            # Each watched path has its own budget of digests (a large plugin cache must not
            # leave the paths after it unwatched); past it, what identifies the rest is each
            # file's size and time, folded into one entry.
            for item in items[:MAX_ENTRIES]:
                found[str(item)] = _identity(item)
            if len(items) > MAX_ENTRIES:
                found[f"{path} (files past the first {MAX_ENTRIES})"] = _stamps(items[MAX_ENTRIES:])
            if not path.exists() and not path.is_symlink():
                found[str(path)] = "absent"
    return found


def _walk(path: Path) -> list[Path]:
    if path.is_symlink() or path.is_file():
        return [path]
    if path.is_dir():
        return sorted(path.rglob("*"))
    return []


def _stamps(items: Sequence[Path]) -> str:
    digest = hashlib.sha256()
    for item in items:
        try:
            st = item.lstat()
            digest.update(f"{item}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_mode}\n".encode())
        except OSError:
            digest.update(f"{item}\0gone\n".encode())
    return f"{len(items)}:{digest.hexdigest()}"


def _identity(path: Path) -> str:
    try:
        if path.is_symlink():
            return "link:" + os.readlink(path)
        if path.is_dir():
            return "dir"
        if path.name == ".claude.json":
            data = json.loads(path.read_text(encoding="utf-8"))
            return "mcp:" + json.dumps(claude_state_servers(data), sort_keys=True)
        return file_digest(path)
    except (OSError, ValueError):
        return "unreadable"


def touched(before: Fingerprint, after: Fingerprint) -> list[str]:
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))
