"""The parts of ``proctor addon check-install``: the expect file, the scratch environment,
snapshots, the planted user state and its comparisons, the real-home guard, and the matching
of expected components against an audit. Each check next to an input that must fail it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from proctor.addons import install_guard as guard
from proctor.addons.install_components import component_checks
from proctor.addons.install_expect import AgentExpectation, ExpectedHook, load_expectation
from proctor.addons.install_planted import PLANTED, leftover_keys, lost_user_state, plant
from proctor.addons.install_removal import removal_checks
from proctor.addons.install_scratch import (
    DEFAULT_IGNORE,
    Scratch,
    compare,
    expand,
    installer_environment,
    run_command,
    snapshot,
)
from proctor.errors import ConfigError
from proctor.models.audit import AgentAudit, AuditComponent
from proctor.util import processes


def test_an_expect_file_in_json_or_toml_is_read(tmp_path: Path) -> None:
    json_file = tmp_path / "e.json"
    json_file.write_text(json.dumps({"codex": {"skills": ["a"]}, "project": [".mcp.json"]}))
    toml_file = tmp_path / "e.toml"
    toml_file.write_text('project = [".mcp.json"]\n[codex]\nskills = ["a"]\n')
    for path in (json_file, toml_file):
        expect = load_expectation(path)
        assert expect.agents() == ["codex"]
        assert expect.for_agent("codex") == AgentExpectation(skills=["a"])
        assert expect.project == [".mcp.json"]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"claude": {}}', ["unknown key 'claude'", "known keys: claude-code"]),
        ('{"codex": {"skils": ["a"]}}', ["unknown key 'codex.skils'"]),
        ('{"codex": {"hooks": [{"command": "x"}]}}', ["'codex.hooks[0].event'", "required"]),
        ('{"codex": {"mcp": "notes"}}', ["'codex.mcp'", "list"]),
        ("[1]", ["object at the top level"]),
        ('{"codex": ', ["malformed JSON", "line 1"]),
    ],
)
def test_a_bad_expect_file_is_one_sentence_naming_file_and_field(
    tmp_path: Path, text: str, words: list[str]
) -> None:
    path = tmp_path / "expect.json"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_expectation(path)
    message = str(caught.value)
    assert message.startswith(f"--expect {path}")
    assert "\n" not in message
    for word in words:
        assert word in message


def test_the_installer_environment_points_every_home_into_the_scratch(tmp_path: Path) -> None:
    scratch = Scratch.create(tmp_path / "s")
    parent = {
        "PATH": "/usr/bin:/bin",
        "HOME": "/root",
        "ANTHROPIC_API_KEY": "sk-secret",
        "GITHUB_TOKEN": "ghp_secret",
        "CLAUDE_CONFIG_DIR": "/root/.claude",
        "CODEX_HOME": "/root/.codex",
        "XDG_CONFIG_HOME": "/root/.config",
    }
    env = installer_environment(scratch, parent, [tmp_path / "bin"])
    assert env["HOME"] == str(scratch.home)
    assert env["CODEX_HOME"] == str(scratch.home / ".codex")
    assert env["GEMINI_CLI_HOME"] == str(scratch.home)
    assert "CLAUDE_CONFIG_DIR" not in env
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        assert env[name].startswith(str(scratch.home))
    assert not any("secret" in v or v.startswith("/root") for v in env.values())
    assert env["PATH"].startswith(str(tmp_path / "bin"))


def test_the_command_runs_in_the_project_with_the_scratch_home(tmp_path: Path) -> None:
    scratch = Scratch.create(tmp_path / "s")
    env = installer_environment(scratch, {"PATH": "/usr/bin:/bin", "OPENAI_API_KEY": "sk-x"})
    command = expand(
        'pwd > "{home}/where"; echo "$HOME|${OPENAI_API_KEY:-none}" >> {home}/where',
        scratch,
        tmp_path,
    )
    run = run_command(command, scratch, env, 10, "--install")
    assert run.ok
    assert (scratch.home / "where").read_text().split() == [
        str(scratch.project),
        f"{scratch.home}|none",
    ]


def test_a_failing_command_is_a_result_and_one_that_cannot_start_a_config_error(
    tmp_path: Path,
) -> None:
    scratch = Scratch.create(tmp_path / "s")
    env = installer_environment(scratch, {"PATH": "/usr/bin:/bin"})
    failed = run_command("echo broken >&2; exit 3", scratch, env, 10, "--install")
    assert (failed.ok, failed.returncode) == (False, 3)
    assert "exited 3" in failed.describe("install") and "broken" in failed.describe("install")
    slow = run_command("sleep 30", scratch, env, 0.5, "--install")
    assert slow.timed_out and not slow.ok
    # Silent until killed: said so, not a sentence ending in ": ", and not as "after 0s".
    said_slow = slow.describe("install")
    assert re.fullmatch(r"the install command timed out after 0\.\ds: \(no output\)", said_slow)
    with pytest.raises(ConfigError, match="--install: the command .no-such-installer-x. cannot"):
        run_command("no-such-installer-x", scratch, env, 10, "--install")
    flooding = run_command("yes", scratch, env, 60, "--install")
    assert not flooding.ok and not flooding.timed_out
    said = flooding.describe("install")
    assert said.startswith(
        "the install command printed more than 64 MiB on stdout and was stopped there: "
    ), said[:200]
    assert said.endswith("y\ny\ny")


def test_a_command_stopped_for_its_output_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not the exit its kill gave it (-9): why it was stopped."""
    monkeypatch.setattr(processes, "FLOOD_LIMIT_BYTES", 1024 * 1024)
    scratch = Scratch.create(tmp_path / "s")
    env = installer_environment(scratch, {"PATH": "/usr/bin:/bin"})
    run = run_command("yes installing", scratch, env, 60, "--install")
    assert not run.ok and not run.timed_out
    said = run.describe("install")
    assert said.startswith(
        "the install command printed more than 1 MiB on stdout and was stopped there: "
    )
    assert said.endswith("installing") and "-9" not in said


