"""Planted layouts for the audit tests: the files of a home (``home/``) and a project (``proj/``)
and the truth, every component the audit must report as ``(kind, name, file, is_decoy)`` with
``file`` relative to the planting root. Six or more per CLI, each decoy kind included."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

Truth = set[tuple[str, str, str, bool]]
Layout = tuple[dict[str, Any], Truth]

SKILL = "---\nname: FOLDER\ndescription: d\n---\nDo it.\n"
"""A described skill named as its folder (``FOLDER``, replaced when planted)."""
FRONT_MATTERS = {
    "described": SKILL,
    "plain": "Just a body, no front matter.\n",
    "nodesc": "---\nname: nodesc\n---\nBody.\n",
    "noname": "---\ndescription: d\n---\nBody.\n",
    "folder": "---\nname: other\ndescription: d\n---\nBody.\n",
    "lenient": "---\nname: lenient\ndescription: not YAML: a: b: [\n---\nBody.\n",
    "wrapped": "---\nname: wrapped\ndescription:\n  on the next line\n---\nBody.\n",
    "multiline": '---\nname: multiline\ndescription: "a quote\n  closed here"\n---\nBody.\n',
    "unclosed": '---\nname: unclosed\ndescription: "never closed\n---\nBody.\n',
    "trailing": "---\nname: trailing\ndescription: 'quoted' then more\n---\nBody.\n",
    "listed": "---\nname: listed\ndescription: [a, b]\n---\nBody.\n",
    "twice": "---\nname: twice\ndescription: d\ndescription: e\n---\nBody.\n",
    "otherquote": '---\nname: otherquote\ndescription: d\nmodel: "never closed\n---\nBody.\n',
    "indented": "---\nname: indented\ndescription: d\n  model: x\n---\nBody.\n",
    "toplist": "---\n- name: toplist\n- description: d\n---\nBody.\n",
    "alias": "---\nname: alias\ndescription: d\ntools: *none\n---\nBody.\n",
    "tabbed": "---\nname: tabbed\n\tdescription: d\n---\nBody.\n",
    "tabwrapped": "---\nname: tabwrapped\ndescription:\n\ton the next line\n---\nBody.\n",
    "quotedname": '---\nname: "quoted"\ndescription: d\ntools: *none\n---\nBody.\n',
}
"""SKILL.md files each CLI reads its own way (``front_matter.py``), by folder name."""


def plant(root: Path, files: dict[str, Any]) -> None:
    """``None`` makes a folder, a dict or list a JSON file, a string a text file; ``HOME/`` and
    ``PROJ`` in a file's text stand for the planted home and project."""
    for rel, content in files.items():
        path = root / rel
        if content is None:
            path.mkdir(parents=True, exist_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        text = content if isinstance(content, str) else json.dumps(content)
        text = text.replace("HOME/", f"{root / 'home'}/").replace("PROJ", str(root / "proj"))
        text = text.replace("FOLDER", path.parent.name)
        path.write_text(text, encoding="utf-8")


def hook(command: str, matcher: str | None = None) -> dict[str, Any]:
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": command}]}
    if matcher:
        group["matcher"] = matcher
    return group


CS = "home/.claude/settings.json"
CLAUDE: dict[str, Layout] = {
    "skills": (
        {
            "home/.claude/skills/lint/SKILL.md": SKILL,
            "home/.claude/skills/empty": None,
            "proj/.claude/skills/deploy/SKILL.md": SKILL,
            "home/.agents/skills/codex-only/SKILL.md": SKILL,  # not Claude Code's
        },
        {
            ("skill", "lint", "home/.claude/skills/lint/SKILL.md", False),
            ("skill", "empty", "home/.claude/skills/empty", True),
            ("skill", "deploy", "proj/.claude/skills/deploy/SKILL.md", False),
        },
    ),
    "hooks-and-permissions": (
        {
            CS: {
                "hooks": {
                    "PreToolUse": [hook("./guard.sh", "Bash"), {"matcher": "Write", "hooks": []}],
                    "SessionStart": [hook("echo start")],
                },
                "permissions": {
                    "allow": ["Bash(ls:*)"],
                    "deny": ["Read(./.env)"],
                    "ask": ["Bash(git push:*)"],
                    "block": ["WebFetch"],
                    "defaultMode": "acceptEdits",
                    "additionalDirectories": ["../docs"],  # a setting, not a rule list
                    "disableBypassPermissionsMode": "disable",
                },
            },
            "proj/.claude/settings.local.json": {"hooks": {"Stop": [hook("notify-send done")]}},
        },
        {
            ("hook", "PreToolUse:Bash", CS, False),
            ("hook", "PreToolUse:Write", CS, True),
            ("hook", "SessionStart", CS, False),
            ("permission", "Bash(ls:*)", CS, False),
            ("permission", "Read(./.env)", CS, False),
            ("permission", "Bash(git push:*)", CS, False),
            ("permission", "WebFetch", CS, True),
            ("hook", "Stop", "proj/.claude/settings.local.json", False),
        },
    ),
    "plugins": (
        {
            CS: {"enabledPlugins": {"fmt@mkt": True, "old@mkt": False, "ghost@mkt": True}},
            "home/.claude/plugins/installed_plugins.json": {
                "version": 2,
                "plugins": {
                    "fmt@mkt": [{"scope": "user", "installPath": "HOME/.claude/plugins/c/fmt"}],
                    "old@mkt": [{"scope": "user", "installPath": "HOME/.claude/plugins/c/old"}],
                },
            },
            "home/.claude/plugins/c/fmt/.claude-plugin/plugin.json": {"name": "fmt"},
            "home/.claude/plugins/c/fmt/skills/style/SKILL.md": SKILL,
            "home/.claude/plugins/c/fmt/hooks/hooks.json": {
                "hooks": {"PostToolUse": [hook("fmt.sh", "Edit")]}
            },
            "home/.claude/plugins/c/fmt/.mcp.json": {"mcpServers": {"fmt-db": {"command": "db"}}},
            "home/.claude/plugins/c/old/skills/stale/SKILL.md": SKILL,
        },
        {
            ("plugin", "fmt@mkt", "home/.claude/plugins/installed_plugins.json", False),
            ("plugin", "old@mkt", "home/.claude/plugins/installed_plugins.json", True),
            ("plugin", "ghost@mkt", "home/.claude/plugins/installed_plugins.json", True),
            ("skill", "fmt:style", "home/.claude/plugins/c/fmt/skills/style/SKILL.md", False),
            ("hook", "PostToolUse:Edit", "home/.claude/plugins/c/fmt/hooks/hooks.json", False),
            ("mcp", "fmt-db", "home/.claude/plugins/c/fmt/.mcp.json", False),
        },
    ),
    "mcp": (
        {
            "home/.claude.json": {
                "mcpServers": {
                    "notes": {"command": "notes-server", "args": ["--stdio"]},
                    "search": {"type": "http", "url": "https://example.test/mcp"},
                    "broken": {"args": ["x"]},
                },
                "projects": {"PROJ": {"mcpServers": {"local-db": {"command": "db"}}}},
            },
            "proj/.mcp.json": {"mcpServers": {"team": {"command": "t"}, "off": {"command": "o"}}},
            CS: {"disabledMcpjsonServers": ["off"], "mcpServers": {"misplaced": {"command": "m"}}},
        },
        {
            ("mcp", "notes", "home/.claude.json", False),
            ("mcp", "search", "home/.claude.json", False),
            ("mcp", "broken", "home/.claude.json", True),
            ("mcp", "local-db", "home/.claude.json", False),
            ("mcp", "team", "proj/.mcp.json", False),
            ("mcp", "off", "proj/.mcp.json", True),
            ("mcp", "misplaced", CS, True),
        },
    ),
    "instructions-and-foreign": (
        {
            "home/.claude/CLAUDE.md": "Be brief.",
            "proj/CLAUDE.md": "Project rules.",
            "proj/.claude/rules/testing.md": "Run tests.",
            "home/.claude/config.toml": "model = 'x'\n",
            "home/.claude/GEMINI.md": "Gemini's.",
            "home/.gemini/settings.json": {"mcpServers": {"g": {"command": "g"}}},
            "proj/AGENTS.md": "Codex's.",
        },
        {
            ("instructions", "CLAUDE.md", "home/.claude/CLAUDE.md", False),
            ("instructions", "CLAUDE.md", "proj/CLAUDE.md", False),
            ("instructions", "testing.md", "proj/.claude/rules/testing.md", False),
            ("settings", "config.toml", "home/.claude/config.toml", True),
            ("instructions", "GEMINI.md", "home/.claude/GEMINI.md", True),
        },
    ),
    "malformed-and-switched-off": (
        {
            CS: "{ not json",
            "proj/.claude/settings.json": {
                "disableAllHooks": True,
                "hooks": {"PreToolUse": [hook("guard", "Bash")]},
            },
            "proj/.mcp.json": [1, 2],
        },
        {("hook", "PreToolUse:Bash", "proj/.claude/settings.json", True)},
    ),
    # Every SKILL.md loads, described or not: Claude Code 2.1.197 lists one without a
    # description to the model by its body's first paragraph (measured by
    # tests/contract/test_skills.py::test_claude_code_offers_skills_without_a_description_to_the_model).
    "skill-front-matter": (
        {
            "home/.claude/skills/plain/SKILL.md": "Just a body, no front matter.\n",
            "home/.claude/skills/nodesc/SKILL.md": "---\nname: nodesc\n---\nBody.\n",
            "home/.claude/skills/blank/SKILL.md": "---\nname: b\ndescription:\n---\nBody.\n",
            "home/.claude/skills/folded/SKILL.md": "---\ndescription: >\n  long\n---\nBody.\n",
            "home/.claude/skills/badyaml/SKILL.md": "---\nname: [x\ndescription: : :\n---\nB\n",
            "home/.claude/skills/blankfile/SKILL.md": "",
        },
        {
            ("skill", "plain", "home/.claude/skills/plain/SKILL.md", False),
            ("skill", "nodesc", "home/.claude/skills/nodesc/SKILL.md", False),
            ("skill", "blank", "home/.claude/skills/blank/SKILL.md", False),
            ("skill", "blankfile", "home/.claude/skills/blankfile/SKILL.md", False),
            ("skill", "folded", "home/.claude/skills/folded/SKILL.md", False),
            ("skill", "badyaml", "home/.claude/skills/badyaml/SKILL.md", False),
        },
    ),
    "plugin-manifest-hooks": (
        {
            CS: {"enabledPlugins": {"a@mkt": True, "b@mkt": True}},
            "home/.claude/plugins/installed_plugins.json": {
                "version": 2,
                "plugins": {
                    "a@mkt": [{"scope": "user", "installPath": "HOME/.claude/plugins/c/a"}],
                    "b@mkt": [{"scope": "user", "installPath": "HOME/.claude/plugins/c/b"}],
                },
            },
            "home/.claude/plugins/c/a/.claude-plugin/plugin.json": {
                "name": "a",
                "hooks": ["./custom/extra.json", "./hooks/hooks.json"],
            },
            "home/.claude/plugins/c/a/hooks/hooks.json": {"hooks": {"Stop": [hook("a-stop")]}},
            "home/.claude/plugins/c/a/custom/extra.json": {
                "hooks": {"SessionStart": [hook("a-start")]}
            },
            "home/.claude/plugins/c/b/.claude-plugin/plugin.json": {
                "name": "b",
                "hooks": {"PreToolUse": [hook("b-guard", "Bash")]},
            },
        },
        {
            ("plugin", "a@mkt", "home/.claude/plugins/installed_plugins.json", False),
            ("plugin", "b@mkt", "home/.claude/plugins/installed_plugins.json", False),
            ("hook", "Stop", "home/.claude/plugins/c/a/hooks/hooks.json", False),
            ("hook", "SessionStart", "home/.claude/plugins/c/a/custom/extra.json", False),
            (
                "hook",
                "PreToolUse:Bash",
                "home/.claude/plugins/c/b/.claude-plugin/plugin.json",
                False,
            ),
        },
    ),
    "hooks-switched-off-by-the-project": (
        {
            CS: {"hooks": {"SessionStart": [hook("echo user")]}},
            "proj/.claude/settings.json": {"disableAllHooks": True},
            "proj/.claude/settings.local.json": {"hooks": {"Stop": [hook("echo local")]}},
        },
        {
            ("hook", "SessionStart", CS, True),
            ("hook", "Stop", "proj/.claude/settings.local.json", True),
        },
    ),
    "hooks-switched-on-again-locally": (
        {
            CS: {"disableAllHooks": True, "hooks": {"SessionStart": [hook("echo user")]}},
            "proj/.claude/settings.local.json": {"disableAllHooks": False},
        },
        {("hook", "SessionStart", CS, False)},
    ),
}

CX = "home/.codex/config.toml"
CODEX: dict[str, Layout] = {
    "mcp": (
        {
            CX: (
                '[mcp_servers.notes]\ncommand = "notes"\nargs = ["--stdio"]\n'
                '[mcp_servers.docs]\nurl = "https://example.test/mcp"\n'
                '[mcp_servers.off]\ncommand = "o"\nenabled = false\n'
                '[mcp_servers.broken]\nargs = ["x"]\n'
            )
        },
        {
            ("mcp", "notes", CX, False),
            ("mcp", "docs", CX, False),
            ("mcp", "off", CX, True),
            ("mcp", "broken", CX, True),
        },
    ),
    "hooks": (
        {
            CX: 'notify = ["notify-send", "codex"]\n',
            "home/.codex/hooks.json": {
                "hooks": {
                    "PreToolUse": [hook("guard.sh", "Bash"), {"matcher": "apply_patch"}],
                    "Stop": [hook("done.sh")],
                }
            },
        },
        {
            ("hook", "notify", CX, False),
            ("hook", "PreToolUse:Bash", "home/.codex/hooks.json", False),
            ("hook", "PreToolUse:apply_patch", "home/.codex/hooks.json", True),
            ("hook", "Stop", "home/.codex/hooks.json", False),
        },
    ),
    "skills": (
        {
            "home/.agents/skills/review/SKILL.md": SKILL,
            "home/.codex/skills/legacy/SKILL.md": SKILL,
            "home/.codex/skills/.system/builtin/SKILL.md": SKILL,
            "home/.agents/skills/hollow": None,
            "proj/.agents/skills/repo-skill/SKILL.md": SKILL,
            "home/.claude/skills/claude-only/SKILL.md": SKILL,
        },
        {
            ("skill", "review", "home/.agents/skills/review/SKILL.md", False),
            ("skill", "legacy", "home/.codex/skills/legacy/SKILL.md", False),
            ("skill", "hollow", "home/.agents/skills/hollow", True),
            ("skill", "repo-skill", "proj/.agents/skills/repo-skill/SKILL.md", False),
        },
    ),
    "skill-front-matter": (
        # Codex 0.171 loads a SKILL.md whose front matter gives a description, under its
        # name (else its folder's); not one without front matter or description.
        {f"home/.agents/skills/{name}/SKILL.md": text for name, text in FRONT_MATTERS.items()},
        {
            ("skill", "described", "home/.agents/skills/described/SKILL.md", False),
            ("skill", "plain", "home/.agents/skills/plain/SKILL.md", True),
            ("skill", "nodesc", "home/.agents/skills/nodesc/SKILL.md", True),
            ("skill", "noname", "home/.agents/skills/noname/SKILL.md", False),
            ("skill", "other", "home/.agents/skills/folder/SKILL.md", False),
            ("skill", "lenient", "home/.agents/skills/lenient/SKILL.md", False),
            ("skill", "wrapped", "home/.agents/skills/wrapped/SKILL.md", False),
            # ... nor one whose description YAML does not read as a string.
            ("skill", "multiline", "home/.agents/skills/multiline/SKILL.md", False),
            ("skill", "unclosed", "home/.agents/skills/unclosed/SKILL.md", True),
            ("skill", "trailing", "home/.agents/skills/trailing/SKILL.md", True),
            ("skill", "listed", "home/.agents/skills/listed/SKILL.md", True),
            ("skill", "twice", "home/.agents/skills/twice/SKILL.md", True),
            # ... nor one whose front matter YAML cannot read elsewhere (measured with the
            # app server's skills/list).
            ("skill", "otherquote", "home/.agents/skills/otherquote/SKILL.md", True),
            ("skill", "indented", "home/.agents/skills/indented/SKILL.md", True),
            ("skill", "toplist", "home/.agents/skills/toplist/SKILL.md", True),
            ("skill", "alias", "home/.agents/skills/alias/SKILL.md", True),
            ("skill", "tabbed", "home/.agents/skills/tabbed/SKILL.md", True),
            ("skill", "tabwrapped", "home/.agents/skills/tabwrapped/SKILL.md", True),
            ("skill", "quotedname", "home/.agents/skills/quotedname/SKILL.md", True),
        },
    ),
    "instructions": (
        {
            "home/.codex/AGENTS.md": "general",
            "home/.codex/AGENTS.override.md": "override",
            "proj/AGENTS.md": "project",
            "proj/CLAUDE.md": "Claude's",
        },
        {
            ("instructions", "AGENTS.md", "home/.codex/AGENTS.md", True),
            ("instructions", "AGENTS.override.md", "home/.codex/AGENTS.override.md", False),
            ("instructions", "AGENTS.md", "proj/AGENTS.md", False),
        },
    ),
    "foreign": (
        {
            "home/.codex/settings.json": {"mcpServers": {"x": {"command": "x"}}},
            "home/.codex/CLAUDE.md": "Claude's",
            "home/.claude/settings.json": {"hooks": {"Stop": [hook("s")]}},
        },
        {
            ("settings", "settings.json", "home/.codex/settings.json", True),
            ("instructions", "CLAUDE.md", "home/.codex/CLAUDE.md", True),
        },
    ),
    "malformed": (
        {
            CX: "[mcp_servers.notes\ncommand=",
            "home/.codex/hooks.json": {"hooks": {"Stop": [hook("s")]}},
        },
        {("hook", "Stop", "home/.codex/hooks.json", False)},
    ),
}

GS = "home/.gemini/settings.json"
EXT = "home/.gemini/extensions"
GEMINI: dict[str, Layout] = {
    "mcp": (
        {
            GS: {
                "mcpServers": {
                    "notes": {"command": "notes"},
                    "api": {"httpUrl": "https://example.test/mcp"},
                    "events": {"url": "https://example.test/sse"},
                    "broken": {"args": ["x"]},
                    "blocked": {"command": "b"},
                },
                "mcp": {"excluded": ["blocked"]},
            }
        },
        {
            ("mcp", "notes", GS, False),
            ("mcp", "api", GS, False),
            ("mcp", "events", GS, False),
            ("mcp", "broken", GS, True),
            ("mcp", "blocked", GS, True),
        },
    ),
    "hooks": (
        {
            GS: {
                "hooks": {
                    "BeforeTool": [
                        hook("guard.sh", "run_shell_command"),
                        {"matcher": "write_file"},
                    ],
                    "AfterAgent": [hook("muted.sh")],
                },
                "hooksConfig": {"disabled": ["muted.sh"]},
            },
            "proj/.gemini/settings.json": {"hooks": {"SessionStart": [hook("hello")]}},
        },
        {
            ("hook", "BeforeTool:run_shell_command", GS, False),
            ("hook", "BeforeTool:write_file", GS, True),
            ("hook", "AfterAgent", GS, True),
            ("hook", "SessionStart", "proj/.gemini/settings.json", False),
        },
    ),
    "skills": (
        {
            GS: {"skills": {"disabled": ["muted"]}},
            "home/.gemini/skills/write/SKILL.md": SKILL,
            "home/.gemini/skills/muted/SKILL.md": SKILL,
            "home/.gemini/skills/bare": None,
            "home/.agents/skills/shared/SKILL.md": SKILL,
            "proj/.gemini/skills/local/SKILL.md": SKILL,
        },
        {
            ("skill", "write", "home/.gemini/skills/write/SKILL.md", False),
            ("skill", "muted", "home/.gemini/skills/muted/SKILL.md", True),
            ("skill", "bare", "home/.gemini/skills/bare", True),
            ("skill", "shared", "home/.agents/skills/shared/SKILL.md", False),
            ("skill", "local", "proj/.gemini/skills/local/SKILL.md", False),
        },
    ),
    "skill-front-matter": (
        # Gemini CLI 0.61 loads a SKILL.md whose front matter gives a name and a description,
        # under that name, which skills.disabled matches without regard to case.
        {
            **{f"home/.gemini/skills/{name}/SKILL.md": t for name, t in FRONT_MATTERS.items()},
            "home/.gemini/skills/casey/SKILL.md": "---\nname: Tidy\ndescription: d\n---\nB\n",
            GS: {"skills": {"disabled": ["TIDY", "folder"]}},
        },
        {
            ("skill", "described", "home/.gemini/skills/described/SKILL.md", False),
            ("skill", "plain", "home/.gemini/skills/plain/SKILL.md", True),
            ("skill", "nodesc", "home/.gemini/skills/nodesc/SKILL.md", True),
            ("skill", "noname", "home/.gemini/skills/noname/SKILL.md", True),
            ("skill", "other", "home/.gemini/skills/folder/SKILL.md", False),
            ("skill", "lenient", "home/.gemini/skills/lenient/SKILL.md", False),
            ("skill", "wrapped", "home/.gemini/skills/wrapped/SKILL.md", False),
            # Where js-yaml stops, Gemini CLI reads the `name:` and `description:` lines (at any
            # indentation, the last of each) as they are written, quotes and all.
            ("skill", "multiline", "home/.gemini/skills/multiline/SKILL.md", False),
            ("skill", "unclosed", "home/.gemini/skills/unclosed/SKILL.md", False),
            ("skill", "trailing", "home/.gemini/skills/trailing/SKILL.md", False),
            ("skill", "listed", "home/.gemini/skills/listed/SKILL.md", False),
            ("skill", "twice", "home/.gemini/skills/twice/SKILL.md", False),
            ("skill", "otherquote", "home/.gemini/skills/otherquote/SKILL.md", False),
            ("skill", "indented", "home/.gemini/skills/indented/SKILL.md", False),
            ("skill", "toplist", "home/.gemini/skills/toplist/SKILL.md", True),
            ("skill", "alias", "home/.gemini/skills/alias/SKILL.md", False),
            ("skill", "tabbed", "home/.gemini/skills/tabbed/SKILL.md", False),
            ("skill", "tabwrapped", "home/.gemini/skills/tabwrapped/SKILL.md", False),
            ("skill", "-quoted-", "home/.gemini/skills/quotedname/SKILL.md", False),
            ("skill", "Tidy", "home/.gemini/skills/casey/SKILL.md", True),
        },
    ),
    "extensions": (
        {
            f"{EXT}/mem/gemini-extension.json": {
                "name": "mem",
                "version": "1.0.0",
                "mcpServers": {"mem-db": {"command": "mem"}},
            },
            f"{EXT}/mem/GEMINI.md": "Use mem.",
            f"{EXT}/mem/skills/recall/SKILL.md": SKILL,
            f"{EXT}/off/gemini-extension.json": {
                "name": "off",
                "version": "1.0.0",
                "mcpServers": {"o": {"command": "o"}},
            },
            f"{EXT}/extension-enablement.json": {"off": {"overrides": ["!PROJ/*"]}},
            f"{EXT}/junk/README.md": "no manifest",
        },
        {
            ("plugin", "mem", f"{EXT}/mem/gemini-extension.json", False),
            ("mcp", "mem-db", f"{EXT}/mem/gemini-extension.json", False),
            ("instructions", "GEMINI.md", f"{EXT}/mem/GEMINI.md", False),
            ("skill", "recall", f"{EXT}/mem/skills/recall/SKILL.md", False),
            ("plugin", "off", f"{EXT}/off/gemini-extension.json", True),
            ("plugin", "junk", f"{EXT}/junk", True),
        },
    ),
    "permissions-instructions-foreign": (
        {
            GS: {"tools": {"allowed": ["run_shell_command(git status)"], "exclude": ["web_fetch"]}},
            "home/.gemini/GEMINI.md": "global",
            "proj/GEMINI.md": "project",
            "home/.gemini/CLAUDE.md": "Claude's",
            "home/.gemini/config.toml": "model = 'x'\n",
            "proj/CLAUDE.md": "Claude's",
        },
        {
            ("permission", "run_shell_command(git status)", GS, False),
            ("permission", "web_fetch", GS, False),
            ("instructions", "GEMINI.md", "home/.gemini/GEMINI.md", False),
            ("instructions", "GEMINI.md", "proj/GEMINI.md", False),
            ("instructions", "CLAUDE.md", "home/.gemini/CLAUDE.md", True),
            ("settings", "config.toml", "home/.gemini/config.toml", True),
        },
    ),
    "switched-off-and-malformed": (
        {
            GS: {"hooksConfig": {"enabled": False}, "hooks": {"BeforeTool": [hook("g", "glob")]}},
            "proj/.gemini/settings.json": "{oops",
        },
        {("hook", "BeforeTool:glob", GS, True)},
    ),
}

LAYOUTS: dict[str, dict[str, Layout]] = {
    "claude-code": CLAUDE,
    "codex": CODEX,
    "gemini-cli": GEMINI,
}
