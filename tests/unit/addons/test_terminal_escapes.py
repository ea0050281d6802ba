"""What the add-on suites print from the add-on under test (a hook's output, the name of an MCP
server an installer configured) holds a terminal's escape sequence: the text report shows it
escaped, never obeyed."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

from tests.conftest import CliResult

Run = Callable[..., CliResult]
TITLE = "\x1b]0;owned\x07"
"""An escape sequence that sets the terminal's title."""


def test_hooks_test_shows_an_escape_a_hook_printed_escaped(proctor: Run, tmp_path: Path) -> None:
    plugin = tmp_path / "plugin"
    (plugin / "hooks").mkdir(parents=True)
    command = {"type": "command", "command": r"printf 'no\033]0;owned\007' >&2; exit 2"}
    table = {"PreToolUse": [{"matcher": "Read", "hooks": [command]}]}
    (plugin / "hooks" / "hooks.json").write_text(json.dumps({"hooks": table}))
    case = {"id": "c1", "event": "PreToolUse", "tool": "Read", "input": {"file_path": "a"}}
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps([{**case, "expect": {"decision": "block"}}]))
    result = proctor("hooks", "test", str(plugin), "--cases", str(cases))
    assert result.code == 0, result.out + result.err
    assert TITLE not in result.out
    assert "PASS  c1  [claude-code PreToolUse Read] block: no\\x1b]0;owned\\x07\n" in result.out


def test_check_install_shows_an_escape_in_what_the_installer_added_escaped(
    proctor: Run, tmp_path: Path
) -> None:
    script = tmp_path / "install.py"
    server = {"type": "stdio", "command": "notes-mcp"}
    script.write_text(
        "import json, os, pathlib\n"
        "path = pathlib.Path(os.environ['HOME']) / '.claude.json'\n"
        "data = json.loads(path.read_text()) if path.exists() else {}\n"
        f"data.setdefault('mcpServers', {{}})[{('ev' + TITLE + 'il')!r}] = {server!r}\n"
        "path.write_text(json.dumps(data))\n"
    )
    line = shlex.join([sys.executable, str(script)])
    result = proctor("addon", "check-install", "--install", line, "--agent", "claude-code")
    assert TITLE not in result.out
    assert "installed MCP server ev\\x1b]0;owned\\x07il in home/.claude.json" in result.out
