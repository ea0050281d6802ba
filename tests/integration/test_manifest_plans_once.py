"""`proctor run --manifest`: each pair still to run is planned once (run again after an
interrupt, the pair cut short as its resume plans it), and that plan is both checked before
the first pair's first trial and run; the agent CLIs are checked once for all the pairs."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from proctor.session import start as session_start
from tests.conftest import MakeCase, Run

AB = {"conditions": {"baseline": {}, "treatment": {}}}
PLAN = {"turns": [{"say": "hi"}]}


def count_plans(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every plan made from now on (each a discovery of the cases): its source."""
    made: list[Path] = []
    real = session_start.load_run_plan

    def counted(source: Path, *args: Any, **kwargs: Any) -> Any:
        made.append(source)
        return real(source, *args, **kwargs)

    monkeypatch.setattr(session_start, "load_run_plan", counted)
    return made


def cut_short(proctor: Run, make_case: MakeCase, tmp_path: Path) -> tuple[tuple[str, ...], Path]:
    """A manifest of 3 pairs run, then left as an interrupt leaves it: pair 2 cut short (one
    trial without its record), pair 3 never started. Its command, and pair 2's run folder."""
    make_case("t1", config=AB, plan=PLAN)
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,single_goal\n")
    manifest = tmp_path / "repeats.json"
    planned = proctor(
        "plan-repeats", "--goal-labels", str(labels), "--pairs", "3", "--output", str(manifest)
    )
    assert planned.code == 0, planned.err
    out = tmp_path / "out"
    argv = (
        "run",
        "--manifest",
        str(manifest),
        "--source",
        str(tmp_path / "cases"),
        "--out",
        str(out),
    )
    assert proctor(*argv).code == 0
    (second,) = (out / "pair-2").glob("run-*")
    record = json.loads((second / "run.json").read_text())
    (second / "run.json").write_text(json.dumps({**record, "interrupted": True}))
    (next(second.glob("trials/t1/*/treatment/1")) / "trial.json").unlink()
    for path in sorted((out / "pair-3").rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    return argv, second


def test_a_resumed_pair_is_planned_once(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    argv, second = cut_short(proctor, make_case, tmp_path)
    made = count_plans(monkeypatch)
    again = proctor(*argv)
    assert again.code == 0, again.err
    assert f"pair-2: resuming {second}" in again.err
    # Pair 1 finished (not planned), pair 2 resumed and pair 3 run: one plan each.
    assert len(made) == 2, made
    assert (next(second.glob("trials/t1/*/treatment/1")) / "trial.json").is_file()


def test_a_resume_given_its_plan_plans_again_only_when_its_records_ask_another(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plan made before (by a manifest) is used when the run's records, read again under
    the resume's lock, make the request it was made from; otherwise the run is planned anew."""
    from proctor.session.resume import plan_resume, resume_run

    _argv, second = cut_short(proctor, make_case, tmp_path)
    planned = plan_resume(second)
    assert len(planned.unfinished) == 1
    made = count_plans(monkeypatch)
    other = replace(planned, request=replace(planned.request, argv=("proctor", "other")))
    result, kept = resume_run(second, (), [], planned=other)  # not the run's request
    assert len(made) == 1 and kept == 1 and result.exit_code == 0
    (next(second.glob("trials/t1/*/treatment/1")) / "trial.json").unlink()
    made.clear()
    result, kept = resume_run(second, (), [], planned=plan_resume(second))
    assert len(made) == 1  # plan_resume's own: the resume made none
    assert kept == 1 and result.exit_code == 0


def count_preflights(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every check of the scripted agent's CLI (its preflight) from now on: its profile."""
    from proctor.agents.scripted.adapter import ScriptedAgent

    checked: list[str] = []
    real = ScriptedAgent.preflight

    def counted(self: ScriptedAgent, profile: Any) -> str | None:
        checked.append(profile.model_dump_json())
        return real(self, profile)

    monkeypatch.setattr(ScriptedAgent, "preflight", counted)
    return checked


def test_a_manifest_checks_each_agent_once_for_all_its_pairs(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three pairs of one agent profile: its CLI is checked once, not once per pair; run
    again after an interrupt, once for the pair resumed and the one still to run."""
    checked = count_preflights(monkeypatch)
    argv, second = cut_short(proctor, make_case, tmp_path)
    assert len(checked) == 1, checked
    checked.clear()
    again = proctor(*argv)
    assert again.code == 0, again.err
    assert f"pair-2: resuming {second}" in again.err
    assert len(checked) == 1, checked


def test_an_agent_that_cannot_start_stops_a_manifest_before_its_first_pair(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """Checked for every pair at once, an agent CLI that cannot be run is refused before the
    first pair's run folder is made, as a run's is."""
    make_case("t1", config=AB, plan=PLAN)
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,single_goal\n")
    manifest = tmp_path / "repeats.json"
    assert (
        proctor(
            "plan-repeats", "--goal-labels", str(labels), "--pairs", "2", "--output", str(manifest)
        ).code
        == 0
    )
    config = tmp_path / "proctor.json"
    missing = tmp_path / "no-such-python"
    config.write_text(json.dumps({"codingagents": {"scripted": {"binary": str(missing)}}}))
    out = tmp_path / "out"
    result = proctor(
        "run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"),
        "--out", str(out), "--config", str(config),
    )  # fmt: skip
    assert result.code == 2, result.err
    assert f"the binary its profile gives, {missing}, is not a program" in result.err
    assert not list(out.glob("*/run-*"))