def test_snapshots_see_content_mode_and_link_changes(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("1")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "b").write_text("2")
    (tmp_path / "l").symlink_to("a")
    before = snapshot(tmp_path)
    before_ignoring = snapshot(tmp_path, ["a", "d/*", "l"])
    assert not compare(before, snapshot(tmp_path))
    (tmp_path / "a").write_text("1 ")
    (tmp_path / "d" / "b").chmod(0o755)
    (tmp_path / "l").unlink()
    (tmp_path / "l").symlink_to("d")
    (tmp_path / "new").write_text("")
    changes = compare(before, snapshot(tmp_path))
    assert changes.changed == ["a", "d/b", "l"]
    assert changes.added == ["new"]
    ignoring = compare(before_ignoring, snapshot(tmp_path, ["a", "d/*", "l"]))
    assert (ignoring.added, ignoring.changed, ignoring.removed) == (["new"], [], [])


def test_planted_state_is_found_intact_and_its_loss_is_named(tmp_path: Path) -> None:
    agents = ["claude-code", "codex", "gemini-cli"]
    plant(tmp_path, agents)
    planted = [f for a in agents for f in PLANTED[a]]
    assert all(lost_user_state(tmp_path, f) == [] for f in planted)
    settings = tmp_path / ".claude" / "settings.json"
    doc = json.loads(settings.read_text())
    doc["permissions"]["allow"].append("mcp__tidy")  # an installer may add its own rule
    doc["hooks"] = {"PreToolUse": []}
    settings.write_text(json.dumps(doc))
    assert lost_user_state(tmp_path, PLANTED["claude-code"][0]) == []
    doc["permissions"]["allow"] = ["mcp__tidy"]
    settings.write_text(json.dumps(doc))
    lost = lost_user_state(tmp_path, PLANTED["claude-code"][0])
    assert lost == [
        "the user's permission rule 'Bash(make test:*)' is gone from home/.claude/settings.json "
        "permissions.allow"
    ]
    (tmp_path / ".codex" / "AGENTS.md").write_text("replaced\n")
    assert lost_user_state(tmp_path, PLANTED["codex"][1]) == [
        "the instruction file home/.codex/AGENTS.md changed"
    ]


