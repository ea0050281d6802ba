"""Plan actions mapped onto each CLI's tools, and the shell fallbacks actually run."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from proctor.scripted.server import patches
from proctor.scripted.server.exchange import ToolCall, ToolSpec
from proctor.scripted.server.tools import Context, ask_options, tool_call
from proctor.scripted.server.workspace import resolve, workspace_cwd


def ctx(*tools: tuple[str, list[str]] | ToolSpec, cwd: str | None = "/ws") -> Context:
    specs = [
        t if isinstance(t, ToolSpec) else ToolSpec(t[0], params=frozenset(t[1])) for t in tools
    ]
    return Context({s.name: s for s in specs}, cwd)


CLAUDE = ctx(
    ("Bash", ["command", "description", "timeout"]),
    ("Write", ["file_path", "content"]),
    ("Edit", ["file_path", "old_string", "new_string", "replace_all"]),
    ("Read", ["file_path", "offset"]),
    ("Grep", ["pattern", "path", "output_mode"]),
)
CODEX = ctx(("exec_command", ["cmd", "workdir"]), ToolSpec("apply_patch", kind="custom"))
GEMINI = ctx(
    ("run_shell_command", ["command", "description"]),
    ("write_file", ["file_path", "content"]),
    ("replace", ["file_path", "old_string", "new_string", "expected_replacements"]),
    ("read_file", ["absolute_path"]),
    ("search_file_content", ["pattern", "path"]),
)


@pytest.mark.parametrize(
    ("context", "step", "expected"),
    [
        (
            CLAUDE,
            {"shell": "ls", "timeoutSec": 5},
            ToolCall("Bash", {"command": "ls", "description": "ls", "timeout": 5000}),
        ),
        (CLAUDE, {"read": "a/b.py"}, ToolCall("Read", {"file_path": "/ws/a/b.py"})),
        (
            CLAUDE,
            {"search": "x+", "path": "src"},
            ToolCall("Grep", {"pattern": "x+", "path": "/ws/src"}),
        ),
        (CLAUDE, {"tool": "mcp__s__t", "input": {"q": 1}}, ToolCall("mcp__s__t", {"q": 1})),
        (CODEX, {"shell": "ls"}, ToolCall("exec_command", {"cmd": "ls"})),
        (CODEX, {"read": "a b"}, ToolCall("exec_command", {"cmd": "cat 'a b'"})),
        (
            CODEX,
            {"tool": "apply_patch", "input": {"input": "P"}},
            ToolCall("apply_patch", {"input": "P"}, "custom"),
        ),
        (
            GEMINI,
            {"shell": "ls"},
            ToolCall("run_shell_command", {"command": "ls", "description": "ls"}),
        ),
        (GEMINI, {"read": "a"}, ToolCall("read_file", {"absolute_path": "/ws/a"})),
        (GEMINI, {"search": "q"}, ToolCall("search_file_content", {"pattern": "q", "path": "/ws"})),
        (
            ctx(ToolSpec("local_shell", "local_shell")),
            {"shell": "ls"},
            ToolCall("local_shell", {"command": ["bash", "-lc", "ls"]}, "local_shell"),
        ),
        (
            ctx(("shell", ["command"])),
            {"shell": "ls"},
            ToolCall("shell", {"command": ["bash", "-lc", "ls"]}),
        ),
        (
            ctx(("Bash", ["command"]), cwd=None),
            {"read": "a"},
            ToolCall("Bash", {"command": "cat a"}),
        ),
        (
            ctx(("Read", ["file_path"]), cwd=None),
            {"read": "a"},
            ToolCall("Read", {"file_path": "a"}),
        ),
    ],
)
def test_actions_map_to_offered_tools(
    context: Context, step: dict[str, Any], expected: ToolCall
) -> None:
    assert tool_call(step, context) == expected


def test_edit_prefers_the_edit_tool_then_apply_patch_for_whole_lines_then_python() -> None:
    step = {"edit": {"path": "a.py", "old": "x = 1\n", "new": "x = 2\n"}}
    assert tool_call(step, CLAUDE) == ToolCall(
        "Edit",
        {
            "file_path": "/ws/a.py",
            "old_string": "x = 1\n",
            "new_string": "x = 2\n",
            "replace_all": False,
        },
    )
    patch = tool_call(step, CODEX)
    assert patch == ToolCall(
        "apply_patch",
        {"input": "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n*** End Patch"},
        "custom",
    )
    inline = tool_call({"edit": {"path": "a.py", "old": "1", "new": "2"}}, CODEX)
    assert (
        inline is not None
        and inline.name == "exec_command"
        and inline.arguments["cmd"].startswith("python3 - <<")
    )
    every = tool_call(
        {"edit": {"path": "a.py", "old": "1", "new": "2", "replaceAll": True}}, GEMINI
    )
    assert every is not None and every.name == "run_shell_command"


def test_write_uses_apply_patch_only_for_exact_content() -> None:
    added = tool_call({"write": {"path": "d/n.txt", "content": "a\n\nb\n"}}, CODEX)
    assert added == ToolCall(
        "apply_patch",
        {"input": "*** Begin Patch\n*** Add File: d/n.txt\n+a\n+\n+b\n*** End Patch"},
        "custom",
    )
    for content in ("", "no newline"):
        fallback = tool_call({"write": {"path": "n", "content": content}}, CODEX)
        assert fallback is not None and fallback.name == "exec_command"
    function_patch = ctx(("apply_patch", ["input"]), ("exec_command", ["cmd"]))
    call = tool_call({"write": {"path": "n", "content": "x\n"}}, function_patch)
    assert (
        call is not None
        and call.kind == "function"
        and call.arguments["input"].startswith("*** Begin Patch")
    )


def test_ask_needs_ask_user_question() -> None:
    assert tool_call({"ask": "Q?"}, CLAUDE) is None
    asking = ctx(("AskUserQuestion", ["questions"]))
    call = tool_call({"ask": "Q?", "options": ["Only"]}, asking)
    assert call is not None
    assert [o["label"] for o in call.arguments["questions"][0]["options"]] == ["Only", "Yes"]
    assert ask_options({"ask": "Q?"}) == ["Yes", "No"]


@pytest.mark.parametrize(
    "content", ["plain\n", "no newline", "", "quote ' and $HOME\n", "PROCTOR_EOF\n", "ünï\ncode"]
)
def test_write_command_writes_exact_bytes(tmp_path: Path, content: str) -> None:
    command = patches.write_command("sub dir/file.txt", content)
    subprocess.run(["bash", "-c", command], cwd=tmp_path, check=True)
    assert (tmp_path / "sub dir" / "file.txt").read_text(encoding="utf-8") == content


def test_edit_command_replaces_and_fails_when_old_is_missing(tmp_path: Path) -> None:
    target = tmp_path / "calc.py"
    target.write_text("def f(a, b):\n    return a - b  # a - b\n")
    subprocess.run(
        ["bash", "-c", patches.edit_command("calc.py", "a - b", "a + b", False)],
        cwd=tmp_path,
        check=True,
    )
    assert target.read_text() == "def f(a, b):\n    return a + b  # a - b\n"
    subprocess.run(
        ["bash", "-c", patches.edit_command("calc.py", "a - b", "a + b", True)],
        cwd=tmp_path,
        check=True,
    )
    assert "a - b" not in target.read_text()
    missing = subprocess.run(
        ["bash", "-c", patches.edit_command("calc.py", "zzz", "y", False)],
        cwd=tmp_path,
        capture_output=True,
    )
    assert missing.returncode != 0 and b"not found" in missing.stderr


@pytest.mark.parametrize(
    ("text", "cwd"),
    [
        ("<env>\nWorking directory: /home/u/proj\nIs git: no</env>", "/home/u/proj"),
        ("Primary working directory: /tmp/ws ", "/tmp/ws"),
        ("<environment_context>\n  <cwd>/w/codex</cwd>\n</environment_context>", "/w/codex"),
        ("I'm currently working in the directory: /w/gem\nHere is", "/w/gem"),
        ("Working directory: relative/path", None),
        ("nothing here", None),
    ],
)
def test_workspace_cwd_is_found_in_each_cli_context(text: str, cwd: str | None) -> None:
    assert workspace_cwd(["unrelated", text]) == cwd


def test_resolve_keeps_absolute_and_relative_without_cwd() -> None:
    assert resolve("/ws", "./a/../b.txt") == "/ws/b.txt"
    assert resolve("/ws", "/etc/x") == "/etc/x"
    assert resolve(None, "a.txt") == "a.txt"
