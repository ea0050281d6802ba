"""``hook-transcript-check`` on a plugin whose hooks sit in ``.claude-plugin/plugin.json`` (an
object of events, or a path to a hooks file) as well as ``hooks/hooks.json``, and on evidence
whose tool the hook's matcher does not name."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from proctor.agents.hook_markers import MARKERS_FILE, instrument_plugin_hooks
from proctor.models.trajectory import make_event
from tests.unit.evaluators.helpers import context, evaluate

GUARD = "${CLAUDE_PLUGIN_ROOT}/guard.sh"
START = "${CLAUDE_PLUGIN_ROOT}/start.sh"


def group(command: str, matcher: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"hooks": [{"type": "command", "command": command}]}
    return {**out, "matcher": matcher} if matcher else out


def write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def plugin(tmp_path: Path, inline: str) -> Path:
    """A plugin whose SessionStart hook is in hooks/hooks.json and whose PreToolUse:Bash hook
    is in its manifest: ``object`` inline, ``path`` in a file the manifest names."""
    root = tmp_path / "case" / "plugin"
    write(root / "hooks" / "hooks.json", {"hooks": {"SessionStart": [group(START)]}})
    extra = {"PreToolUse": [group(GUARD, "Bash")]}
    if inline == "object":
        write(root / ".claude-plugin" / "plugin.json", {"name": "p", "hooks": extra})
    else:
        write(root / ".claude-plugin" / "plugin.json", {"name": "p", "hooks": "./more.json"})
        write(root / "more.json", {"hooks": extra})
    return root


@pytest.mark.parametrize("inline", ["object", "path"])
@pytest.mark.parametrize(
    "manifest", ["plugin/hooks/hooks.json", "plugin/.claude-plugin/plugin.json", "plugin"]
)
def test_hooks_declared_in_the_plugin_manifest_are_checked(
    tmp_path: Path, inline: str, manifest: str
) -> None:
    plugin(tmp_path, inline)
    events = [
        make_event("tool_call", id="t1", name="Bash", input={"command": "ls"}),
        make_event("hook", hook_event="SessionStart", command="/x/plugin/start.sh"),
    ]
    ctx = context(tmp_path, events)
    r = evaluate({"use": "hook-transcript-check", "pluginManifest": manifest}, ctx)
    assert not r.passed and "never fired: PreToolUse" in r.message, r.message
    assert r.metrics["hook_events_declared"] == 2
    events.append(
        make_event("hook", id="t1", hook_event="PreToolUse", command="/x/plugin/guard.sh")
    )
    r = evaluate(
        {"use": "hook-transcript-check", "pluginManifest": manifest}, context(tmp_path, events)
    )
    assert r.passed, r.message


def test_evidence_for_a_tool_the_matcher_does_not_name_does_not_count(tmp_path: Path) -> None:
    plugin(tmp_path, "object")
    events = [
        make_event("hook", hook_event="SessionStart", command="/x/plugin/start.sh"),
        make_event("tool_call", id="t1", name="Read", input={"file_path": "a"}),
        make_event("hook", id="t1", hook_event="PreToolUse", command="/x/plugin/guard.sh"),
        make_event(
            "hook", name="PreToolUse:Write", hook_event="PreToolUse", command="/x/plugin/guard.sh"
        ),
    ]
    r = evaluate(
        {"use": "hook-transcript-check", "pluginManifest": "plugin"}, context(tmp_path, events)
    )
    assert not r.passed
    assert "fired only for tools its matcher does not name: PreToolUse (Read, Write)" in r.message
    # Control: the same hook for Bash, the tool its matcher names, counts.
    events += [
        make_event("tool_call", id="t2", name="Bash", input={"command": "ls"}),
        make_event("hook", id="t2", hook_event="PreToolUse", command="/x/plugin/guard.sh"),
    ]
    r = evaluate(
        {"use": "hook-transcript-check", "pluginManifest": "plugin"}, context(tmp_path, events)
    )
    assert r.passed, r.message


def test_a_manifest_hooks_field_of_the_wrong_shape_is_an_error(tmp_path: Path) -> None:
    root = tmp_path / "case" / "plugin"
    write(root / ".claude-plugin" / "plugin.json", {"name": "p", "hooks": 5})
    ctx = context(tmp_path)
    r = evaluate({"use": "hook-transcript-check", "pluginManifest": "plugin"}, ctx)
    assert r.error and "field 'hooks'" in r.message


@pytest.mark.parametrize("inline", ["object", "path"])
def test_the_manifest_s_hooks_are_instrumented_too(tmp_path: Path, inline: str) -> None:
    root = plugin(tmp_path, inline)
    markers = tmp_path / MARKERS_FILE
    assert instrument_plugin_hooks(root, "p", markers) == 2
    manifest = json.loads((root / ".claude-plugin" / "plugin.json").read_text())
    table = (
        manifest["hooks"]
        if inline == "object"
        else json.loads((root / "more.json").read_text())["hooks"]
    )
    wrapped = table["PreToolUse"][0]["hooks"][0]["command"]
    subprocess.run(["/bin/sh", "-c", wrapped.replace(GUARD, "true")], check=True)
    assert json.loads(markers.read_text())["event"] == "PreToolUse"


@pytest.mark.parametrize(
    ("matcher", "tool"),
    [("Bash, Write", "Write"), ("Task", "Agent"), ("Ta.k", "Agent"), ("Edit|Write", "Write")],
)
def test_a_matcher_names_tools_as_claude_code_reads_it(
    tmp_path: Path, matcher: str, tool: str
) -> None:
    # A list of names on tool events, a tool's older name, a pattern over its older name: the
    # evidence counts, as `proctor hooks test` runs such a hook for that tool.
    root = tmp_path / "case" / "plugin"
    write(root / "hooks" / "hooks.json", {"hooks": {"PreToolUse": [group(GUARD, matcher)]}})
    write(root / ".claude-plugin" / "plugin.json", {"name": "p"})
    events = [
        make_event("tool_call", id="t1", name=tool, input={}),
        make_event("hook", id="t1", hook_event="PreToolUse", command="/x/plugin/guard.sh"),
    ]
    r = evaluate(
        {"use": "hook-transcript-check", "pluginManifest": "plugin"}, context(tmp_path, events)
    )
    assert r.passed, r.message
