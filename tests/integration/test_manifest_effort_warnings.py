"""``proctor run --manifest``: an effort a file sets (a case's, a condition's or a
``codingagents`` profile's ``agentEffort``) for an agent that takes none is warned of as a
plain run warns of it, naming its file and field, once for the whole manifest however many
pairs run it; and so is ``--agent-model`` of a profile of the scripted agent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeCase, Run

PLAN = {"turns": [{"say": "hi"}]}


def _manifest(proctor: Run, tmp_path: Path) -> Path:
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,single_goal\n")
    manifest = tmp_path / "repeats.json"
    planned = proctor(
        "plan-repeats", "--goal-labels", str(labels), "--pairs", "2", "--output", str(manifest)
    )
    assert planned.code == 0, planned.err
    return manifest


def test_an_effort_a_file_sets_for_the_scripted_agent_is_warned_of_once(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    conditions = {"baseline": {"agentEffort": "low"}, "treatment": {}}
    config = {"agents": ["bot"], "timeoutSec": 30, "conditions": conditions}
    case = make_case("t1", config=config, plan=PLAN)
    top = tmp_path / "proctor.json"
    top.write_text(
        json.dumps({"codingagents": {"bot": {"agent": "scripted", "agentEffort": "high"}}})
    )
    manifest = _manifest(proctor, tmp_path)
    argv = ("--source", str(tmp_path / "cases"), "--config", str(top))
    plain = proctor("run", *argv, "--agent-model", "bot=m1", "--dry-run")
    assert plain.code == 0, plain.err
    result = proctor(
        "run",
        "--manifest",
        str(manifest),
        *argv,
        "--agent-model",
        "bot=m1",
        "--out",
        str(tmp_path / "out"),
    )
    assert result.code == 0, result.err
    profile = (
        f"proctor: warning: {top}: field 'codingagents.bot.agentEffort' (\"high\", for bot, a "
        "profile of scripted): the scripted agent plays its case's plan whatever the effort"
    )
    condition = (
        f"proctor: warning: {case / 'config.json'}: field 'conditions.baseline.agentEffort' "
        '("low", for bot, a profile of scripted): the scripted agent plays'
    )
    model = 'proctor: warning: --agent-model "bot=m1" (bot is a profile of the scripted agent)'
    for said in (profile, condition, model):
        assert plain.err.count(said) == 1, (said, plain.err)
        assert result.err.count(said) == 1, (said, result.err)


def test_a_profile_warning_is_said_once_for_every_pair(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the agents' profiles take from them (a plain run says it as it checks the agent
    CLIs) is said under ``--manifest`` too, which checks them once for every pair."""
    from proctor.plan import checks

    def one_warning(trials: Any) -> list[str]:
        return [f"codingagents.{next(iter(trials)).agent}: a setting it takes nothing of"]

    monkeypatch.setattr(checks, "profile_warnings", one_warning)
    make_case("t1", config={"conditions": {"baseline": {}, "treatment": {}}}, plan=PLAN)
    manifest = _manifest(proctor, tmp_path)
    result = proctor(
        "run",
        "--manifest",
        str(manifest),
        "--source",
        str(tmp_path / "cases"),
        "--out",
        str(tmp_path / "out"),
    )
    assert result.code == 0, result.err
    said = "proctor: warning: codingagents.scripted: a setting it takes nothing of"
    assert result.err.count(said) == 1, result.err
