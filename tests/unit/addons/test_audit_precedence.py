"""Which of two components of the same name a CLI loads: Gemini CLI's skills (the later folder
wins, measured in gemini-cli 0.61's ``SkillManager.discoverSkills``)."""

from __future__ import annotations

import os
from pathlib import Path

from proctor.addons.audit import audit_agent


def skill(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True)
    manifest = folder / "SKILL.md"
    manifest.write_text(f"---\nname: {name}\ndescription: d\n---\nbody\n", encoding="utf-8")
    return manifest


def states(home: Path, project: Path | None = None) -> dict[str, str | None]:
    result = audit_agent("gemini-cli", home, project)
    assert result.problems == []
    return {
        str(Path(c.file).relative_to(home)): c.decoy for c in result.components if c.kind == "skill"
    }


def test_gemini_cli_project_skill_shadows_the_user_skill_of_the_same_name(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    skill(tmp_path / ".gemini/skills/review", "review")
    skill(tmp_path / ".agents/skills/review", "review")
    winner = skill(project / ".gemini/skills/rev", "review")  # its name, not its folder's
    skill(tmp_path / ".gemini/skills/other", "other")
    shadowed = f"shadowed by the skill of the same name in {winner}"
    assert states(tmp_path, project) == {
        ".gemini/skills/review/SKILL.md": shadowed,
        ".gemini/skills/other/SKILL.md": None,
        ".agents/skills/review/SKILL.md": shadowed,
        "proj/.gemini/skills/rev/SKILL.md": None,
    }


def test_gemini_cli_agents_skills_win_over_gemini_skills_and_over_extensions(
    tmp_path: Path,
) -> None:
    ext = tmp_path / ".gemini/extensions/ext"
    ext.mkdir(parents=True)
    (ext / "gemini-extension.json").write_text('{"name": "ext", "version": "1"}')
    skill(ext / "skills/lint", "lint")
    skill(tmp_path / ".gemini/skills/lint", "lint")
    winner = skill(tmp_path / ".agents/skills/lint", "lint")
    shadowed = f"shadowed by the skill of the same name in {winner}"
    assert states(tmp_path) == {
        ".gemini/skills/lint/SKILL.md": shadowed,
        ".agents/skills/lint/SKILL.md": None,
        ".gemini/extensions/ext/skills/lint/SKILL.md": shadowed,
    }


def test_gemini_cli_two_extensions_skills_of_one_name_go_by_listing_order(
    tmp_path: Path,
) -> None:
    root = tmp_path / ".gemini/extensions"
    for name in ("a", "b"):
        (root / name).mkdir(parents=True)
        (root / name / "gemini-extension.json").write_text(f'{{"name": "{name}", "version": "1"}}')
        skill(root / name / "skills/doc", "doc")
    first, last = os.listdir(root)  # Gemini CLI loads extensions in readdir's order
    seen = states(tmp_path)
    assert seen[f".gemini/extensions/{last}/skills/doc/SKILL.md"] is None
    assert seen[f".gemini/extensions/{first}/skills/doc/SKILL.md"] == (
        f"shadowed by the skill of the same name in {root / last / 'skills/doc/SKILL.md'}"
    )


def test_gemini_cli_skips_an_extension_without_a_version_or_with_a_name_it_refuses(
    tmp_path: Path,
) -> None:
    root = tmp_path / ".gemini/extensions"
    manifests = {
        "nover": '{"name": "nover", "mcpServers": {"s": {"command": "s"}}}',
        "badname": '{"name": "bad name", "version": "1"}',
        "good": '{"name": "good", "version": "1"}',
    }
    for folder, text in manifests.items():
        (root / folder).mkdir(parents=True)
        (root / folder / "gemini-extension.json").write_text(text)
        skill(root / folder / "skills" / folder, folder)
    result = audit_agent("gemini-cli", tmp_path, None)
    assert {(c.kind, c.name): c.decoy for c in result.components} == {
        ("plugin", "bad name"): (
            "the extension's name is not letters, digits and dashes; Gemini CLI skips it"
        ),
        ("plugin", "good"): None,
        (
            "plugin",
            "nover",
        ): 'gemini-extension.json has no "version"; Gemini CLI skips the extension',
        ("skill", "good"): None,
    }


def test_gemini_cli_a_settings_server_shadows_an_extension_s_of_the_same_name(
    tmp_path: Path,
) -> None:
    ext = tmp_path / ".gemini/extensions/ext"
    ext.mkdir(parents=True)
    servers = '{"db": {"command": "ext-db"}, "own": {"command": "own"}}'
    manifest = ext / "gemini-extension.json"
    manifest.write_text(f'{{"name": "ext", "version": "1", "mcpServers": {servers}}}')
    settings = tmp_path / ".gemini/settings.json"
    settings.write_text('{"mcpServers": {"db": {"command": "user-db"}}}')
    result = audit_agent("gemini-cli", tmp_path, None)
    assert [(c.command, c.decoy) for c in result.components if c.kind == "mcp"] == [
        ("user-db", None),
        ("ext-db", f"shadowed by the server of the same name in {settings}"),
        ("own", None),
    ]
