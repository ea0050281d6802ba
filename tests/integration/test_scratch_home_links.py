"""A setup line may not lead what proctor writes in a trial's scratch folder (the agent's
settings and transcripts, the login it is lent) out of it through a link; and removing the
scratch folder never follows a link out of it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import MakeCase, Run, load_trial, run_cases, single_run_dir

PLAN = {"turns": [{"write": {"path": "NOTES.md", "content": "notes\n"}}, {"say": "done"}]}
CONFIG = {
    "agents": ["scripted"],
    "timeoutSec": 30,
    "evaluators": [{"use": "file-exists", "must": ["NOTES.md"]}],
}


@pytest.fixture
def outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    monkeypatch.setenv("OUTSIDE", str(folder))
    return folder


@pytest.mark.parametrize(
    ("setup", "named"),
    [
        ('ln -s "$OUTSIDE" "$HOME/.claude"', "$HOME/.claude"),
        ('mv "$HOME" "$HOME.moved" && ln -s "$OUTSIDE" "$HOME"', "$HOME"),
        ('ln -s "$OUTSIDE" "$HOME/../steps.json"', "the trial's scratch folder's steps.json"),
    ],
)
def test_a_link_out_of_the_scratch_folder_ends_the_trial_before_the_agent(
    proctor: Run, make_case: MakeCase, tmp_path: Path, outside: Path, setup: str, named: str
) -> None:
    make_case("a", config={**CONFIG, "setup": ["true", setup]}, plan=PLAN)
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 2, result.err
    trial = load_trial(single_run_dir(out), "a")
    assert trial["status"] == "infra-error"
    assert trial["reason"].startswith(f"setup line 2 `{setup}` made {named} a link to {outside}")
    assert list(outside.iterdir()) == []  # the scripted agent's transcript is not there


def test_a_link_below_the_agents_folder_is_the_agents_to_read(
    proctor: Run, make_case: MakeCase, tmp_path: Path, outside: Path
) -> None:
    """A skill folder of the user's linked into the scratch home's skills: proctor writes
    nothing through it, and the trial runs."""
    (outside / "SKILL.md").write_text("---\nname: mine\ndescription: d\n---\n")
    setup = 'mkdir -p "$HOME/.claude/skills" && ln -s "$OUTSIDE" "$HOME/.claude/skills/mine"'
    make_case("a", config={**CONFIG, "setup": [setup]}, plan=PLAN)
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 0, result.err
    assert load_trial(single_run_dir(out), "a")["status"] == "passed"
    assert [p.name for p in outside.iterdir()] == ["SKILL.md"]


def test_a_link_that_stays_in_the_scratch_home_is_fine(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    setup = 'mkdir -p "$HOME/.config/claude" && ln -s .config/claude "$HOME/.claude"'
    make_case("a", config={**CONFIG, "setup": [setup]}, plan=PLAN)
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 0, result.err
    assert load_trial(single_run_dir(out), "a")["status"] == "passed"


def test_removing_the_scratch_folder_follows_no_link_out_of_it(
    proctor: Run, make_case: MakeCase, tmp_path: Path, outside: Path
) -> None:
    """Links the setup lines left in the scratch home and the workspace (one in a read-only
    folder) go with the trial; what they lead to stays as it was."""
    (outside / "keep.txt").write_text("keep")
    (outside / "sub").mkdir()
    (outside / "sub" / "deep.txt").write_text("deep")
    os.chmod(outside / "keep.txt", 0o400)
    setup = [
        'ln -s "$OUTSIDE" "$HOME/data"',
        'mkdir "$HOME/ro" && ln -s "$OUTSIDE/keep.txt" "$HOME/ro/keep" && chmod 500 "$HOME/ro"',
        'ln -s "$OUTSIDE" linked && ln -s "$OUTSIDE/keep.txt" keep.txt',
    ]
    config = {**CONFIG, "setup": setup}
    config["evaluators"] = [{"use": "file-exists", "must": ["missing"]}]  # kept: it fails
    make_case("a", config=config, plan=PLAN)
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 1, result.err
    trial = load_trial(single_run_dir(out), "a")
    assert trial["status"] == "failed" and trial["workspace"] is not None
    assert (outside / "keep.txt").read_text() == "keep"
    assert (outside / "sub" / "deep.txt").read_text() == "deep"
    assert oct(os.stat(outside / "keep.txt").st_mode & 0o777) == oct(0o400)
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt", "sub"]