def test_leftover_keys_ignore_empty_containers_and_name_the_rest() -> None:
    before = {"a": 1, "mcpServers": {"user": {"command": "u"}}}
    assert leftover_keys(before, {**before, "hooks": {"PreToolUse": []}}) == []
    after = {"a": 1, "mcpServers": {"user": {"command": "u"}, "tidy": {"command": "t"}}}
    assert leftover_keys(before, after) == [("mcpServers", "tidy")]


@pytest.mark.parametrize(
    ("uninstalled", "left"),
    [
        ({"mcpServers": {"user-notes": None, "tidy": None}}, None),  # nulls its own key: left
        ({"projects": {"/p": {"mcpServers": {"tidy": None}}}}, "projects"),
        ({"projects": {"/p": {"mcpServers": {}}}}, None),  # an empty container is no leftover
        ({"hooks": None, "userID": "u"}, None),  # not MCP servers: the CLI's bookkeeping
        ({}, None),
    ],
)
def test_a_key_the_uninstall_set_to_null_is_left_behind(
    tmp_path: Path, uninstalled: dict[str, object], left: str | None
) -> None:
    home = tmp_path / "home"
    plant(home, ["claude-code"])
    planted = snapshot(tmp_path)
    path = home / ".claude.json"
    doc = json.loads(path.read_text())
    if "mcpServers" in uninstalled:  # the user's server kept, the install's set to null
        doc["mcpServers"]["tidy"] = None
        left = "mcpServers.tidy"
    else:
        doc.update(uninstalled)
    path.write_text(json.dumps(doc))
    check, _ = removal_checks(planted, snapshot(tmp_path), tmp_path, ["claude-code"])
    if left is None:
        assert check.passed, check.message
    else:
        assert not check.passed and f"left {left} in home/.claude.json" in check.message


def test_a_user_key_the_uninstall_set_to_null_is_not_called_left(tmp_path: Path) -> None:
    home = tmp_path / "home"
    plant(home, ["claude-code"])
    planted = snapshot(tmp_path)
    path = home / ".claude.json"
    path.write_text(json.dumps({"mcpServers": {"user-notes": None}}))
    check, _ = removal_checks(planted, snapshot(tmp_path), tmp_path, ["claude-code"])
    assert check.passed, check.message  # the user's loss is uninstall-keeps-user's to name


def test_the_guard_refuses_commands_aimed_at_the_real_home(tmp_path: Path) -> None:
    real = tmp_path / "real"
    guard.refuse_real_home("python3 {cwd}/install.py install", [real], "--install")
    guard.refuse_real_home(f"python3 {real}/src/addon/install.py", [real], "--install")
    guard.refuse_real_home("HOME={home} ./install.sh", [real], "--install")
    guard.refuse_real_home("echo a~b && cp x {home}/.claude/", [real], "--install")  # no home
    guard.refuse_real_home(f"echo '{real}/docs' '.claude'", [real], "--install")  # two words
    guard.refuse_real_home(f"cp x {real}2/a && cd {real}/src", [real], "--install")  # not it
    guard.refuse_real_home(f"ls {real}/sub/../other/.x", [real], "--install")  # not the home's
    for bad in (
        f"HOME={real} ./install.sh",
        f"cp x {real}//.claude/settings.json",  # the same folder, written otherwise
        f"cp x {real}/./.claude/settings.json",
        f"ls {real}/sub/../.claude",  # a folder and `..` again
        f"cp x {real}/a/b/../../.claude.json",
        f"cp x '{real}'/.claude/settings.json",
        f'cp x "{real}/".claude/settings.json',
        f"cp x {real}/\\.claude/settings.json",
        "cp x PATH=~root/bin",
        "cd;cp x ~me/.claude.json",
        "env CODEX_HOME=/etc/x ./i.sh",
        f"cp x {real}/.claude/skills/",
        f"cd {real}/.claude && cp x settings.json",  # a folder, not a watched file
        f"cp x {real}/.config/gemini.json",
        "cp x ~root/.claude/settings.json",
        "cp x $(getent passwd me | cut -d: -f6)/.claude.json",
        # The home itself: its hidden folders a step away (cd into it, or a variable).
        f"cd {real} && mkdir -p .claude/skills/evil",
        f"H={real}; echo > $H/.claude/x",
        f"cd '{real}/' && cp x .claude.json",
        f"(cd {real}) && true",
    ):
        with pytest.raises(ConfigError, match="--install: the command"):
            guard.refuse_real_home(bad, [real], "--install")


