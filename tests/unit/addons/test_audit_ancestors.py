"""Instruction files in the folders above the project, as far as the home: Claude Code reads
every one (``CLAUDE.md``, ``CLAUDE.local.md``), Codex and Gemini CLI those up to the
repository's root (the nearest folder with a ``.git``)."""

from __future__ import annotations

from pathlib import Path

from proctor.addons.audit import audit_agent


def files(agent: str, home: Path, project: Path) -> list[str]:
    result = audit_agent(agent, home, project)
    assert result.problems == []
    return sorted(str(Path(c.file).relative_to(home)) for c in result.components if c.decoy is None)


def layout(home: Path) -> Path:
    project = home / "repo" / "sub" / "proj"
    project.mkdir(parents=True)
    (home / "repo" / ".git").mkdir()
    for relative in (
        "CLAUDE.md",  # the home itself: above the repository
        "AGENTS.md",
        "GEMINI.md",
        "repo/CLAUDE.local.md",
        "repo/AGENTS.md",
        "repo/GEMINI.md",
        "repo/sub/CLAUDE.md",
        "repo/sub/AGENTS.override.md",
    ):
        (home / relative).write_text("rules\n", encoding="utf-8")
    return project


def test_claude_code_reads_every_folder_above_the_project_up_to_the_home(
    tmp_path: Path,
) -> None:
    project = layout(tmp_path)
    assert files("claude-code", tmp_path, project) == [
        "CLAUDE.md",
        "repo/CLAUDE.local.md",
        "repo/sub/CLAUDE.md",
    ]


def test_codex_and_gemini_cli_read_the_folders_up_to_the_repository_root(
    tmp_path: Path,
) -> None:
    project = layout(tmp_path)
    assert files("codex", tmp_path, project) == ["repo/AGENTS.md", "repo/sub/AGENTS.override.md"]
    assert files("gemini-cli", tmp_path, project) == ["repo/GEMINI.md"]


def test_a_project_that_is_its_repository_s_root_or_in_none_reads_no_folder_above(
    tmp_path: Path,
) -> None:
    project = layout(tmp_path)
    (project / ".git").mkdir()  # the project is the root: nothing above it
    assert files("codex", tmp_path, project) == []
    assert files("gemini-cli", tmp_path, project) == []
    outside = tmp_path / "plain" / "proj"  # in no repository: the project alone
    outside.mkdir(parents=True)
    (tmp_path / "plain" / "AGENTS.md").write_text("x", encoding="utf-8")
    assert files("codex", tmp_path, outside) == []


def components(agent: str, home: Path, project: Path) -> set[tuple[str, str, str, str | None]]:
    """Each component loaded: (kind, name, file relative to the home, folder above)."""
    result = audit_agent(agent, home, project)
    assert result.problems == []
    return {
        (c.kind, c.name, str(Path(c.file).relative_to(home)), c.above)
        for c in result.components
        if c.decoy is None
    }


SKILL = "---\nname: {0}\ndescription: d\n---\nBody.\n"


def plant_above(home: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = home / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.format(path.parent.name), encoding="utf-8")


CLAUDE_ABOVE = {
    "outer/.mcp.json": '{{"mcpServers": {{"outermcp": {{"command": "o"}}}}}}',
    "outer/.claude/skills/outerskill/SKILL.md": SKILL,  # above the repository's root
    "outer/.claude/CLAUDE.md": "rules\n",
    "outer/repo/.mcp.json": '{{"mcpServers": {{"rootmcp": {{"command": "r"}}}}}}',
    "outer/repo/.claude/skills/rootskill/SKILL.md": SKILL,
    "outer/repo/.claude/commands/rootcmd.md": "Do it.\n",
    "outer/repo/.claude/agents/rootagent.md": "---\nname: rootagent\ndescription: d\n---\n",
    "outer/repo/.claude/rules/style.md": "rules\n",
    "outer/repo/.claude/settings.json": '{{"hooks": {{"Stop": [{{"hooks": '
    '[{{"type": "command", "command": "x"}}]}}]}}}}',  # read in the project only
    "outer/repo/mid/.claude/skills/midskill/SKILL.md": SKILL,
}


def test_claude_code_reads_mcp_json_and_definitions_above_the_project(tmp_path: Path) -> None:
    """Claude Code 2.1.197 run in ``repo/mid/sub`` (measured): ``.mcp.json`` and the
    instruction files (``CLAUDE.md``, ``.claude/CLAUDE.md``, ``.claude/rules/``) of every
    folder above; ``.claude/skills``, ``commands`` and ``agents`` of those up to the
    repository's root; ``.claude/settings.json`` of the project alone."""
    project = tmp_path / "outer" / "repo" / "mid" / "sub"
    project.mkdir(parents=True)
    (tmp_path / "outer" / "repo" / ".git").mkdir()
    plant_above(tmp_path, CLAUDE_ABOVE)
    assert components("claude-code", tmp_path, project) == {
        ("mcp", "outermcp", "outer/.mcp.json", "../../../"),
        ("instructions", "CLAUDE.md", "outer/.claude/CLAUDE.md", "../../../"),
        ("mcp", "rootmcp", "outer/repo/.mcp.json", "../../"),
        ("skill", "rootskill", "outer/repo/.claude/skills/rootskill/SKILL.md", "../../"),
        ("command", "rootcmd", "outer/repo/.claude/commands/rootcmd.md", "../../"),
        ("subagent", "rootagent", "outer/repo/.claude/agents/rootagent.md", "../../"),
        ("instructions", "style.md", "outer/repo/.claude/rules/style.md", "../../"),
        ("skill", "midskill", "outer/repo/mid/.claude/skills/midskill/SKILL.md", "../"),
    }


