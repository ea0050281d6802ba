"""``proctor addon check-install`` on the example installers: the correct one passes every
check, and each deliberate bug of the broken one fails exactly the checks it should."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import time
from pathlib import Path

import pytest

from proctor.addons.install_check import InstallOptions, check_install
from proctor.errors import ConfigError
from tests.conftest import Run

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "addons" / "installer"
PYTHON = shlex.quote(sys.executable)
GOOD = f"{PYTHON} {EXAMPLE / 'install.py'}"
BROKEN = f"{PYTHON} {EXAMPLE / 'broken_install.py'}"
EXPECT = str(EXAMPLE / "expect.json")


def check(proctor: Run, *args: str) -> tuple[int, dict[str, object]]:
    result = proctor("addon", "check-install", *args, "--json")
    assert result.code in (0, 1), result.err
    return result.code, result.json()


def failed(report: dict[str, object]) -> set[tuple[str, str | None]]:
    checks = report["checks"]
    assert isinstance(checks, list)
    return {(c["name"], c["agent"]) for c in checks if not c["passed"]}


def test_the_correct_installer_passes_every_check(proctor: Run) -> None:
    code, report = check(
        proctor,
        "--install",
        f"{GOOD} install",
        "--uninstall",
        f"{GOOD} uninstall",
        "--expect",
        EXPECT,
    )
    assert (code, report["ok"], failed(report)) == (0, True, set())
    names = {c["name"] for c in report["checks"]}  # type: ignore[attr-defined]
    assert names == {
        "install",
        "present",
        "project",
        "idempotent",
        "keeps-user",
        "uninstall",
        "uninstall-removes",
        "uninstall-keeps-user",
        "real-home",
    }
    present = [c for c in report["checks"] if c["name"] == "present"]  # type: ignore[attr-defined]
    assert len(present) == 9  # skill, hook and MCP server for each of the three agents
    installed = report["installed"]
    assert isinstance(installed, dict)
    skills = {
        (a["agent"], c["name"])
        for a in installed["agents"]
        for c in a["components"]
        if c["kind"] == "skill" and c["decoy"] is None
    }
    assert {("claude-code", "tidy"), ("codex", "tidy"), ("gemini-cli", "tidy")} <= skills


BUGS = {
    "skill-wrong-place": {("present", "claude-code"), ("uninstall-removes", None)},
    "hook-twice": {("idempotent", None)},
    "clobbers-settings": {("keeps-user", "gemini-cli"), ("uninstall-keeps-user", "gemini-cli")},
    "writes-project": {("project", None), ("uninstall-removes", None)},
    "drops-permission": {("uninstall-keeps-user", "claude-code")},
    "leaves-mcp": {("uninstall-removes", None)},
}


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_each_bug_of_the_broken_installer_fails_its_checks(proctor: Run, bug: str) -> None:
    code, report = check(
        proctor,
        "--install",
        f"{BROKEN} install --bug {bug}",
        "--uninstall",
        f"{BROKEN} uninstall --bug {bug}",
        "--expect",
        EXPECT,
    )
    assert (code, report["ok"]) == (1, False)
    assert failed(report) == BUGS[bug]


def test_the_text_output_names_each_failure(proctor: Run) -> None:
    result = proctor(
        "addon",
        "check-install",
        "--install",
        f"{BROKEN} install --bug hook-twice",
        "--expect",
        EXPECT,
    )
    assert result.code == 1
    assert (
        "FAIL  idempotent: installing again changed the scratch: changed home/.claude/settings.json"
        in result.out
    )
    assert result.out.rstrip().endswith("1 failed")


def test_the_expect_file_may_allow_project_paths(proctor: Run, tmp_path: Path) -> None:
    expect = json.loads(Path(EXPECT).read_text())
    expect["project"] = [".tidy.json"]
    allowing = tmp_path / "expect.json"
    allowing.write_text(json.dumps(expect))
    code, report = check(
        proctor, "--install", f"{BROKEN} install --bug writes-project", "--expect", str(allowing)
    )
    assert (code, failed(report)) == (0, set())


def test_without_an_expect_file_the_installed_components_are_listed(proctor: Run) -> None:
    result = proctor(
        "addon", "check-install", "--install", f"{GOOD} install --agent codex", "--agent", "codex"
    )
    assert result.code == 0, result.out
    assert "note  codex: installed MCP server tidy in home/.codex/config.toml; " in result.out
    assert "skill tidy in home/.agents/skills/tidy/SKILL.md" in result.out
    assert "hook PreToolUse:Bash running" in result.out
    code, report = check(
        proctor, "--install", f"{BROKEN} install --bug hook-twice --agent codex", "--agent", "codex"
    )
    assert (code, failed(report)) == (1, {("idempotent", None)})


def test_components_the_expect_file_does_not_name_are_notes_naming_their_kind(
    proctor: Run, tmp_path: Path
) -> None:
    expect = tmp_path / "expect.json"
    expect.write_text(json.dumps({"codex": {"skills": ["tidy"]}}))
    code, report = check(
        proctor, "--install", f"{GOOD} install --agent codex", "--expect", str(expect)
    )
    assert (code, failed(report)) == (0, set())
    assert (
        "codex: the installer also added MCP server tidy in home/.codex/config.toml, which the "
        "expect file does not name" in report["notes"]  # type: ignore[operator]
    )


def test_a_failing_install_is_a_failed_check_with_its_output(proctor: Run) -> None:
    code, report = check(proctor, "--install", "echo 'npm ERR! no such package' >&2; exit 4")
    assert code == 1
    install = next(c for c in report["checks"] if c["name"] == "install")  # type: ignore[attr-defined]
    assert not install["passed"]
    assert "exited 4" in install["message"] and "no such package" in install["message"]


def test_a_failed_install_says_what_it_left_and_what_the_agents_would_load(
    proctor: Run,
) -> None:
    halfway = (
        "mkdir -p {home}/.claude/skills/tidy && "
        "printf -- '---\\ndescription: Tidy.\\n---\\n' > {home}/.claude/skills/tidy/SKILL.md && "
        "rm -r {home}/.codex && cp /no/such/hook.sh {home}/.claude/hook.sh"
    )
    code, report = check(proctor, "--install", halfway)
    assert (code, failed(report)) == (1, {("install", None)})
    assert report["notes"] == [
        "before it failed, the install added home/.claude/skills/tidy/SKILL.md; removed "
        "home/.codex in the scratch",
        "claude-code: after the failed install, the agent would load skill tidy in "
        "home/.claude/skills/tidy/SKILL.md",
        "not run, as the install failed: project, idempotent, keeps-user",
    ]
    installed = report["installed"]
    assert isinstance(installed, dict)
    claude = next(a for a in installed["agents"] if a["agent"] == "claude-code")
    assert [c["name"] for c in claude["components"] if c["kind"] == "skill"] == ["tidy"]
    code, report = check(proctor, "--install", "exit 3", "--agent", "codex")
    assert report["notes"] == [
        "the failed install changed nothing in the scratch",
        "not run, as the install failed: project, idempotent, keeps-user",
    ]
    assert report["notRun"] == [
        {"name": name, "failed": "the install"} for name in ("project", "idempotent", "keeps-user")
    ]


def test_a_failed_install_shows_its_output_once_and_names_the_checks_not_run(
    proctor: Run, tmp_path: Path
) -> None:
    """The install fails in the empty scratch: the checks after it, those of the planted
    scratch included, are named once as not run, never failed with the same output again."""
    expect = tmp_path / "expect.json"
    expect.write_text(json.dumps({"codex": {"skills": ["tidy"]}}))
    result = proctor(
        "addon", "check-install", "--install", "echo 'npm ERR! 404' >&2; exit 1",
        "--uninstall", "true", "--expect", str(expect),
    )  # fmt: skip
    assert result.code == 1, result.err
    assert result.out.count("npm ERR! 404") == 1
    assert [line.split(":")[0] for line in result.out.splitlines() if ":" in line][:2] == [
        "FAIL  install",
        "PASS  real-home",
    ]
    assert (
        "note  not run, as the install failed: present, project, idempotent, keeps-user, "
        "uninstall, uninstall-removes, uninstall-keeps-user\n" in result.out
    )
    assert result.out.endswith("2 checks, 1 failed\n")


def test_a_failure_in_the_planted_scratch_names_the_uninstall_checks_not_run(
    proctor: Run,
) -> None:
    # It fails over the user's state only (a settings file it will not merge into).
    picky = "test ! -e {home}/.codex/config.toml || { echo 'will not merge' >&2; exit 5; }"
    code, report = check(proctor, "--install", picky, "--uninstall", "true", "--agent", "codex")
    assert (code, failed(report)) == (1, {("keeps-user", None)})
    assert report["notes"][-1] == (
        "not run, as the install over the user's state failed: uninstall, uninstall-removes, "
        "uninstall-keeps-user"
    )
    assert [(c["name"], c["failed"]) for c in report["notRun"]] == [  # type: ignore[attr-defined]
        (name, "the install over the user's state")
        for name in ("uninstall", "uninstall-removes", "uninstall-keeps-user")
    ]
    code, report = check(proctor, "--install", "true", "--uninstall", "exit 6", "--agent", "codex")
    assert (code, failed(report)) == (1, {("uninstall", None)})
    assert report["notes"][-1] == (
        "not run, as the uninstall failed: uninstall-removes, uninstall-keeps-user"
    )
    assert report["notRun"] == [
        {"name": "uninstall-removes", "failed": "the uninstall"},
        {"name": "uninstall-keeps-user", "failed": "the uninstall"},
    ]
    code, report = check(proctor, "--install", "true", "--uninstall", "true", "--agent", "codex")
    assert (code, report["notRun"]) == (0, [])


def test_a_hook_command_in_the_scratch_home_is_shown_with_the_home_placeholder(
    proctor: Run, tmp_path: Path
) -> None:
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "HOME_/.guard/guard.sh"}]}]}}  # fmt: skip
    text = shlex.quote(json.dumps(settings)).replace("HOME_", "'{home}'")
    install = f"mkdir -p {{home}}/.claude && printf '%s' {text} > {{home}}/.claude/settings.json"
    result = proctor("addon", "check-install", "--install", install, "--agent", "claude")
    assert result.code == 1, result.out + result.err  # it overwrites the user's settings
    assert (
        "note  claude-code: installed hook PreToolUse:Bash running '{home}/.guard/guard.sh' in "
        "home/.claude/settings.json" in result.out
    )
    expect = tmp_path / "expect.json"
    expect.write_text(
        json.dumps({"claude-code": {"hooks": [{"event": "PreToolUse", "matcher": "Write"}]}})
    )
    _, report = check(proctor, "--install", install, "--expect", str(expect))
    [present] = [c for c in report["checks"] if c["name"] == "present"]  # type: ignore[attr-defined]
    assert present["message"].endswith(
        "(found hooks: PreToolUse:Bash running '{home}/.guard/guard.sh' in "
        "home/.claude/settings.json)"
    )


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--install", "no-such-installer-x"], ["--install:", "cannot be started"]),
        (["--install", "true", "--expect", "missing.json"], ["--expect missing.json: no such"]),
        (["--install", "HOME=/tmp/elsewhere ./install.sh"], ["--install:", "sets HOME itself"]),
        (["--install", "true", "--agent", "cursor"], ["--agent cursor: unknown agent"]),
        (["--install", " "], ["--install: the command is empty"]),
        (["--install", "true", "--uninstall", ""], ["--uninstall: the command is empty"]),
        (
            ["--install", "true", "--keep", "/proc/no-such-folder/x"],
            ["--keep /proc/no-such-folder/x: cannot make this folder (No such file"],
        ),
    ],
)
def test_configuration_errors_exit_2_with_one_sentence(
    proctor: Run, args: list[str], words: list[str]
) -> None:
    result = proctor("addon", "check-install", *args)
    assert result.code == 2
    assert "Traceback" not in result.err
    for word in words:
        assert word in result.err


def test_a_bad_expect_file_exits_2_naming_the_field(proctor: Run, tmp_path: Path) -> None:
    bad = tmp_path / "expect.toml"
    bad.write_text('[codex]\nskills = "tidy"\n')
    result = proctor("addon", "check-install", "--install", "true", "--expect", str(bad))
    assert result.code == 2
    assert f"--expect {bad}: field 'codex.skills'" in result.err


def test_a_write_outside_the_scratch_into_a_watched_home_is_caught(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / ".claude").mkdir(parents=True)
    sentinel = real / ".claude" / "settings.json"
    sentinel.write_text('{"permissions": {"allow": ["Bash(ls)"]}}\n')
    options = InstallOptions(
        install=f"{GOOD} install",
        uninstall=f"{GOOD} uninstall",
        origin=tmp_path,
        real_homes=[real],
    )
    report = check_install(options)
    assert report.ok, [c.message for c in report.failed()]
    assert sentinel.read_text() == '{"permissions": {"allow": ["Bash(ls)"]}}\n'
    escaping = InstallOptions(
        install="echo '{}' > {cwd}/real/.claude/settings.json",
        origin=tmp_path,
        real_homes=[real],
    )
    report = check_install(escaping)
    assert [c.name for c in report.failed()] == ["real-home"]
    assert str(sentinel) in report.failed()[0].message


def test_processes_the_installer_leaves_running_are_killed(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    options = InstallOptions(
        install=f"sleep 300 & echo $! > {pid_file}",
        origin=tmp_path,
        real_homes=[],
    )
    report = check_install(options)
    assert report.ok
    pid = int(pid_file.read_text())

    def alive() -> bool:
        try:
            return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
        except OSError:
            return False

    # SIGKILL is delivered asynchronously: on a loaded machine the process may take a moment
    # to die after check_install returns.
    deadline = time.monotonic() + 15
    while alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive()


def test_kept_scratches_hold_the_homes_the_installer_wrote(proctor: Run, tmp_path: Path) -> None:
    result = proctor(
        "addon",
        "check-install",
        "--install",
        f"{GOOD} install --agent codex",
        "--agent",
        "codex",
        "--keep",
        str(tmp_path / "kept"),
    )
    assert result.code == 0
    [root] = (tmp_path / "kept").iterdir()
    assert f"note  the scratches are kept in {root}: fresh/" in result.out
    assert (root / "fresh" / "home" / ".agents" / "skills" / "tidy" / "SKILL.md").is_file()
    assert (root / "user" / "home" / ".codex" / "AGENTS.md").is_file()


def test_kept_scratches_are_named_when_a_command_cannot_start_partway(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    installer = tmp_path / "install.sh"  # its first run leaves it not executable
    installer.write_text('#!/bin/sh\nchmod -x "$0"\nmkdir -p "$HOME/.codex/x"\n')
    installer.chmod(0o755)
    kept = tmp_path / "kept"
    monkeypatch.chdir(tmp_path)
    result = proctor(
        "addon", "check-install", "--install", "{cwd}/install.sh", "--agent", "codex",
        "--keep", str(kept),
    )  # fmt: skip
    assert result.code == 2, result.out + result.err
    [root] = kept.iterdir()
    assert (root / "fresh" / "home" / ".codex" / "x").is_dir()
    assert result.err.startswith("proctor: error: --install: the command ")
    assert result.err.rstrip().endswith(f"(the scratches so far are kept in {root})")


def test_kept_scratches_are_named_when_the_check_is_interrupted(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from proctor.addons import install_check

    def interrupted(root: Path, *_: object) -> None:
        (root / "fresh").mkdir()
        raise KeyboardInterrupt  # Ctrl-C while a command runs

    monkeypatch.setattr(install_check, "_check_in", interrupted)
    kept = tmp_path / "kept"
    result = proctor("addon", "check-install", "--install", "true", "--keep", str(kept))
    [root] = kept.iterdir()
    assert result.code == 130
    assert f"proctor: note: the scratches so far are kept in {root}\n" in result.err
    assert (root / "fresh").is_dir()


def test_cwd_with_a_space_stays_one_path_and_the_example_still_passes(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spaced = tmp_path / "my addon"
    shutil.copytree(EXAMPLE, spaced)
    monkeypatch.chdir(spaced)
    code, report = check(
        proctor,
        "--install", f"{PYTHON} {{cwd}}/install.py install",
        "--uninstall", f"{PYTHON} {{cwd}}/install.py uninstall",
        "--expect", str(spaced / "expect.json"),
    )  # fmt: skip
    assert (code, report["ok"], failed(report)) == (0, True, set())


def test_the_claude_alias_names_claude_code_as_in_audit(proctor: Run) -> None:
    code, report = check(proctor, "--install", "true", "--agent", "claude")
    agents = {c["agent"] for c in report["checks"] if c["agent"]}  # type: ignore[attr-defined]
    assert code in (0, 1) and agents == {"claude-code"}


def test_a_script_that_calls_a_missing_command_keeps_every_result(
    proctor: Run, tmp_path: Path
) -> None:
    script = tmp_path / "install.sh"
    script.write_text('#!/bin/sh\nmkdir -p "$HOME/.claude"\nno-such-tool-x\n')
    script.chmod(0o755)
    code, report = check(proctor, "--install", str(script), "--agent", "claude-code")
    assert code == 1
    install = next(c for c in report["checks"] if c["name"] == "install")  # type: ignore[attr-defined]
    assert not install["passed"] and "exited 127" in install["message"]
    assert any(c["name"] == "real-home" for c in report["checks"])  # type: ignore[attr-defined]


def test_an_expect_file_for_another_agent_than_agent_is_refused(
    proctor: Run, tmp_path: Path
) -> None:
    expect = tmp_path / "expect.json"
    expect.write_text('{"claude-code": {"skills": ["tidy"]}}')
    result = proctor(
        "addon", "check-install", "--install", "true", "--agent", "codex", "--expect", str(expect)
    )
    assert result.code == 2
    assert "--expect names claude-code" in result.err and "--agent (codex)" in result.err


def test_a_hook_written_under_another_agents_event_fails_present(
    proctor: Run, tmp_path: Path
) -> None:
    settings = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "g.sh"}]}]}}
    script = tmp_path / "install.py"
    script.write_text(
        "import json, os, pathlib\n"
        "p = pathlib.Path(os.environ['HOME'], '.gemini', 'settings.json')\n"
        "p.parent.mkdir(parents=True, exist_ok=True)\n"
        f"p.write_text(json.dumps({settings!r}))\n"
    )
    expect = tmp_path / "expect.json"
    expect.write_text('{"gemini-cli": {"hooks": [{"event": "PreToolUse", "command": "g.sh"}]}}')
    code, report = check(proctor, "--install", f"{PYTHON} {script}", "--expect", str(expect))
    assert code == 1
    present = [c for c in report["checks"] if c["name"] == "present"]  # type: ignore[attr-defined]
    assert len(present) == 1 and not present[0]["passed"]
    assert "BeforeTool" in present[0]["message"]
    # The installer wrote nothing, or the right BeforeTool: the expect file's own event is
    # named with its near valid one all the same.
    for written in (
        "{}",
        '{"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "g.sh"}]}]}}',
    ):
        script.write_text(
            "import os, pathlib\n"
            "p = pathlib.Path(os.environ['HOME'], '.gemini', 'settings.json')\n"
            "p.parent.mkdir(parents=True, exist_ok=True)\n"
            f"p.write_text({written!r})\n"
        )
        code, report = check(proctor, "--install", f"{PYTHON} {script}", "--expect", str(expect))
        (present,) = [c for c in report["checks"] if c["name"] == "present"]  # type: ignore[attr-defined]
        assert code == 1 and "the expect file's event PreToolUse" in present["message"]
        assert "did you mean 'BeforeTool'?" in present["message"], present["message"]


def test_an_installer_that_links_its_skill_in_passes_present(proctor: Run, tmp_path: Path) -> None:
    """``ln -s CHECKOUT/skills/greet ~/.claude/skills/greet``: Claude Code follows the link and
    loads the skill (tests/contract/test_skills.py), so the skill is present; uninstalling
    removes the link and leaves the checkout alone."""
    checkout = tmp_path / "checkout" / "greet"
    checkout.mkdir(parents=True)
    (checkout / "SKILL.md").write_text("---\nname: greet\ndescription: Greets.\n---\n\nHi.\n")
    skills = '"$HOME/.claude/skills"'
    install = f"mkdir -p {skills} && ln -sfn {shlex.quote(str(checkout))} {skills}/greet"
    uninstall = f"rm -f {skills}/greet"
    expect = tmp_path / "expect.json"
    expect.write_text(json.dumps({"claude-code": {"skills": ["greet"]}, "project": []}))
    code, report = check(
        proctor,
        *("--install", install, "--uninstall", uninstall, "--expect", str(expect)),
        *("--agent", "claude-code"),
    )
    assert (code, failed(report)) == (0, set()), report
    assert (checkout / "SKILL.md").is_file()
    missing = tmp_path / "expect-other.json"
    missing.write_text(json.dumps({"claude-code": {"skills": ["other"]}, "project": []}))
    code, report = check(proctor, "--install", install, "--expect", str(missing))
    assert ("present", "claude-code") in failed(report)  # the control: present still checks


@pytest.mark.parametrize(
    ("uninstall", "why"),
    [
        ("no-such-uninstaller-x --all", "no-such-uninstaller-x is not a command on PATH"),
        ("{cwd}/uninstall.sh", "uninstall.sh is not executable (chmod +x"),
        ("./uninstall.sh", "./uninstall.sh does not exist in the scratch project"),
    ],
)
def test_an_uninstall_that_cannot_start_is_refused_before_any_install(
    tmp_path: Path, uninstall: str, why: str
) -> None:
    (tmp_path / "uninstall.sh").write_text("#!/bin/sh\n")  # not executable
    options = InstallOptions(
        install="echo ran >> {cwd}/installs.txt",
        uninstall=uninstall,
        origin=tmp_path,
        real_homes=[tmp_path / "real"],
    )
    with pytest.raises(ConfigError) as caught:
        check_install(options)
    assert str(caught.value).startswith("--uninstall: the command ")
    assert why in str(caught.value)
    assert not (tmp_path / "installs.txt").exists()  # found before both installs, not after


def test_an_uninstall_the_install_puts_in_the_home_is_not_refused_up_front(
    tmp_path: Path,
) -> None:
    made = "mkdir -p {home}/.tidy && printf '#!/bin/sh\\nexit 0\\n' > {home}/.tidy/u.sh"
    options = InstallOptions(
        install=f"{made} && chmod +x {{home}}/.tidy/u.sh",
        uninstall="{home}/.tidy/u.sh",
        origin=tmp_path,
        real_homes=[tmp_path / "real"],
    )
    report = check_install(options)
    assert [c.passed for c in report.checks if c.name == "uninstall"] == [True]
    # never written: refused once the install ran, named as written, not as a temporary path
    options.install = "true"
    with pytest.raises(ConfigError) as caught:
        check_install(options)
    assert str(caught.value) == (
        "--uninstall: the command '{home}/.tidy/u.sh' cannot be started: {home}/.tidy/u.sh "
        "does not exist"
    )


def test_an_unstartable_command_in_a_folder_not_utf8_is_named_as_records_show_it(
    tmp_path: Path,
) -> None:
    folder = tmp_path / os.fsdecode(b"inst\xff")
    folder.mkdir()
    (folder / "uninstall.sh").write_text("#!/bin/sh\n")  # not executable
    options = InstallOptions(
        install="true", uninstall=f"{folder}/uninstall.sh", origin=tmp_path, real_homes=[]
    )
    with pytest.raises(ConfigError) as caught:
        check_install(options)
    shown = f"{tmp_path}/inst\\xff/uninstall.sh"
    assert str(caught.value).startswith(f"--uninstall: the command '{shown}' cannot be started")
    assert "\\udcff" not in str(caught.value)


def test_an_expected_hook_command_may_name_the_folder_proctor_ran_in(tmp_path: Path) -> None:
    from proctor.addons.install_expect import InstallExpectation

    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": f"{tmp_path}/hooks/guard.sh"}]}]}}  # fmt: skip
    install = f"mkdir -p {{home}}/.claude && echo {shlex.quote(json.dumps(settings))} > " + (
        "{home}/.claude/settings.json"
    )
    hook = {"event": "PreToolUse", "matcher": "Bash", "command": "{cwd}/hooks/guard.sh"}
    expect = InstallExpectation.model_validate({"claude-code": {"hooks": [hook]}})
    options = InstallOptions(
        install=install, expect=expect, origin=tmp_path, real_homes=[tmp_path / "real"]
    )
    [present] = [c for c in check_install(options).checks if c.name == "present"]
    assert present.passed, present.message


def test_the_help_names_every_kind_an_expect_file_may_list(proctor: Run) -> None:
    shown = " ".join(proctor("addon", "check-install", "--help").out.split())
    assert "skills, hooks, MCP servers (mcp), plugins, commands and subagents" in shown