def test_the_fingerprint_notices_a_write_into_a_watched_folder(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / ".claude").mkdir(parents=True)
    (real / ".claude" / "settings.json").write_text("{}")
    (real / ".claude.json").write_text('{"numStartups": 1}')
    before = guard.fingerprint([real])
    (real / ".claude.json").write_text('{"numStartups": 2}')  # the CLI's own bookkeeping
    (real / "unwatched.txt").write_text("x")
    assert guard.touched(before, guard.fingerprint([real])) == []
    (real / ".gemini" / "skills" / "x").mkdir(parents=True)
    (real / ".claude" / "settings.json").write_text('{"hooks": {}}')
    touched = guard.touched(before, guard.fingerprint([real]))
    assert str(real / ".claude" / "settings.json") in touched
    assert str(real / ".gemini" / "skills") in touched


def test_a_large_plugin_cache_leaves_no_watched_path_unwatched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(guard, "MAX_ENTRIES", 20)  # the budget, made small
    real = tmp_path / "real"
    plugins = real / ".claude" / "plugins" / "m"
    plugins.mkdir(parents=True)
    for i in range(50):
        (plugins / f"f{i:02d}").write_text("x")
    (real / ".gemini").mkdir()
    (real / ".gemini" / "settings.json").write_text('{"a": 1}')
    (real / ".claude" / "CLAUDE.md").write_text("mine\n")
    before = guard.fingerprint([real])
    (real / ".gemini" / "settings.json").write_text("{}")  # after the plugins, in WATCHED
    (real / ".claude" / "CLAUDE.md").write_text("mine\nINJECTED\n")
    (plugins / "f45").write_text("changed")  # past the budget of digests
    touched = guard.touched(before, guard.fingerprint([real]))
    assert str(real / ".gemini" / "settings.json") in touched
    assert str(real / ".claude" / "CLAUDE.md") in touched
    assert any("files past the first 20" in t for t in touched)


def _audit(*components: AuditComponent) -> AgentAudit:
    return AgentAudit(agent="claude-code", components=list(components))


def test_expected_components_must_be_loaded_not_decoys() -> None:
    wanted = AgentExpectation(
        skills=["tidy"],
        mcp=["tidy"],
        hooks=[ExpectedHook(event="PreToolUse", matcher="Bash", command="{home}/guard.sh")],
    )
    good = _audit(
        AuditComponent(kind="skill", name="tidy", file="/h/.claude/skills/tidy/SKILL.md"),
        AuditComponent(kind="mcp", name="tidy", file="/h/.claude.json", command="python3 s.py"),
        AuditComponent(
            kind="hook",
            name="PreToolUse:Bash",
            file="/h/.claude/settings.json",
            event="PreToolUse",
            matcher="Bash",
            command="/h/guard.sh",
        ),
    )
    expand = lambda text: text.replace("{home}", "/h")  # noqa: E731
    checks = component_checks("claude-code", wanted, good, expand)
    assert [c.passed for c in checks] == [True, True, True]
    decoy = good.model_copy(deep=True)
    decoy.components[0].decoy = "empty skill folder"
    decoy.components[2].command = "/elsewhere/guard.sh"
    decoy.components.pop(1)
    checks = component_checks("claude-code", wanted, decoy, expand)
    assert [c.passed for c in checks] == [False, False, False]
    assert "would not load it (empty skill folder)" in checks[0].message
    assert checks[1].message == (  # kinds as the audit names them
        "MCP server 'tidy' was not found where claude-code loads it (found MCP servers: none)"
    )
    assert "/elsewhere/guard.sh" in checks[2].message


