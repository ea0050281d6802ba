#!/usr/bin/env python3
"""A deliberately broken installer of "tidy", for ``proctor addon check-install`` to catch.

    python3 broken_install.py install   [--bug NAME ...] [--agent ...]
    python3 broken_install.py uninstall [--bug NAME ...] [--agent ...]

It is ``install.py`` with mistakes real installers make, each switched on by ``--bug`` (all of
them when none is named, so that the command as a whole fails):

- ``skill-wrong-place``: Claude Code's skill goes to ``~/.claude/tidy/`` (Claude Code loads
  ``~/.claude/skills/<name>/SKILL.md``), so it is never loaded;
- ``hook-twice``: the hook is appended on every run, so a second install adds a second copy;
- ``clobbers-settings``: Gemini CLI's ``settings.json`` is rewritten from scratch, losing the
  user's own settings;
- ``writes-project``: a ``.tidy.json`` lands in the current (project) folder;
- ``drops-permission``: the uninstall deletes all of Claude Code's ``permissions.allow``,
  the user's rules with its own;
- ``leaves-mcp``: the uninstall forgets Codex's MCP server entry.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import install as good

BUGS = (
    "skill-wrong-place",
    "hook-twice",
    "clobbers-settings",
    "writes-project",
    "drops-permission",
    "leaves-mcp",
)


def append_hook_group(doc: dict[str, Any], event: str, matcher: str) -> None:
    group = {"matcher": matcher, "hooks": [{"type": "command", "command": good.hook_command()}]}
    doc.setdefault("hooks", {}).setdefault(event, []).append(group)


def install_claude_skill_in_wrong_place() -> None:
    original_copy = good.copy_tree

    def copy_tree(source: Path, dest: Path) -> None:
        if dest == good.home() / ".claude" / "skills" / good.NAME:
            dest = good.home() / ".claude" / good.NAME
        original_copy(source, dest)

    good.copy_tree = copy_tree


def clobbering_read_json(path: Path) -> dict[str, Any]:
    if path == good.home() / ".gemini" / "settings.json":
        return {}
    return good.json.loads(path.read_text()) if path.is_file() else {}


def write_into_project() -> None:
    (Path.cwd() / ".tidy.json").write_text('{"installed": true}\n')


def uninstall_dropping_permissions() -> None:
    settings_file = good.home() / ".claude" / "settings.json"
    settings = good.read_json(settings_file)
    good.remove_hook_groups(settings)
    settings.get("permissions", {}).pop("allow", None)
    good.write_json(settings_file, settings)
    good.remove_tree(good.home() / ".claude" / "skills" / good.NAME)
    good.set_server(good.home() / ".claude.json", "mcpServers", None)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("install", "uninstall"))
    parser.add_argument("--bug", action="append", choices=BUGS)
    parser.add_argument("--agent", action="append", choices=good.AGENTS)
    args = parser.parse_args()
    bugs = set(args.bug or BUGS)
    if "skill-wrong-place" in bugs:
        install_claude_skill_in_wrong_place()
    if "hook-twice" in bugs:
        good.add_hook_group = append_hook_group
    if "clobbers-settings" in bugs and args.action == "install":
        good.read_json = clobbering_read_json
    if "drops-permission" in bugs:
        good.INSTALLERS["claude-code"] = (good.install_claude_code, uninstall_dropping_permissions)
    if "leaves-mcp" in bugs:
        good.strip_toml_block = lambda text: text
    agents = args.agent or list(good.AGENTS)
    if args.action == "install":
        good.install(agents)
        if "writes-project" in bugs:
            write_into_project()
    else:
        good.uninstall(agents)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
