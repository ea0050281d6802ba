"""``proctor audit`` in-process: JSON and text output, exit codes, pure reading, confinement to
the home and project, the cost of an empty home, and the per-trial audit."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from proctor.addons.audit import audit
from proctor.addons.audit.trial import trial_audit
from proctor.models.audit import AuditReport
from proctor.models.trial import TrialRecord
from tests.unit.addons.audit_layouts import CLAUDE, GEMINI, plant


def planted(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "home").mkdir()
    (tmp_path / "proj").mkdir()
    plant(tmp_path, {**CLAUDE["plugins"][0], **GEMINI["extensions"][0]})
    return tmp_path / "home", tmp_path / "proj"


def audit_cli(proctor: Callable[..., Any], *args: str) -> tuple[int, str, str]:
    result = proctor("audit", *args)
    return result.code, result.out, result.err


def tree_digest(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        stat = path.lstat()
        h.update(f"{path}:{stat.st_mode}:{stat.st_mtime_ns}".encode())
        if path.is_file():
            h.update(path.read_bytes())
    return h.hexdigest()


def test_json_is_the_audit_report(tmp_path: Path, proctor: Callable[..., Any]) -> None:
    home, proj = planted(tmp_path)
    code, out, _ = audit_cli(proctor, "--home", str(home), "--project", str(proj), "--json")
    assert code == 0
    report = AuditReport.model_validate(json.loads(out))
    assert [a.agent for a in report.agents] == ["claude-code", "codex", "gemini-cli"]
    assert "schemaVersion" in out and "decoy" in out
    assert report == audit(home, proj)


def test_text_groups_by_kind_and_marks_decoys(tmp_path: Path, proctor: Callable[..., Any]) -> None:
    home, proj = planted(tmp_path)
    code, out, _ = audit_cli(
        proctor, "--home", str(home), "--project", str(proj), "--agent", "claude"
    )
    assert code == 0
    assert "claude-code:" in out and "gemini-cli:" not in out
    assert "  plugins:\n" in out and "  skills:\n" in out
    assert "DECOY: disabled (enabledPlugins)" in out
    assert str(home / ".claude" / "plugins" / "installed_plugins.json") in out


def test_text_shows_a_terminal_escape_in_a_project_file_never_obeys_it(
    tmp_path: Path, proctor: Callable[..., Any]
) -> None:
    """A cloned project's ``.mcp.json`` or skill whose name or command holds a terminal's
    escape sequence (a title set, a screen cleared) or a line break: the text report shows
    it escaped, on its own line."""
    home, proj = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    servers = {"ev\x1b[31mil": {"command": "x\x1b]0;owned\x07", "args": ["a\nfake: line"]}}
    (proj / ".agents/skills/s").mkdir(parents=True)
    (proj / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    (proj / ".agents/skills/s/SKILL.md").write_text('---\nname: "a\\e[2Jb"\ndescription: d\n---\n')
    code, out, _ = audit_cli(proctor, "--home", str(home), "--project", str(proj))
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out
    assert "    ev\\x1b[31mil (stdio) 'x\\x1b]0;owned\\x07' 'a\\nfake: line' [project]" in out
    assert out.count("    a\\x1b[2Jb [project]") == 2  # Codex's and Gemini CLI's


def test_configuration_errors_exit_2_with_one_sentence(
    tmp_path: Path, proctor: Callable[..., Any]
) -> None:
    code, _, err = audit_cli(
        proctor, "--home", str(tmp_path / "missing"), "--project", str(tmp_path)
    )
    assert code == 2 and "--home" in err and "Traceback" not in err
    code, _, err = audit_cli(proctor, "--home", str(tmp_path), "--project", str(tmp_path / "nope"))
    assert code == 2 and "--project" in err
    code, _, err = audit_cli(
        proctor, "--home", str(tmp_path), "--project", str(tmp_path), "--agent", "cursor"
    )
    assert code == 2 and "claude-code, codex, gemini-cli" in err


def test_audit_writes_nothing(tmp_path: Path, proctor: Callable[..., Any]) -> None:
    home, proj = planted(tmp_path)
    before = tree_digest(tmp_path)
    audit(home, proj)
    audit_cli(proctor, "--home", str(home), "--project", str(proj), "--json")
    assert tree_digest(tmp_path) == before


def test_nothing_outside_home_and_project_is_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "evil").mkdir(parents=True)
    (outside / "evil" / "SKILL.md").write_text("x")
    (outside / "settings.json").write_text(json.dumps({"hooks": {"Stop": [{"hooks": []}]}}))
    home = tmp_path / "home"
    (home / ".claude" / "skills").mkdir(parents=True)
    os.symlink(outside / "evil", home / ".claude" / "skills" / "evil")
    os.symlink(outside / "settings.json", home / ".claude" / "settings.json")
    result = audit(home, None, ["claude-code"]).agents[0]
    assert [c for c in result.components if c.kind == "hook"] == []  # the linked file: unread
    assert any("settings.json: leads outside" in p for p in result.problems)
    # A skill folder linked in is loaded (each CLI follows the link: see
    # tests/contract/test_skills.py); only its SKILL.md's presence is looked at.
    (skill,) = [c for c in result.components if c.kind == "skill"]
    assert skill.decoy is None and skill.name == "evil"
    assert skill.file == str(home / ".claude" / "skills" / "evil" / "SKILL.md")
    assert skill.linked_to == str((outside / "evil").resolve())


def test_a_linked_skills_folder_is_listed_and_its_empty_skills_are_decoys(tmp_path: Path) -> None:
    """A skills folder that is itself a link (to a folder of dotfiles): its skills are listed
    as loaded, each with where it leads; one without SKILL.md there is a decoy, and a link
    that leads nowhere lists nothing."""
    dotfiles = tmp_path / "dotfiles" / "skills"
    (dotfiles / "tidy").mkdir(parents=True)
    (dotfiles / "tidy" / "SKILL.md").write_text("---\nname: tidy\ndescription: d\n---\n")
    (dotfiles / "empty").mkdir()
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    os.symlink(dotfiles, home / ".claude" / "skills")
    result = audit(home, None, ["claude-code"]).agents[0]
    skills = {c.name: c for c in result.components if c.kind == "skill"}
    assert set(skills) == {"tidy", "empty"}
    assert skills["tidy"].decoy is None
    assert skills["tidy"].linked_to == str((dotfiles / "tidy").resolve())
    assert skills["empty"].decoy == "empty skill folder (no SKILL.md)"
    (home / ".claude" / "skills").unlink()
    os.symlink(tmp_path / "gone", home / ".claude" / "skills")
    result = audit(home, None, ["claude-code"]).agents[0]
    assert [c for c in result.components if c.kind == "skill"] == []


def test_an_empty_home_is_cheap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every trial audits its scratch home: an empty one is a few hundred probes of paths
    that are not there (the folders above the workspace included), with no file opened and
    no folder listed, whatever the machine's load (counted, not timed)."""
    import builtins

    (tmp_path / "home").mkdir()
    (tmp_path / "ws").mkdir()
    counts: dict[str, int] = {}

    def counted(name: str, call: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            counts[name] = counts.get(name, 0) + 1
            return call(*args, **kwargs)

        return wrapper

    audit(tmp_path / "home", tmp_path / "ws", ["claude-code"])  # every module imported
    for module, name in ((os, "stat"), (os, "lstat"), (os, "scandir"), (os, "listdir")):
        monkeypatch.setattr(module, name, counted(name, getattr(module, name)))
    monkeypatch.setattr(builtins, "open", counted("open", builtins.open))
    for agent in ("claude-code", "codex", "gemini-cli"):
        counts.clear()
        audit(tmp_path / "home", tmp_path / "ws", [agent])
        probes = counts.get("stat", 0) + counts.get("lstat", 0)
        assert 0 < probes < 400, (agent, counts)
        assert not {"scandir", "listdir", "open"} & set(counts), (agent, counts)


def test_trial_audit_is_none_for_scripted_and_never_raises(tmp_path: Path) -> None:
    assert trial_audit(tmp_path, tmp_path, "scripted") is None
    record = TrialRecord(case="c", agent="codex", repeat=1, status="passed")
    assert record.audit is None
    report = trial_audit(tmp_path / "no-such-home", tmp_path, "codex")
    assert report is not None and report.agents[0].components == []
    record.audit = report
    again = TrialRecord.model_validate(json.loads(json.dumps(record.to_dict())))
    assert again.audit == report


def test_the_trials_audit_the_agents_the_audit_knows() -> None:
    # execute/trial.py checks AUDITED_AGENTS before importing the audit at all.
    from proctor.addons.audit import AUDITORS
    from proctor.models.audit import AUDITED_AGENTS

    assert set(AUDITORS) == AUDITED_AGENTS


def test_a_settings_field_of_the_wrong_shape_is_a_problem_not_silence(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".codex").mkdir()
    (home / ".gemini").mkdir()
    (home / ".claude" / "settings.json").write_text('{"hooks": [1, 2], "permissions": "yes"}')
    (home / ".codex" / "config.toml").write_text("mcp_servers = 5\n")
    (home / ".gemini" / "settings.json").write_text('{"mcpServers": [1], "hooks": "x"}')
    found = {
        a.agent: a.problems
        for a in audit(home, None, ["claude-code", "codex", "gemini-cli"]).agents
    }
    # JSON's names for the shapes, as proctor's other messages give them, not Python's.
    assert any(
        "field 'hooks': expected an object, got a list; ignored" in p for p in found["claude-code"]
    )
    assert any(
        "field 'permissions': expected an object, got the string \"yes\"" in p
        for p in found["claude-code"]
    )
    assert any("field 'mcp_servers': expected an object, got 5" in p for p in found["codex"])
    assert any(
        "field 'mcpServers': expected an object, got a list" in p for p in found["gemini-cli"]
    )
    shown = [p for problems in found.values() for p in problems]
    assert not any(word in p for p in shown for word in ("not str", "not int", "not list"))


def test_control_settings_of_the_right_shape_have_no_problem(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text('{"hooks": {}, "permissions": {"allow": []}}')
    assert audit(home, None, ["claude-code"]).agents[0].problems == []


def test_json_nested_too_deeply_is_a_problem_not_a_traceback(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (project / ".mcp.json").write_text("[" * 200_000 + "]" * 200_000)
    problems = audit(home, project, ["claude-code"]).agents[0].problems
    assert any("nested too deeply" in p for p in problems)


def moved_setup(tmp_path: Path, monkeypatch: Any) -> dict[str, Path]:
    """A home with nothing in it and, elsewhere, one MCP server per agent in the folder its
    variable names; the variables set."""
    home, proj = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    proj.mkdir()
    claude, codex, gemini = tmp_path / "claude-cfg", tmp_path / "codex-home", tmp_path / "gem"
    (gemini / ".gemini").mkdir(parents=True)
    codex.mkdir()
    claude.mkdir()
    (claude / ".claude.json").write_text('{"mcpServers": {"from-claude": {"command": "a"}}}')
    (codex / "config.toml").write_text('[mcp_servers.from-codex]\ncommand = "b"\n')
    (gemini / ".gemini" / "settings.json").write_text(
        '{"mcpServers": {"from-gemini": {"command": "c"}}}'
    )
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("CODEX_HOME", str(codex))
    monkeypatch.setenv("GEMINI_CLI_HOME", str(gemini))
    return {"home": home, "proj": proj, "claude": claude, "codex": codex, "gemini": gemini}


def servers_by_agent(out: str) -> dict[str, dict[str, str]]:
    report = AuditReport.model_validate(json.loads(out))
    return {
        a.agent: {c.name: c.file for c in a.components if c.kind == "mcp"} for a in report.agents
    }


def test_the_cli_reads_where_the_agents_environment_variables_point(
    tmp_path: Path, proctor: Callable[..., Any], monkeypatch: Any
) -> None:
    at = moved_setup(tmp_path, monkeypatch)
    code, out, err = audit_cli(proctor, "--project", str(at["proj"]), "--json")
    assert code == 0, err
    found = servers_by_agent(out)
    assert found["claude-code"] == {"from-claude": str(at["claude"] / ".claude.json")}
    assert found["codex"] == {"from-codex": str(at["codex"] / "config.toml")}
    assert found["gemini-cli"] == {"from-gemini": str(at["gemini"] / ".gemini" / "settings.json")}


def test_an_explicit_home_is_read_with_the_default_layout(
    tmp_path: Path, proctor: Callable[..., Any], monkeypatch: Any
) -> None:
    at = moved_setup(tmp_path, monkeypatch)
    args = ("--home", str(at["home"]), "--project", str(at["proj"]), "--json")
    code, out, err = audit_cli(proctor, *args)
    assert code == 0, err
    assert servers_by_agent(out) == {"claude-code": {}, "codex": {}, "gemini-cli": {}}


@pytest.mark.parametrize(
    ("variable", "agent"),
    [("CLAUDE_CONFIG_DIR", "claude"), ("CODEX_HOME", "codex"), ("GEMINI_CLI_HOME", "gemini")],
)
def test_a_variable_naming_no_folder_is_one_sentence_and_exit_2(
    tmp_path: Path, proctor: Callable[..., Any], monkeypatch: Any, variable: str, agent: str
) -> None:
    at = moved_setup(tmp_path, monkeypatch)
    monkeypatch.setenv(variable, str(tmp_path / "nowhere"))
    code, _, err = audit_cli(proctor, "--project", str(at["proj"]), "--agent", agent)
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert f"the environment variable {variable} names {tmp_path / 'nowhere'}" in err
    assert "expected an existing folder" in err
    others = {"claude": "codex", "codex": "gemini", "gemini": "claude"}
    code, _, err = audit_cli(proctor, "--project", str(at["proj"]), "--agent", others[agent])
    assert code == 0, err  # another agent's variable is not read


@pytest.mark.parametrize(
    ("agent", "relative"),
    [
        ("claude-code", ".claude/CLAUDE.md"),
        ("claude-code", ".claude/rules/style.md"),
        ("codex", ".codex/AGENTS.md"),
        ("gemini-cli", ".gemini/GEMINI.md"),
    ],
)
def test_an_instruction_file_linked_in_from_outside_is_a_problem(
    tmp_path: Path, agent: str, relative: str
) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("be brief\n")
    home = tmp_path / "home"
    (home / relative).parent.mkdir(parents=True)
    os.symlink(outside, home / relative)
    result = audit(home, None, [agent]).agents[0]
    assert [c for c in result.components if c.kind == "instructions"] == []
    assert result.problems == [f"{home / relative}: leads outside the home and project; not read"]


def test_audit_from_python_takes_paths_given_as_text(tmp_path: Path) -> None:
    """docs/addons.md calls ``audit(home, project, ["claude-code"])``: a home and project
    written as text are read as the folders they name, the same as ``Path`` objects."""
    home, project = planted(tmp_path)
    as_text = audit(
        str(home), str(project), ["claude-code"], claude_config_dir=str(home / ".claude")
    )
    as_paths = audit(home, project, ["claude-code"], claude_config_dir=home / ".claude")
    assert as_text.to_dict() == as_paths.to_dict()
    assert as_text.agents[0].components