def test_a_named_pipe_is_recorded_not_opened(tmp_path: Path) -> None:
    import os

    os.mkfifo(tmp_path / "pipe")  # opening it for reading would block forever
    (tmp_path / "file").write_text("x")
    found = snapshot(tmp_path)
    assert found["pipe"].kind == "special" and found["file"].kind == "file"


def test_a_script_that_ran_and_then_called_a_missing_command_is_a_failed_step(
    tmp_path: Path,
) -> None:
    scratch = Scratch.create(tmp_path / "s")
    env = installer_environment(scratch, {"PATH": "/usr/bin:/bin"})
    script = tmp_path / "install.sh"
    script.write_text('#!/bin/sh\necho wrote > "$HOME/x"\nno-such-tool-x\n')
    script.chmod(0o755)
    for command in (str(script), f"sh {script}", "true && no-such-tool-y"):
        run = run_command(command, scratch, env, 10, "--install")
        assert (run.ok, run.returncode) == (False, 127), command
        assert "exited 127" in run.describe("install")
    assert (scratch.home / "x").read_text() == "wrote\n"
    not_executable = tmp_path / "plain.sh"
    not_executable.write_text("#!/bin/sh\n")
    for command in (str(not_executable), f"X=1 {tmp_path}/missing.sh", "no-such-installer-x"):
        with pytest.raises(ConfigError, match="cannot be started"):
            run_command(command, scratch, env, 10, "--install")


def test_an_expect_file_naming_an_agent_that_agent_leaves_out_is_refused() -> None:
    from proctor.addons.install_check import InstallOptions, resolve_agents
    from proctor.addons.install_expect import InstallExpectation

    expect = InstallExpectation.model_validate({"claude-code": {"skills": ["tidy"]}})
    options = InstallOptions(install="true", agents=["codex"], expect=expect)
    with pytest.raises(ConfigError, match=r"--expect names claude-code.*--agent \(codex\)"):
        resolve_agents(options)
    options.agents = ["codex", "claude-code"]
    assert resolve_agents(options) == ["codex", "claude-code"]


@pytest.mark.parametrize(
    ("name", "text", "words"),
    [
        ("e.json", '{"claude-code": null}', ["field 'claude-code'", "null"]),
        ("e.toml", "claude_code = {}", ["unknown key 'claude_code'"]),
        ("e.json", '{"claude_code": {"skills": ["a"]}}', ["unknown key 'claude_code'"]),
        ("e.json", '{"codex": {}, "codex": {"skills": ["a"]}}', ["key 'codex' is given twice"]),
        ("e.json", "[" * 100_000, ["nested too deeply"]),
        ("e.toml", "a = " + "[" * 100_000, ["nested too deeply"]),
        ("e.json", '{"project": [' + "1" * 5000 + "]}", ["number too long"]),
        ("e.toml", "project = [" + "1" * 5000 + "]", ["number too long"]),
    ],
)
def test_null_python_names_repeats_and_unreadable_numbers_are_config_errors(
    tmp_path: Path, name: str, text: str, words: list[str]
) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_expectation(path)
    message = str(caught.value)
    assert message.startswith(f"--expect {path}") and "\n" not in message
    for word in words:
        assert word in message


def test_codex_home_exists_in_the_scratch_before_the_install(tmp_path: Path) -> None:
    scratch = Scratch.create(tmp_path / "s")
    env = installer_environment(scratch, {"PATH": "/usr/bin:/bin"})
    assert run_command('test -d "$CODEX_HOME"', scratch, env, 10, "--install").ok


