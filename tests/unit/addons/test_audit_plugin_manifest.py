"""The audit of a Claude Code plugin whose manifest (``.claude-plugin/plugin.json``) does not
read, or whose ``hooks`` name a file Claude Code does not load again, as Claude Code 2.1.197
reads them (measured with ``claude plugin list --json``: "has a corrupt manifest file",
"failed to read manifest file", "Duplicate hooks file detected", "Path escapes plugin
directory")."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from proctor.addons.audit import audit_agent
from proctor.models.audit import AgentAudit

STOP = {"hooks": [{"type": "command", "command": "stop.sh"}]}
SKIPS = "Claude Code skips this whole plugin"


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def loaded(result: AgentAudit, kind: str) -> list[str]:
    return [c.name for c in result.components if c.kind == kind and c.decoy is None]


def plugin(result: AgentAudit) -> tuple[str, str | None]:
    (found,) = [c for c in result.components if c.kind == "plugin"]
    return found.name, found.decoy


def installed_plugin(home: Path) -> Path:
    """A plugin ``p@mk``, installed and enabled in ``home``, with a skill and a hook."""
    folder = home / ".claude/plugins/cache/mk/p/1.0.0"
    write(folder / "skills/s/SKILL.md", "---\nname: s\ndescription: a skill\n---\nDo it.\n")
    write(folder / "hooks/hooks.json", {"hooks": {"Stop": [STOP]}})
    write(home / ".claude/settings.json", {"enabledPlugins": {"p@mk": True}})
    write(
        home / ".claude/plugins/installed_plugins.json",
        {"version": 2, "plugins": {"p@mk": [{"installPath": str(folder)}]}},
    )
    return folder


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"name": "p",}', "line 1: Expecting property name enclosed in double quotes"),
        ('{\n  "name": "p"\n', "line 3: Expecting ',' delimiter"),
        ('{"name": "p", "x": NaN}', "line 1: NaN is not JSON"),  # JSON.parse refuses it
    ],
)
def test_a_manifest_that_is_not_json_makes_claude_code_skip_the_plugin(
    tmp_path: Path, text: str, said: str
) -> None:
    """Claude Code loads nothing of a plugin whose manifest is not JSON ("has a corrupt
    manifest file"): the plugin is a decoy, its skill and hook are not listed, and the
    problem says so (not only that the file did not read)."""
    home = tmp_path / "home"
    folder = installed_plugin(home)
    manifest = write(folder / ".claude-plugin/plugin.json", text)
    result = audit_agent("claude-code", home, None)
    line = said.split(":")[0]
    assert plugin(result) == ("p@mk", f"{SKIPS} (its manifest is not valid JSON, {line})")
    assert result.problems == [
        f"{manifest}: not valid JSON ({said}); {SKIPS} (a corrupt manifest file)"
    ]
    assert loaded(result, "skill") == [] and loaded(result, "hook") == []
    by_flag = audit_agent("claude-code", tmp_path / "empty", None, ["--plugin-dir", str(folder)])
    assert plugin(by_flag) == ("1.0.0", f"{SKIPS} (its manifest is not valid JSON, {line})")
    assert by_flag.problems == result.problems
    assert loaded(by_flag, "skill") == [] and loaded(by_flag, "hook") == []


def test_a_manifest_that_is_json_but_no_object_makes_claude_code_skip_the_plugin(
    tmp_path: Path,
) -> None:
    folder = installed_plugin(tmp_path)
    manifest = write(folder / ".claude-plugin/plugin.json", "[]")
    result = audit_agent("claude-code", tmp_path, None)
    said = "the manifest must be a JSON object, got a list"
    whole = f"{SKIPS} (its manifest is invalid)"
    assert plugin(result) == ("p@mk", f"{whole} ({said})")
    assert result.problems == [f"{manifest}: {said}; {whole}"]
    assert loaded(result, "skill") == []


@pytest.mark.parametrize("kind", ["folder", "loop"])
def test_a_manifest_claude_code_cannot_read_makes_it_skip_the_plugin(
    tmp_path: Path, kind: str
) -> None:
    """A folder or a link in a loop where the manifest belongs: Claude Code fails to read it
    (EISDIR, ELOOP: "failed to read manifest file") and loads nothing of the plugin."""
    folder = installed_plugin(tmp_path)
    manifest = folder / ".claude-plugin/plugin.json"
    manifest.parent.mkdir(parents=True)
    if kind == "folder":
        manifest.mkdir()
        why = "a folder, where a file belongs"
    else:
        manifest.symlink_to("plugin.json")
        why = "a symbolic link that loops back on itself"
    result = audit_agent("claude-code", tmp_path, None)
    assert plugin(result) == ("p@mk", f"{SKIPS} (it cannot read its manifest: {why})")
    assert result.problems == [f"{manifest}: {why}; {SKIPS} (it cannot read its manifest)"]
    assert loaded(result, "skill") == [] and loaded(result, "hook") == []


def test_a_manifest_that_will_not_open_makes_claude_code_skip_the_plugin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A manifest the user cannot read (its permissions): "failed to read manifest file", told
    apart from one that reads but is not JSON."""
    folder = installed_plugin(tmp_path)
    manifest = write(folder / ".claude-plugin/plugin.json", {"name": "p"})
    opened = Path.open

    def refused(path: Path, *args: Any, **kwargs: Any) -> Any:
        if path == manifest:
            raise PermissionError(13, "Permission denied", str(path))
        return opened(path, *args, **kwargs)

    monkeypatch.setattr(Path, "open", refused)
    result = audit_agent("claude-code", tmp_path, None)
    why = f"cannot be read ([Errno 13] Permission denied: '{manifest}')"
    assert plugin(result) == ("p@mk", f"{SKIPS} (it cannot read its manifest: {why})")
    assert result.problems == [f"{manifest}: {why}; {SKIPS} (it cannot read its manifest)"]
    assert loaded(result, "skill") == []


def test_a_manifest_linked_out_of_the_home_is_not_read_nor_judged(tmp_path: Path) -> None:
    """Claude Code reads a manifest linked in from elsewhere; the audit reads nothing outside
    the home, so it says the file was not read and does not call the plugin skipped."""
    home = tmp_path / "home"
    folder = installed_plugin(home)
    outside = write(tmp_path / "elsewhere/plugin.json", '{"name": "p",}')
    manifest = folder / ".claude-plugin/plugin.json"
    manifest.parent.mkdir(parents=True)
    manifest.symlink_to(outside)
    result = audit_agent("claude-code", home, None)
    assert plugin(result) == ("p@mk", None)
    assert result.problems == [f"{manifest}: leads outside the home and project; not read"]
    assert loaded(result, "skill") == ["p:s"]


def test_a_manifest_linked_to_nothing_is_no_manifest(tmp_path: Path) -> None:
    """Claude Code reads a missing manifest (ENOENT) as none: the plugin loads."""
    folder = installed_plugin(tmp_path)
    manifest = folder / ".claude-plugin/plugin.json"
    manifest.parent.mkdir(parents=True)
    manifest.symlink_to("gone.json")
    result = audit_agent("claude-code", tmp_path, None)
    assert plugin(result) == ("p@mk", None)
    assert loaded(result, "skill") == ["p:s"] and loaded(result, "hook") == ["Stop"]


def test_a_manifest_naming_hooks_json_is_a_duplicate_claude_code_reports(tmp_path: Path) -> None:
    """``"hooks": "./hooks/hooks.json"`` names the file Claude Code loads anyway: it loads it
    once and reports "Duplicate hooks file detected" (a hook-load-failed error), as it does
    for a file named twice; a path out of the plugin's folder is not loaded ("Path escapes
    plugin directory")."""
    folder = installed_plugin(tmp_path)
    write(folder / "extra.json", {"hooks": {"SessionStart": [STOP]}})
    write(folder / "../shared/hooks.json", {"hooks": {"PreCompact": [STOP]}})
    hooks = ["./hooks/hooks.json", "./extra.json", "./extra.json", "./../shared/hooks.json"]
    manifest = write(folder / ".claude-plugin/plugin.json", {"name": "p", "hooks": hooks})
    result = audit_agent("claude-code", tmp_path, None)
    duplicate = (
        'Claude Code loads the file once and reports an error, "Duplicate hooks file detected"'
    )
    assert result.problems == [
        f"{manifest}: field 'hooks' names ./hooks/hooks.json, the hooks/hooks.json loaded "
        f"anyway; {duplicate}",
        f"{manifest}: field 'hooks' names ./extra.json, a file named before; {duplicate}",
        f"{manifest}: field 'hooks' names ./../shared/hooks.json, which leads out of the "
        "plugin's folder; Claude Code does not load it",
    ]
    assert plugin(result) == ("p@mk", None)
    assert loaded(result, "hook") == ["Stop", "SessionStart"]


def test_a_manifest_naming_hooks_json_when_there_is_none_names_a_missing_file(
    tmp_path: Path,
) -> None:
    folder = installed_plugin(tmp_path)
    os.remove(folder / "hooks/hooks.json")
    manifest = write(
        folder / ".claude-plugin/plugin.json", {"name": "p", "hooks": "./hooks/hooks.json"}
    )
    result = audit_agent("claude-code", tmp_path, None)
    assert result.problems == [
        f"{manifest}: field 'hooks' names ./hooks/hooks.json, which is not a file"
    ]


def test_a_settings_file_with_an_integer_of_5000_digits_is_read(tmp_path: Path) -> None:
    """``JSON.parse`` reads any integer (as a float); Python's ``int`` refuses one of more
    than 4300 digits: the audit reads the file as the agents do, never stops on it."""
    settings = tmp_path / ".claude/settings.json"
    settings.parent.mkdir()
    settings.write_text('{"x": ' + "1" * 5000 + ', "permissions": {"allow": ["Bash"]}}')
    result = audit_agent("claude-code", tmp_path, None)
    assert result.problems == [] and loaded(result, "permission") == ["Bash"]


def test_gemini_cli_settings_with_comments_are_read_as_gemini_cli_reads_them(
    tmp_path: Path,
) -> None:
    """Gemini CLI 0.61 strips ``//`` and ``/* */`` comments from ``settings.json`` before
    ``JSON.parse`` (``gemini mcp list`` lists the server); a ``//`` inside a string is text,
    and a fault after a comment is said at its line in the file."""
    settings = write(
        tmp_path / ".gemini/settings.json",
        '{\n  // my servers\n  "mcpServers": {"docs": {"command": "npx", "args": ["http://x"]}},'
        '\n  /* hooks\n     below */ "tools": {"exclude": ["glob"]}\n}\n',
    )
    result = audit_agent("gemini-cli", tmp_path, None)
    assert result.problems == []
    (server,) = [c for c in result.components if c.kind == "mcp"]
    assert (server.name, server.command, server.decoy) == ("docs", "npx http://x", None)
    settings.write_text('{\n  // a comment\n  "mcpServers": {},\n}\n')
    result = audit_agent("gemini-cli", tmp_path, None)
    assert result.problems == [f"{settings}: not valid JSON (line 4); ignored"]


def test_a_file_under_a_folder_that_cannot_be_entered_is_said_unreadable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python 3.11's ``is_file`` raises PermissionError where a folder on the way cannot be
    entered (a non-root user): the audit says the file cannot be read and goes on."""
    locked = tmp_path / ".claude"
    settings = write(locked / "settings.json", {"permissions": {"allow": ["Bash"]}})
    stat, lstat = Path.stat, Path.lstat

    def refused(real: Any) -> Any:
        def probe(path: Path, *args: Any, **kwargs: Any) -> Any:
            if path.is_relative_to(locked) and path != locked:
                raise PermissionError(13, "Permission denied", str(path))
            return real(path, *args, **kwargs)

        return probe

    monkeypatch.setattr(Path, "stat", refused(stat))
    monkeypatch.setattr(Path, "lstat", refused(lstat))
    result = audit_agent("claude-code", tmp_path, None)
    assert f"{settings}: cannot be read (Permission denied)" in result.problems
    assert all(p.endswith("cannot be read (Permission denied)") for p in result.problems)
    assert loaded(result, "permission") == []


def test_gemini_cli_extension_hooks_with_comments_are_not_read(tmp_path: Path) -> None:
    """Gemini CLI 0.61 reads an extension's ``hooks/hooks.json`` with a bare ``JSON.parse``
    (``gemini extensions list``: "Failed to load extension hooks from …: Expected property
    name or '}' in JSON at position 4"): a comment there, allowed in ``settings.json``, costs
    every hook of the file, the extension itself loaded. ``hooks test`` refuses the file too."""
    from proctor.addons.hooks import load_hooks
    from proctor.errors import ConfigError

    folder = tmp_path / ".gemini/extensions/e"
    write(folder / "gemini-extension.json", {"name": "e", "version": "1"})
    hooks_file = write(
        folder / "hooks/hooks.json",
        '{\n  // my hooks\n  "hooks": {"AfterAgent": [{"hooks": [{"type": "command", '
        '"command": "x.sh"}]}]}\n}\n',
    )
    result = audit_agent("gemini-cli", tmp_path, None)
    assert result.problems == [
        f"{hooks_file}: not valid JSON (line 2: a comment ('//'): JSON allows no comments); "
        'Gemini CLI loads none of the extension\'s hooks ("Failed to load extension hooks": '
        "it strips comments from settings.json, not from hooks/hooks.json)"
    ]
    assert loaded(result, "plugin") == ["e"] and loaded(result, "hook") == []
    with pytest.raises(ConfigError, match="a comment \\('//'\\): JSON allows no comments"):
        load_hooks(folder)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "line 1: it is empty (expected a JSON value)"),
        (
            '{"hooks": {},}',
            "line 1: a comma before the closing '}' (JSON allows no trailing comma)",
        ),
        (
            '\ufeff{"hooks": {}}',
            "line 1: it starts with a byte-order mark (BOM), which JSON does not allow: save it "
            "as UTF-8 without a BOM",
        ),
        ('{"hooks": {}} # mine', "line 1: a comment ('#'): JSON allows no comments"),
    ],
)
def test_gemini_cli_extension_hooks_not_json_for_another_reason_say_no_word_of_comments(
    tmp_path: Path, text: str, said: str
) -> None:
    """Only a ``//`` or ``/* */`` comment, which Gemini CLI strips from ``settings.json``, is
    said to be stripped there and not here; an empty file, a trailing comma, a byte-order mark
    or a ``#`` line cost the hooks without it."""
    folder = tmp_path / ".gemini/extensions/e"
    write(folder / "gemini-extension.json", {"name": "e", "version": "1"})
    hooks_file = write(folder / "hooks/hooks.json", text)
    result = audit_agent("gemini-cli", tmp_path, None)
    assert result.problems == [
        f"{hooks_file}: not valid JSON ({said}); Gemini CLI loads none of the extension's hooks "
        '("Failed to load extension hooks")'
    ]
    assert loaded(result, "plugin") == ["e"] and loaded(result, "hook") == []
