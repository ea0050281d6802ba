"""``proctor run`` choosing cases (``--case``, ``--tag``, ``--condition``) beside a case whose
configuration is refused, and a ``--condition`` the cases chosen do not have."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import MakeCase, Run, single_run_dir


def test_a_case_chosen_by_name_runs_beside_a_broken_case_that_is_warned_about(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix-a-bug", config={"agents": ["scripted"], "tags": ["smoke"]})
    make_case("bad", config={"agents": ["scripted"], "repeats": 0, "tags": ["slow"]})
    cases, out = tmp_path / "cases", str(tmp_path / "out")
    bad = cases / "bad" / "config.json"
    problem = f"{bad}: field 'repeats': expected greater than or equal to 1, got 0"
    chosen = proctor("run", "--source", str(cases), "--case", "fix-a-bug", "--out", out)
    assert chosen.code == 0, chosen.err
    warning = f"proctor: warning: case 'bad', which --case does not choose, is not read: {problem}"
    assert chosen.err.count("proctor: warning: ") == 1 and warning in chosen.err, chosen.err
    # A --tag the broken case's config.json does not carry leaves it out too.
    tagged = proctor("run", "--source", str(cases), "--tag", "smoke", "--dry-run", "--out", out)
    assert tagged.code == 0, tagged.err
    assert f"case 'bad', which --tag does not choose, is not read: {problem}" in tagged.err
    # The warning comes before an error the chosen cases have.
    typo = proctor("run", "--source", str(cases), "--tag", "smok", "--dry-run", "--out", out)
    assert typo.code == 2 and typo.err.splitlines()[0] == warning.replace("--case", "--tag")
    assert "--tag smok: no case carries it (did you mean 'smoke'?" in typo.err
    # Without --case or --tag every case is run: the broken one stops the run, as before.
    every = proctor("run", "--source", str(cases), "--dry-run", "--out", out)
    assert every.code == 2 and every.err.strip() == f"proctor: error: {problem}"
    # So does --case or --tag choosing the broken case itself.
    for option in (("--case", "ba*"), ("--tag", "slow")):
        itself = proctor("run", "--source", str(cases), *option, "--dry-run", "--out", out)
        assert itself.code == 2 and itself.err.strip() == f"proctor: error: {problem}"


def test_a_resume_does_not_warn_again_about_a_broken_case_the_run_left_out(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """The run said it when it started; a resume runs only the run's own cases, and repeating
    the warning reads as something new to fix."""
    make_case("fix-a-bug", config={"agents": ["scripted"], "repeats": 2})
    make_case("bad", config={"agents": ["scripted"], "repeats": 0})
    out = tmp_path / "out"
    ran = proctor(
        "run", "--source", str(tmp_path / "cases"), "--case", "fix-a-bug", "--out", str(out)
    )
    assert ran.code == 0 and "case 'bad', which --case does not choose" in ran.err, ran.err
    run_dir = single_run_dir(out)
    shutil.rmtree(run_dir / "trials" / "fix-a-bug" / "scripted" / "default" / "2")
    for runs_now in ("1 run now", "0 run now"):  # one trial left, then none
        resumed = proctor("run", "--resume", str(run_dir))
        assert resumed.code == 0 and runs_now in resumed.err, resumed.err
        assert "does not choose" not in resumed.err and "warning" not in resumed.err


def test_a_tag_stops_the_run_when_a_broken_case_s_tags_cannot_be_read(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix-a-bug", config={"agents": ["scripted"], "tags": ["smoke"]})
    make_case("bad", config="{")
    cases, out = str(tmp_path / "cases"), str(tmp_path / "out")
    tagged = proctor("run", "--source", cases, "--tag", "smoke", "--dry-run", "--out", out)
    assert tagged.code == 2
    assert "(its tags cannot be read, so --tag smoke cannot tell whether case 'bad' is " in (
        tagged.err
    )
    named = proctor("run", "--source", cases, "--case", "fix-a-bug", "--dry-run", "--out", out)
    assert named.code == 0 and "case 'bad', which --case does not choose" in named.err


def test_a_condition_the_one_case_asked_for_lacks_names_the_case_and_its_conditions(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("find-the-bug", config={"agents": ["scripted"], "conditions": {"baseline": {}}})
    make_case("other", config={"agents": ["scripted"], "conditions": {"with-skill": {}}})
    cases, out = str(tmp_path / "cases"), str(tmp_path / "out")
    prepared = proctor(
        "prepare", "find-the-bug", "--source", cases, "--condition", "nope", "--out", out
    )
    assert prepared.code == 2
    assert prepared.err.strip() == (
        "proctor: error: --condition nope: case 'find-the-bug' has no such condition "
        "(its conditions: baseline)"
    )
    ran = proctor(
        "run", "--source", cases, "--case", "find-the-bug", "--condition", "with-skill",
        "--dry-run", "--out", out,
    )  # fmt: skip
    assert ran.code == 2
    assert ran.err.strip() == (
        "proctor: error: --condition with-skill: case 'find-the-bug' has no such condition "
        "(its conditions: baseline); it is only of cases left out by --case find-the-bug"
    )


@pytest.mark.parametrize("command", ["run", "validate"])
@pytest.mark.parametrize(
    "option", ["--case", "--tag", "--condition", "--first-condition", "--agent"]
)
def test_a_blank_selection_option_is_refused_as_such(
    proctor: Run, make_case: MakeCase, tmp_path: Path, command: str, option: str
) -> None:
    """``--case "$CASE"`` with the variable unset: said as a blank value, not looked up as a
    case, tag, condition or agent named ''."""
    make_case("fix-a-bug")
    given = ("--dry-run", "--out", str(tmp_path / "out")) if command == "run" else ()
    refused = proctor(command, "--source", str(tmp_path / "cases"), option, " ", *given)
    assert refused.code == 2
    assert refused.err.strip().splitlines()[-1] == (
        f'proctor: error: {option} " ": expected a value, not a blank one'
    )


def test_a_tag_no_case_carries_is_refused_beside_one_that_chooses_cases(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix-a-bug", config={"agents": ["scripted"], "tags": ["smoke"]})
    make_case("slow-one", config={"agents": ["scripted"], "tags": ["slow"]})
    make_case("bad", config={"agents": ["scripted"], "repeats": 0, "tags": ["nightly"]})
    cases, out = str(tmp_path / "cases"), str(tmp_path / "out")
    typo = proctor("run", "--source", cases, "--tag", "smoke", "--tag", "smok", "--out", out)
    assert typo.code == 2
    assert typo.err.strip().splitlines()[-1] == (
        "proctor: error: --tag smok: no case carries it (did you mean 'smoke'? tags: slow, smoke)"
    )
    assert not (tmp_path / "out").exists()  # nothing ran
    # A tag only a case --case leaves out carries, or only a broken case's config.json gives,
    # is no typo.
    both = ("--tag", "smoke", "--tag", "slow", "--tag", "nightly", "--dry-run")
    taken = proctor("run", "--source", cases, "--case", "fix-a-bug", *both, "--out", out)
    assert taken.code == 0, taken.err


def test_a_manifest_warns_once_about_a_broken_case_none_of_its_tasks_is(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    conditions = {"baseline": {}, "treatment": {}}
    make_case("real", config={"agents": ["scripted"], "conditions": conditions})
    make_case("bad", config={"agents": ["scripted"], "repeats": 0})
    labels, manifest = tmp_path / "goals.csv", tmp_path / "m.json"
    labels.write_text("real,single_goal\n")
    planned = proctor("plan-repeats", "--goal-labels", str(labels), "--output", str(manifest))
    assert planned.code == 0, planned.err
    ran = proctor(
        "run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"),
        "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert ran.code == 0, ran.err
    said = (
        f"proctor: warning: case 'bad', which the manifest {manifest} does not choose, is not read"
    )
    assert ran.err.count(said) == 1 and "--case" not in ran.err, ran.err


@pytest.mark.parametrize(
    ("option", "given", "meant"),
    [
        ("--case", "FIX-A-BUG", "fix-a-bug"),
        ("--tag", "SMOKE", "smoke"),
        ("--condition", "BASELINE", "baseline"),
    ],
)
def test_a_name_typed_in_other_capitals_is_suggested_as_the_name_there_is(
    proctor: Run, make_case: MakeCase, tmp_path: Path, option: str, given: str, meant: str
) -> None:
    """``--case FIX-A-BUG`` (caps lock on) names the case ``fix-a-bug``, as a misspelt name
    names the nearest one: difflib, which tells case apart, finds none close to it."""
    config = {"agents": ["scripted"], "tags": ["smoke"], "conditions": {"baseline": {}}}
    make_case("fix-a-bug", config=config)
    make_case("other", config={"agents": ["scripted"]})
    refused = proctor("validate", "--source", str(tmp_path / "cases"), option, given)
    assert refused.code == 2
    assert f"{option} {given}: " in refused.err and f"(did you mean '{meant}'? " in refused.err


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (("--resume", ""), "the folder of the run to finish"),
        (("--manifest", " "), "a repeat manifest file, or - for standard input"),
        (("--repeat-check", "2", "--recorded", ""), "the folder of a stored run"),
    ],
)
def test_a_blank_run_folder_or_manifest_is_refused_not_read_as_the_current_folder(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: tuple[str], expected: str
) -> None:
    """``--resume "$RUN"`` with the variable unset was the current folder (resumed, when it is
    a run's, or "not a run folder" naming a folder never given); ``--manifest ""`` a file ''
    said in Python's quotes."""
    monkeypatch.chdir(tmp_path)
    refused = proctor("run", *given)
    assert refused.code == 2 and not refused.out
    blank = json.dumps(given[-1])
    assert f"expected {expected}, not a blank path, got {blank}" in refused.err, refused.err