def test_the_clis_bookkeeping_is_no_change_but_their_mcp_servers_are(tmp_path: Path) -> None:
    state = tmp_path / "home" / ".claude.json"
    (tmp_path / "home" / ".claude").mkdir(parents=True)
    (tmp_path / "home" / ".gemini").mkdir()
    state.write_text(json.dumps({"mcpServers": {"a": {"command": "a"}}}))
    before = snapshot(tmp_path, DEFAULT_IGNORE)
    bookkeeping = {"firstStartTime": "2026-01-01", "machineID": "m", "userID": "u"}
    state.write_text(json.dumps({"mcpServers": {"a": {"command": "a"}}, **bookkeeping}))
    for rel in (
        "home/.claude/telemetry/1p_failed_events.x.json",
        "home/.gemini/projects.json",
        "home/.gemini/tmp/p/.project_root",
        "home/.gemini/history/p/.project_root",
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}")
    assert not compare(before, snapshot(tmp_path, DEFAULT_IGNORE))
    local = {"projects": {"/p": {"mcpServers": {"b": {"command": "b"}}}}}
    state.write_text(json.dumps({"mcpServers": {"a": {"command": "a"}}, **local}))
    assert compare(before, snapshot(tmp_path, DEFAULT_IGNORE)).changed == ["home/.claude.json"]


def test_bookkeeping_claude_wrote_is_not_left_by_the_uninstall(tmp_path: Path) -> None:
    home = tmp_path / "home"
    plant(home, ["claude-code"])
    planted = snapshot(tmp_path)
    path = home / ".claude.json"
    doc = json.loads(path.read_text())
    doc |= {"firstStartTime": "2026-01-01", "machineID": "m", "migrationVersion": 3}
    doc["projects"] = {"/p": {"allowedTools": [], "mcpServers": {}}}
    path.write_text(json.dumps(doc))
    check, _ = removal_checks(planted, snapshot(tmp_path), tmp_path, ["claude-code"])
    assert check.passed, check.message
    doc["projects"]["/p"]["mcpServers"] = {"tidy": {"command": "t"}}
    path.write_text(json.dumps(doc))
    check, _ = removal_checks(planted, snapshot(tmp_path), tmp_path, ["claude-code"])
    assert not check.passed and "left projects in home/.claude.json" in check.message


def test_an_expect_file_names_slash_commands_and_subagents(tmp_path: Path) -> None:
    path = tmp_path / "expect.json"
    path.write_text(
        json.dumps({"claude-code": {"commands": ["tidy:tidy"], "subagents": ["tidy:tidier"]}})
    )
    wanted = load_expectation(path).for_agent("claude-code")
    assert wanted is not None
    plugin = "/h/.claude/plugins/cache/m/tidy/1.0.0"
    found = _audit(
        AuditComponent(kind="command", name="tidy:tidy", file=f"{plugin}/commands/tidy.md"),
        AuditComponent(
            kind="subagent",
            name="tidy:tidier",
            file=f"{plugin}/agents/tidier.md",
            decoy="no front matter giving a name and a description",
        ),
    )
    checks = component_checks("claude-code", wanted, found, lambda text: text)
    assert [(c.name, c.passed) for c in checks] == [("present", True), ("present", False)]
    assert "command 'tidy:tidy'" in checks[0].message
    assert "would not load it (no front matter" in checks[1].message


@pytest.mark.parametrize(
    ("first_line", "why"),
    [
        ("#!/bin/sh\r", "has Windows line endings: its first line '#!/bin/sh\\r' ends in"),
        ("#!/no/such/interpreter", "names /no/such/interpreter in its #! line, which does not"),
        ("#!/usr/bin/env no-such-python-xyz", "names no-such-python-xyz in its #! line"),
    ],
)
def test_a_script_whose_interpreter_cannot_start_is_a_config_error_naming_its_first_line(
    tmp_path: Path, first_line: str, why: str
) -> None:
    scratch = Scratch.create(tmp_path / "s")
    env = installer_environment(scratch, {"PATH": "/usr/bin:/bin"})
    script = tmp_path / "install.sh"
    script.write_bytes(f"{first_line}\necho hi\n".encode())
    script.chmod(0o755)
    with pytest.raises(ConfigError) as caught:
        run_command(str(script), scratch, env, 10, "--install")
    assert f"cannot be started: {script} {why}" in str(caught.value)