def test_claude_code_outside_a_repository_reads_skills_of_every_folder_above(
    tmp_path: Path,
) -> None:
    project = tmp_path / "outer" / "repo" / "mid" / "sub"
    project.mkdir(parents=True)
    plant_above(tmp_path, CLAUDE_ABOVE)
    skills = {c for c in components("claude-code", tmp_path, project) if c[0] == "skill"}
    assert {(name, above) for _, name, _, above in skills} == {
        ("outerskill", "../../../"),
        ("rootskill", "../../"),
        ("midskill", "../"),
    }


def test_a_folder_above_is_shown_as_the_scope(tmp_path: Path) -> None:
    from proctor.addons.audit import audit
    from proctor.addons.audit.render import render_text

    project = tmp_path / "repo" / "sub"
    project.mkdir(parents=True)
    (tmp_path / "repo" / ".git").mkdir()
    plant_above(tmp_path, {"repo/.mcp.json": CLAUDE_ABOVE["outer/repo/.mcp.json"]})
    text = render_text(audit(tmp_path, project, ["claude-code"]))
    assert f"rootmcp (stdio) r [project: ../]  ({tmp_path}/repo/.mcp.json)" in text


def test_codex_reads_agents_skills_up_to_the_repository_root(tmp_path: Path) -> None:
    """Codex 0.171 run in ``repo/mid/sub`` (measured): ``.agents/skills`` of each folder up to
    the repository's root (not above it), and the project's own ``.codex/skills``."""
    project = tmp_path / "outer" / "repo" / "mid" / "sub"
    project.mkdir(parents=True)
    (tmp_path / "outer" / "repo" / ".git").mkdir()
    plant_above(
        tmp_path,
        {
            "outer/.agents/skills/outer/SKILL.md": SKILL,
            "outer/repo/.agents/skills/root/SKILL.md": SKILL,
            "outer/repo/.codex/skills/rootcodex/SKILL.md": SKILL,  # above: not read
            "outer/repo/mid/.agents/skills/mid/SKILL.md": SKILL,
            "outer/repo/mid/sub/.codex/skills/own/SKILL.md": SKILL,
        },
    )
    assert {(c[1], c[3]) for c in components("codex", tmp_path, project)} == {
        ("root", "../../"),
        ("mid", "../"),
        ("own", None),
    }


def test_a_project_outside_the_home_reads_the_folders_above_it_as_the_clis_do(
    tmp_path: Path,
) -> None:
    """Outside the home the CLIs walk up past where the audit stopped: Codex 0.171 (measured
    with ``codex debug prompt-input``) and Gemini CLI up to the repository's root, Claude Code
    2.1.197 (its bundle: ``.mcp.json`` and ``CLAUDE.md`` of every folder below the
    filesystem's root, ``.claude/skills`` up to the repository's root)."""
    home = tmp_path / "home"
    home.mkdir()
    project = tmp_path / "outer" / "repo" / "sub"
    project.mkdir(parents=True)
    (tmp_path / "outer" / "repo" / ".git").mkdir()
    plant_above(
        tmp_path,
        {
            "outer/AGENTS.md": "above the root\n",
            "outer/CLAUDE.md": "rules\n",
            "outer/repo/AGENTS.md": "rules\n",
            "outer/repo/GEMINI.md": "rules\n",
            "outer/repo/.agents/skills/root/SKILL.md": SKILL,
            "outer/repo/.mcp.json": CLAUDE_ABOVE["outer/repo/.mcp.json"],
            "outer/repo/.claude/skills/rootskill/SKILL.md": SKILL,
        },
    )

    def seen(agent: str) -> set[tuple[str, str | None]]:
        result = audit_agent(agent, home, project)
        assert result.problems == []
        return {(c.name, c.above) for c in result.components if c.decoy is None}

    assert seen("codex") == {("AGENTS.md", "../"), ("root", "../")}
    assert seen("gemini-cli") == {("GEMINI.md", "../")}
    assert seen("claude-code") == {
        ("CLAUDE.md", "../../"),
        ("rootmcp", "../"),
        ("rootskill", "../"),
    }
    from proctor.addons.audit import audit
    from proctor.addons.audit.render import render_text

    text = render_text(audit(home, project, ["codex"]))
    assert f"AGENTS.md [project: ../]  ({tmp_path}/outer/repo/AGENTS.md)" in text


def test_a_project_outside_the_home_opens_only_what_the_clis_read_above_it(
    tmp_path: Path,
) -> None:
    """Reading the folders above a project outside the home let the audit read anything
    under them: a project's CLAUDE.md or .mcp.json linked to a sibling folder of the project
    (``/tmp`` above ``/tmp/x/proj``) was read and listed, where it is refused as leading out
    of the home and project; so is an entry above that links elsewhere."""
    home = tmp_path / "home"
    home.mkdir()
    project = tmp_path / "outside" / "proj"
    project.mkdir(parents=True)
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "notes.md").write_text("secret\n")
    (secret / "mcp.json").write_text('{"mcpServers": {"s": {"command": "x"}}}')
    (project / "CLAUDE.md").symlink_to(secret / "notes.md")
    (project / ".mcp.json").symlink_to(secret / "mcp.json")
    (tmp_path / "outside" / "AGENTS.md").symlink_to(secret / "notes.md")
    for agent in ("claude-code", "codex"):
        result = audit_agent(agent, home, project)
        assert not [c for c in result.components if c.decoy is None], result.components
        assert all("leads outside" in p for p in result.problems), result.problems
    claude = audit_agent("claude-code", home, project)
    assert len(claude.problems) == 2, claude.problems  # CLAUDE.md and .mcp.json, each said
