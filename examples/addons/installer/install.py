#!/usr/bin/env python3
"""Installer of the example add-on "tidy" for Claude Code, Codex and Gemini CLI.

    python3 install.py install   [--agent claude-code|codex|gemini-cli ...]
    python3 install.py uninstall [--agent ...]

It copies its files to ``~/.tidy`` and registers, for each agent, in that agent's own place:
the skill ``tidy``, a hook that runs ``~/.tidy/guard.sh`` before shell commands, the MCP server
``tidy`` and (Claude Code) a permission rule for that server's tools. It merges into the
user's settings instead of rewriting them, does nothing the second time, and its uninstall
removes exactly what it added. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
from pathlib import Path
from typing import Any

NAME = "tidy"
PAYLOAD = Path(__file__).resolve().parent / "payload"
AGENTS = ("claude-code", "codex", "gemini-cli")
TOML_BEGIN, TOML_END = f"# >>> {NAME} (managed by the {NAME} installer)", f"# <<< {NAME}"


def home() -> Path:
    return Path(os.environ["HOME"])


def data_dir() -> Path:
    return home() / f".{NAME}"


def hook_command() -> str:
    return str(data_dir() / "guard.sh")


def mcp_entry() -> dict[str, Any]:
    return {"command": "python3", "args": [str(data_dir() / "server.py")]}


# -- files ---------------------------------------------------------------------------------


def read_json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text()) if path.is_file() else {}


def write_json(path: Path, doc: dict[str, Any]) -> None:
    """Write ``doc``, or remove the file when nothing is left in it."""
    if not doc:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2) + "\n")


def copy_tree(source: Path, dest: Path) -> None:
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(source, dest)


def remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
    prune_empty_parents(path.parent)


def prune_empty_parents(folder: Path) -> None:
    """Remove folders the install created and left empty, up to the home."""
    while folder != home() and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


# -- settings ------------------------------------------------------------------------------


def add_hook_group(doc: dict[str, Any], event: str, matcher: str) -> None:
    groups = doc.setdefault("hooks", {}).setdefault(event, [])
    group = {"matcher": matcher, "hooks": [{"type": "command", "command": hook_command()}]}
    if group not in groups:
        groups.append(group)


def remove_hook_groups(doc: dict[str, Any]) -> None:
    hooks = doc.get("hooks", {})
    for event in list(hooks):
        hooks[event] = [
            g for g in hooks[event] if all(h.get("command") != hook_command() for h in g["hooks"])
        ]
        if not hooks[event]:
            del hooks[event]
    if "hooks" in doc and not hooks:
        del doc["hooks"]


def add_item(doc: dict[str, Any], keys: tuple[str, ...], item: str) -> None:
    for key in keys[:-1]:
        doc = doc.setdefault(key, {})
    items = doc.setdefault(keys[-1], [])
    if item not in items:
        items.append(item)


def remove_item(doc: dict[str, Any], keys: tuple[str, ...], item: str) -> None:
    parents = [doc]
    for key in keys[:-1]:
        parents.append(parents[-1].get(key, {}))
    items = parents[-1].get(keys[-1], [])
    if item in items:
        items.remove(item)
    for parent, key in reversed(list(zip(parents, keys, strict=True))):
        if key in parent and not parent[key]:
            del parent[key]


def set_server(path: Path, key: str, entry: dict[str, Any] | None) -> None:
    doc = read_json(path)
    servers = doc.setdefault(key, {})
    if entry is None:
        servers.pop(NAME, None)
    else:
        servers[NAME] = entry
    if not servers:
        del doc[key]
    write_json(path, doc)


def toml_block() -> str:
    args = ", ".join(json.dumps(a) for a in mcp_entry()["args"])
    return f'{TOML_BEGIN}\n[mcp_servers.{NAME}]\ncommand = "python3"\nargs = [{args}]\n{TOML_END}\n'


def strip_toml_block(text: str) -> str:
    if TOML_BEGIN not in text:
        return text
    head, rest = text.split(TOML_BEGIN, 1)
    tail = rest.split(TOML_END + "\n", 1)[1] if TOML_END + "\n" in rest else ""
    return head + tail


# -- agents --------------------------------------------------------------------------------


def install_claude_code() -> None:
    copy_tree(PAYLOAD / "skills" / NAME, home() / ".claude" / "skills" / NAME)
    settings_file = home() / ".claude" / "settings.json"
    settings = read_json(settings_file)
    add_hook_group(settings, "PreToolUse", "Bash")
    add_item(settings, ("permissions", "allow"), f"mcp__{NAME}")
    write_json(settings_file, settings)
    set_server(home() / ".claude.json", "mcpServers", {"type": "stdio", **mcp_entry()})


def uninstall_claude_code() -> None:
    remove_tree(home() / ".claude" / "skills" / NAME)
    settings_file = home() / ".claude" / "settings.json"
    settings = read_json(settings_file)
    remove_hook_groups(settings)
    remove_item(settings, ("permissions", "allow"), f"mcp__{NAME}")
    write_json(settings_file, settings)
    set_server(home() / ".claude.json", "mcpServers", None)


def install_codex() -> None:
    copy_tree(PAYLOAD / "skills" / NAME, home() / ".agents" / "skills" / NAME)
    hooks_file = home() / ".codex" / "hooks.json"
    hooks = read_json(hooks_file)
    add_hook_group(hooks, "PreToolUse", "Bash")
    write_json(hooks_file, hooks)
    config = home() / ".codex" / "config.toml"
    text = config.read_text() if config.is_file() else ""
    if TOML_BEGIN not in text:
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(text + ("\n" if text and not text.endswith("\n") else "") + toml_block())


def uninstall_codex() -> None:
    remove_tree(home() / ".agents" / "skills" / NAME)
    hooks_file = home() / ".codex" / "hooks.json"
    hooks = read_json(hooks_file)
    remove_hook_groups(hooks)
    write_json(hooks_file, hooks)
    config = home() / ".codex" / "config.toml"
    if config.is_file():
        text = strip_toml_block(config.read_text())
        if text.strip():
            config.write_text(text)
        else:
            config.unlink()
    prune_empty_parents(home() / ".codex")


def install_gemini_cli() -> None:
    copy_tree(PAYLOAD / "skills" / NAME, home() / ".gemini" / "skills" / NAME)
    settings_file = home() / ".gemini" / "settings.json"
    settings = read_json(settings_file)
    add_hook_group(settings, "BeforeTool", "run_shell_command")
    settings.setdefault("mcpServers", {})[NAME] = mcp_entry()
    write_json(settings_file, settings)


def uninstall_gemini_cli() -> None:
    remove_tree(home() / ".gemini" / "skills" / NAME)
    settings_file = home() / ".gemini" / "settings.json"
    settings = read_json(settings_file)
    remove_hook_groups(settings)
    write_json(settings_file, settings)
    set_server(settings_file, "mcpServers", None)
    prune_empty_parents(home() / ".gemini")


def install(agents: list[str]) -> None:
    data_dir().mkdir(exist_ok=True)
    for name in ("guard.sh", "server.py"):
        shutil.copy2(PAYLOAD / name, data_dir() / name)
    for agent in agents:
        INSTALLERS[agent][0]()


def uninstall(agents: list[str]) -> None:
    for agent in agents:
        INSTALLERS[agent][1]()
    shutil.rmtree(data_dir(), ignore_errors=True)


INSTALLERS = {
    "claude-code": (install_claude_code, uninstall_claude_code),
    "codex": (install_codex, uninstall_codex),
    "gemini-cli": (install_gemini_cli, uninstall_gemini_cli),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("install", "uninstall"))
    parser.add_argument("--agent", action="append", choices=AGENTS)
    args = parser.parse_args(argv)
    agents = args.agent or list(AGENTS)
    (install if args.action == "install" else uninstall)(agents)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
