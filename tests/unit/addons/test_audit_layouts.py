"""The audit against planted layouts with known contents: every component reported, with its
file and whether it is a decoy, must be exactly the planted truth. Controls show that the
comparison fails when a component is dropped or a false one added."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.addons.audit import audit, audit_agent
from proctor.addons.audit.reading import Reader
from proctor.models.audit import AgentAudit, AuditComponent
from tests.unit.addons.audit_layouts import LAYOUTS, Truth, plant

CASES = [(agent, name) for agent, layouts in LAYOUTS.items() for name in layouts]


def observed(agent: AgentAudit, root: Path) -> Truth:
    return {
        (c.kind, c.name, str(Path(c.file).relative_to(root)), c.decoy is not None)
        for c in agent.components
    }


def differences(seen: Truth, truth: Truth) -> tuple[Truth, Truth]:
    """(missed, reported falsely)."""
    return truth - seen, seen - truth


def planted(tmp_path: Path, agent: str, layout: str) -> tuple[AgentAudit, Truth]:
    files, truth = LAYOUTS[agent][layout]
    (tmp_path / "home").mkdir()
    (tmp_path / "proj").mkdir()
    plant(tmp_path, files)
    report = audit(tmp_path / "home", tmp_path / "proj", [agent])
    result = report.for_agent(agent)
    assert result is not None
    return result, truth


def test_six_layouts_per_cli_with_every_decoy_kind() -> None:
    assert all(len(layouts) >= 6 for layouts in LAYOUTS.values())
    for agent, layouts in LAYOUTS.items():
        decoys = {(kind, name) for _, truth in layouts.values() for kind, name, _, d in truth if d}
        kinds = {kind for kind, _ in decoys}
        assert {"skill", "hook", "mcp", "settings"} <= kinds, agent
        if agent != "codex":  # the plugins Codex 0.171 has are off in proctor's trials
            assert "plugin" in kinds, agent  # a disabled plugin or extension
        if agent == "claude-code":
            assert "permission" in kinds, agent


@pytest.mark.parametrize(("agent", "layout"), CASES)
def test_audit_reports_exactly_the_planted_components(
    tmp_path: Path, agent: str, layout: str
) -> None:
    result, truth = planted(tmp_path, agent, layout)
    missed, false = differences(observed(result, tmp_path), truth)
    assert not missed, f"missed: {missed}"
    assert not false, f"reported falsely: {false}"


@pytest.mark.parametrize(("agent", "layout"), CASES)
def test_control_a_dropped_or_added_component_fails_the_comparison(
    tmp_path: Path, agent: str, layout: str
) -> None:
    result, truth = planted(tmp_path, agent, layout)
    seen = observed(result, tmp_path)
    dropped = seen - {sorted(seen)[0]}
    assert differences(dropped, truth)[0], "dropping a component must show as missed"
    extra = AuditComponent(kind="skill", name="phantom", file=str(tmp_path / "home" / "x"))
    added = observed(
        result.model_copy(update={"components": [*result.components, extra]}), tmp_path
    )
    assert differences(added, truth)[1], "an extra component must show as reported falsely"
    flipped = {
        (k, n, f, not d) if i == 0 else (k, n, f, d) for i, (k, n, f, d) in enumerate(sorted(seen))
    }
    assert differences(flipped, truth) != (set(), set()), "a decoy taken as loaded must fail"


def test_malformed_files_become_problems_not_errors(tmp_path: Path) -> None:
    result, _ = planted(tmp_path, "claude-code", "malformed-and-switched-off")
    assert any("settings.json: not valid JSON" in p for p in result.problems)
    assert any(".mcp.json: expected a JSON object" in p for p in result.problems)
    (tmp_path / "c").mkdir()
    result, _ = planted(tmp_path / "c", "codex", "malformed")
    assert any("not valid TOML" in p for p in result.problems)


@pytest.mark.parametrize(
    ("text", "reason", "problem"),
    [
        ("null", "gemini-extension.json unreadable", "expected a JSON object"),
        ("{", "gemini-extension.json unreadable", "not valid JSON"),
        (None, "no gemini-extension.json", None),
    ],
)
def test_an_extension_manifest_that_is_not_an_object_is_not_called_absent(
    tmp_path: Path, text: str | None, reason: str, problem: str | None
) -> None:
    folder = tmp_path / ".gemini" / "extensions" / "ext"
    folder.mkdir(parents=True)
    if text is not None:
        (folder / "gemini-extension.json").write_text(text)
    result = audit_agent("gemini-cli", tmp_path, None)
    (plugin,) = [c for c in result.components if c.kind == "plugin"]
    assert (plugin.name, plugin.decoy) == ("ext", reason)
    found = [p for p in result.problems if "gemini-extension.json" in p]
    assert [problem in p for p in found] == ([True] if problem else [])


def test_control_a_broken_auditor_fails_the_layout_comparison(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An audit that takes every skill folder as loaded (no decoys) misses the empty one."""
    from proctor.addons.audit import claude_code

    def naive_skills(reader: Reader, root: Path, scope: str, *_: object, **__: object) -> None:
        for folder in reader.subdirs(root):
            reader.add("skill", folder.name, folder / "SKILL.md", scope=scope)

    monkeypatch.setattr(claude_code, "skills", naive_skills)
    result, truth = planted(tmp_path, "claude-code", "skills")
    missed, false = differences(observed(result, tmp_path), truth)
    assert ("skill", "empty", "home/.claude/skills/empty", True) in missed
    assert ("skill", "empty", "home/.claude/skills/empty/SKILL.md", False) in false


def test_decoys_say_why(tmp_path: Path) -> None:
    result, _ = planted(tmp_path, "claude-code", "plugins")
    reasons = {c.name: c.decoy for c in result.decoys()}
    assert reasons == {
        "old@mkt": "disabled (enabledPlugins)",
        "ghost@mkt": "enabled but not installed",
    }