def test_a_relative_program_or_one_split_at_a_space_is_explained(tmp_path: Path) -> None:
    scratch = Scratch.create(tmp_path / "s")
    env = installer_environment(scratch, {"PATH": "/usr/bin:/bin"})
    with pytest.raises(ConfigError) as caught:
        run_command("./install.sh --all", scratch, env, 10, "--install")
    assert str(caught.value) == (
        "--install: the command './install.sh --all' cannot be started: ./install.sh does not "
        "exist in the scratch project, where the command runs; a path from the folder you ran "
        "proctor in needs {cwd}: {cwd}/install.sh"
    )
    spaced = tmp_path / "my installer.sh"
    spaced.write_text("#!/bin/sh\n")
    spaced.chmod(0o755)
    with pytest.raises(ConfigError) as caught:
        run_command(f"{tmp_path}/my installer.sh", scratch, env, 10, "--install")
    assert f"{tmp_path}/my does not exist (the shell split '{spaced}' at its space" in str(
        caught.value
    )


def test_the_installers_temporary_files_stay_beside_its_scratch(tmp_path: Path) -> None:
    scratch = Scratch.create(tmp_path / "fresh")
    env = installer_environment(scratch, {"PATH": "/usr/bin:/bin", "TMPDIR": "/tmp"})
    assert env["TMPDIR"] == str(tmp_path / "fresh-tmp")
    run = run_command('mktemp > "$HOME/made"', scratch, env, 10, "--install")
    assert run.ok
    made = Path((scratch.home / "made").read_text().strip())
    assert made.parent == tmp_path / "fresh-tmp" and made.is_file()
    assert "fresh-tmp" not in " ".join(snapshot(scratch.root))


def test_a_failed_command_naming_a_file_of_the_folder_proctor_ran_in_says_to_write_cwd(
    tmp_path: Path,
) -> None:
    import os

    from proctor.addons.install_check import InstallOptions, check_install

    origin = tmp_path / "addon"
    origin.mkdir()
    (origin / "my install.py").write_text("print('installed')\n")
    (tmp_path / "home").mkdir()
    options = InstallOptions(
        install="python3 'my install.py' --all",
        agents=["claude-code"],
        origin=origin,
        real_homes=[tmp_path / "home"],
        parent_env={"PATH": os.environ["PATH"]},
    )
    install = next(c for c in check_install(options).checks if c.name == "install")
    assert not install.passed
    assert install.message.endswith(
        " (my install.py is not in the scratch project, where the command runs, but in the "
        "folder you ran proctor in: write {cwd}/'my install.py')"
    ), install.message


@pytest.mark.parametrize("option", ["install", "uninstall"])
def test_a_bare_program_name_of_a_file_in_the_folder_proctor_ran_in_says_to_write_cwd(
    tmp_path: Path, option: str
) -> None:
    import os

    from proctor.addons.install_check import InstallOptions, check_install

    origin = tmp_path / "addon"
    origin.mkdir()
    (origin / "install.sh").write_text("#!/bin/sh\n")
    (origin / "install.sh").chmod(0o755)
    (tmp_path / "home").mkdir()
    named = "install.sh --all"
    options = InstallOptions(
        install=named if option == "install" else "true",
        uninstall=named if option == "uninstall" else None,
        agents=["claude-code"],
        origin=origin,
        real_homes=[tmp_path / "home"],
        parent_env={"PATH": os.environ["PATH"]},
    )
    with pytest.raises(ConfigError) as caught:
        check_install(options)
    assert str(caught.value) == (
        f"--{option}: the command 'install.sh --all' cannot be started: install.sh is not a "
        "command on PATH (install.sh is not in the scratch project, where the command runs, "
        "but in the folder you ran proctor in: write {cwd}/install.sh)"
    )
