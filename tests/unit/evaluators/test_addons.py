import json
import subprocess
from pathlib import Path

from proctor.agents.hook_markers import MARKERS_FILE, instrument_plugin_hooks
from proctor.models.trajectory import Event, make_event
from tests.unit.evaluators.helpers import context, evaluate

HOOKS = {
    "hooks": {
        "SessionStart": [
            {"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/start.sh"}]}
        ],
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/guard.sh"}],
            }
        ],
        "PostCompact": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/c.sh"}]}],
    }
}


def _plugin(tmp_path: Path) -> str:
    manifest = tmp_path / "case" / "plugin" / "hooks" / "hooks.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(json.dumps(HOOKS))
    return "plugin/hooks/hooks.json"


def _markers(ctx, *events: str) -> None:  # type: ignore[no-untyped-def]
    commands = {
        "SessionStart": "${CLAUDE_PLUGIN_ROOT}/start.sh",
        "PreToolUse": "${CLAUDE_PLUGIN_ROOT}/guard.sh",
    }
    with open(ctx.trial.root / MARKERS_FILE, "a") as fh:
        for e in events:
            fh.write(json.dumps({"event": e, "plugin": "p", "command": commands[e]}) + "\n")


def test_every_declared_event_fired_from_markers(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    manifest = _plugin(tmp_path)
    _markers(ctx, "SessionStart", "PreToolUse")
    r = evaluate({"use": "hook-transcript-check", "pluginManifest": manifest}, ctx)
    assert r.passed, r.message
    assert r.metrics == {
        "hook_events_declared": 3,
        "hook_events_checked": 2,
        "hook_events_fired": 2,
        "hook_events_plugin_matched": 2,
    }


def test_transcript_evidence_counts(tmp_path: Path) -> None:
    events = [
        make_event("hook", hook_event="SessionStart", command="/tmp/x/plugins/p/start.sh"),
        make_event("hook", hook_event="PreToolUse", command="/tmp/x/plugins/p/guard.sh"),
    ]
    ctx = context(tmp_path, events)
    r = evaluate({"use": "hook-transcript-check", "pluginManifest": _plugin(tmp_path)}, ctx)
    assert r.passed, r.message


def test_control_no_evidence_fails_loudly(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    r = evaluate({"use": "hook-transcript-check", "pluginManifest": _plugin(tmp_path)}, ctx)
    assert not r.passed and "no hook evidence at all" in r.message


def test_a_missing_event_fails(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    manifest = _plugin(tmp_path)
    _markers(ctx, "SessionStart")
    r = evaluate({"use": "hook-transcript-check", "pluginManifest": manifest}, ctx)
    assert not r.passed and "never fired: PreToolUse" in r.message


def test_someone_elses_hook_does_not_count_as_the_plugins(tmp_path: Path) -> None:
    events = [
        make_event("hook", hook_event="SessionStart", command="/usr/bin/other"),
        make_event("hook", hook_event="PreToolUse", command="/usr/bin/other"),
    ]
    ctx = context(tmp_path, events)
    manifest = _plugin(tmp_path)
    r = evaluate({"use": "hook-transcript-check", "pluginManifest": manifest}, ctx)
    assert not r.passed and r.metrics["hook_events_plugin_matched"] == 0
    relaxed = evaluate(
        {"use": "hook-transcript-check", "pluginManifest": manifest, "requireCommands": False}, ctx
    )
    assert relaxed.passed


def test_unreadable_manifest_is_an_error(tmp_path: Path) -> None:
    r = evaluate({"use": "hook-transcript-check", "pluginManifest": "nope.json"}, context(tmp_path))
    assert r.error


def test_instrumented_hook_writes_a_marker_and_still_runs(tmp_path: Path) -> None:
    plugin = tmp_path / "plugin"
    (plugin / "hooks").mkdir(parents=True)
    out = tmp_path / "ran.txt"
    original = f"cat > {out}"
    (plugin / "hooks" / "hooks.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": original}]}]}})
    )
    markers = tmp_path / "markers.jsonl"
    assert instrument_plugin_hooks(plugin, "p", markers) == 1
    wrapped = json.loads((plugin / "hooks" / "hooks.json").read_text())["hooks"]["Stop"][0][
        "hooks"
    ][0]["command"]
    subprocess.run(["/bin/sh", "-c", wrapped], input=b'{"hook": "input"}', check=True)
    assert out.read_text() == '{"hook": "input"}'
    assert json.loads(markers.read_text()) == {"event": "Stop", "plugin": "p", "command": original}


def test_skill_loaded(tmp_path: Path) -> None:
    ctx = context(tmp_path, [make_event("skill", name="plugin:review")])
    assert evaluate({"use": "skill-loaded", "name": "review"}, ctx).passed
    read = context(
        tmp_path,
        [make_event("tool_call", kind="read", files=["/h/.claude/skills/review/SKILL.md"])],
    )
    assert evaluate({"use": "skill-loaded", "name": "review"}, read).passed


def test_skill_loaded_control_other_skill_fails(tmp_path: Path) -> None:
    ctx = context(tmp_path, [make_event("skill", name="deploy")])
    assert not evaluate({"use": "skill-loaded", "name": "review"}, ctx).passed


def call(tool_id: str, name: str, **tool_input: str) -> Event:
    return make_event("tool_call", id=tool_id, name=name, kind="read", input=tool_input)


def result(tool_id: str, *, error: bool = False, denied: bool = False) -> Event:
    return make_event("tool_result", id=tool_id, is_error=error, denied=denied, output="")


def test_skill_loaded_needs_a_read_that_worked(tmp_path: Path) -> None:
    path = "/h/.claude/skills/review/SKILL.md"
    failed = context(tmp_path, [call("t1", "Read", file_path=path), result("t1", error=True)])
    assert not evaluate({"use": "skill-loaded", "name": "review"}, failed).passed
    refused = context(tmp_path, [call("t1", "Read", file_path=path), result("t1", denied=True)])
    assert not evaluate({"use": "skill-loaded", "name": "review"}, refused).passed
    worked = context(tmp_path, [call("t1", "Read", file_path=path), result("t1")])
    assert evaluate({"use": "skill-loaded", "name": "review"}, worked).passed


def test_skill_loaded_matches_a_whole_skills_folder(tmp_path: Path) -> None:
    other = context(tmp_path, [call("t1", "Bash", command="ls ~/myskills/review/")])
    assert not evaluate({"use": "skill-loaded", "name": "review"}, other).passed
    shell = context(tmp_path, [call("t1", "Bash", command="cat ~/.agents/skills/review/SKILL.md")])
    assert evaluate({"use": "skill-loaded", "name": "review"}, shell).passed


def test_hook_check_with_nothing_to_check_fails(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    manifest = _plugin(tmp_path)
    _markers(ctx, "SessionStart")
    entry = {
        "use": "hook-transcript-check",
        "pluginManifest": manifest,
        "ignoreEvents": ["SessionStart", "PreToolUse", "PostCompact"],
    }
    r = evaluate(entry, ctx)
    assert not r.passed and r.message.startswith("nothing to check"), r.message
