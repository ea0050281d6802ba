"""`proctor report RUN_DIR RUN_DIR…`: several runs read as one sample set."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import MakeCase, Run, write_case


def test_two_runs_are_one_sample_set(proctor: Run, make_case: MakeCase, tmp_path: Path) -> None:
    make_case("fix", config={"repeats": 2}, plan={"turns": [{"say": "hi"}]})
    cases = str(tmp_path / "cases")
    runs = []
    for name in ("first", "second"):
        assert proctor("run", "--source", cases, "--out", str(tmp_path / name)).code == 0
        (run,) = (tmp_path / name).glob("run-*")
        runs.append(str(run))
    single = json.loads(proctor("report", runs[0], "--reporter", "json").out)
    both = proctor("report", *runs, "--reporter", "json")
    assert both.code == 0, both.err
    suite = json.loads(both.out)
    assert (single["totals"]["n"], suite["totals"]["n"]) == (2, 4)
    (group,) = suite["groups"]
    assert group["n"] == 4 and group["passes"] == 4
    repeated = proctor("report", *runs, "--repeated")
    assert "| fix | scripted | default | - | 4 | 4/4 |" in repeated.out
    refused = proctor("report", *runs, "--write")
    assert refused.code == 2 and "give one RUN_DIR" in refused.err
    # Several reporters over several runs: one is printed, and the note says how to get the
    # other (--write is for one run).
    two = proctor("report", *runs, "--reporter", "json,junit")
    assert two.code == 0 and json.loads(two.out)["totals"]["n"] == 4
    assert "printed the json report only; give --reporter junit to print another" in two.err
    twice = proctor("report", runs[0], runs[1], runs[0] + "/", "--reporter", "json")
    assert twice.code == 2 and "the same run is given twice" in twice.err
    copy = str(tmp_path / "copy-of-first")
    shutil.copytree(runs[0], copy)  # the same run in another folder
    copied = proctor("report", runs[0], copy, "--reporter", "json")
    assert copied.code == 2 and f"the same run is given twice (also as {runs[0]})" in copied.err
    (Path(copy) / "run.json").unlink()  # no run id left to tell it by: its trials tell it
    unnamed = proctor("report", runs[0], copy, "--reporter", "json")
    assert unnamed.code == 2, unnamed.err
    assert f"{copy}: trial fix/scripted/default/" in unnamed.err
    assert f"is also in {runs[0]}" in unnamed.err and "the same run is given twice" in unnamed.err
    compared = proctor("compare", runs[0], copy, runs[1], "--json")
    assert compared.code == 2 and "the same run is given twice" in compared.err
    alone = proctor("report", copy, runs[1], "--reporter", "json")  # the control: two runs
    assert alone.code == 0, alone.err
    assert json.loads(alone.out)["totals"]["n"] == 4


def test_compare_pools_runs_into_one_ab_sample(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case(
        "fix",
        config={"conditions": {"baseline": {}, "treatment": {}}},
        plan={"turns": [{"say": "hi"}]},
    )
    cases = str(tmp_path / "cases")
    runs = []
    for name in ("first", "second", "third"):
        assert proctor("run", "--source", cases, "--out", str(tmp_path / name)).code == 0
        (run,) = (tmp_path / name).glob("run-*")
        runs.append(str(run))
    one = json.loads(proctor("compare", runs[0], "--json").out)
    again = proctor("compare", runs[0], runs[1], runs[1], "--json")
    assert again.code == 2 and "the same run is given twice" in again.err  # 3 pairs, not 5
    three = json.loads(proctor("compare", *runs, "--json").out)
    assert (one["overall"]["pairs"], three["overall"]["pairs"]) == (1, 3)
    names = ", ".join(f"`{Path(run).name}`" for run in runs)
    said = proctor("compare", *runs).out  # the Markdown names the runs it read
    assert f"- Runs read as one sample set: {names} (their repeats numbered on" in said, said
    assert f"- Run read: `{Path(runs[0]).name}`.\n" in proctor("compare", runs[0]).out
    two = json.loads(
        proctor(
            "compare",
            runs[0],
            runs[1],
            "--treatment",
            "treatment",
            "--baseline",
            "baseline",
            "--json",
        ).out
    )
    assert two["overall"]["pairs"] == 2


def test_pooled_trials_that_did_not_pass_are_named_by_their_own_folders(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    failing = [{"use": "file-exists", "must": ["missing.txt"]}]
    make_case("fix", config={"repeats": 2, "evaluators": failing}, plan={"turns": [{"say": "x"}]})
    cases = str(tmp_path / "cases")
    runs = []
    for name in ("first", "second"):
        proctor("run", "--source", cases, "--out", str(tmp_path / name))
        (run,) = (tmp_path / name).glob("run-*")
        runs.append(run)
    pooled = proctor("report", *map(str, runs))
    listed = [line for line in pooled.out.splitlines() if line.startswith("- `")]
    assert len(listed) == 4, pooled.out
    for line in listed:
        where = line.split("`")[1]
        assert (tmp_path / "first" / where).is_dir() or (tmp_path / "second" / where).is_dir()
    single = proctor("report", str(runs[0]))
    assert "- `trials/fix/scripted/default/1`" in single.out
    monkeypatch.chdir(runs[0])  # a run given as "." is named by its folder too
    here = proctor("report", ".", str(runs[1]))
    assert f"- `{runs[0].name}/trials/fix/scripted/default/1`" in here.out, here.out
    # Runs of the same suite under the same gate: the runs read are named, nothing else said.
    assert f"- Runs read as one sample set: `{runs[0].name}`, `{runs[1].name}` (" in here.out
    assert "different suites" not in here.out + here.err
    assert "gates differ" not in here.out + here.err


def test_a_case_whose_name_is_escaped_in_its_record_is_read_as_its_own(
    proctor: Run, tmp_path: Path
) -> None:
    """trial.json holds a name that is not UTF-8 escaped (``bad\\xffname``) while its folder holds
    the byte: the trial is still its folder's, not a copy from elsewhere."""
    import os

    from tests.conftest import write_case

    cases = tmp_path / "cases"
    write_case(cases, "plain", plan={"turns": [{"say": "hi"}]})
    os.rename(os.fsencode(cases / "plain"), os.fsencode(cases) + b"/bad\xffname")
    out = tmp_path / "out"
    assert proctor("run", "--source", str(cases), "--out", str(out)).code == 0
    (run,) = out.glob("run-*")
    reported = proctor("report", str(run), "--reporter", "json")
    assert reported.code == 0, reported.out[-400:]
    assert json.loads(reported.out)["totals"]["statusCounts"] == {"passed": 1}


def test_a_run_read_through_a_link_or_renamed_keeps_its_run_id(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """The run id comes from run.json, not from the folder's name: `latest` (a link), or a
    copy renamed by a CI artifact download, reports the run it holds."""
    make_case("fix", plan={"turns": [{"say": "hi"}]})
    assert (
        proctor("run", "--source", str(tmp_path / "cases"), "--out", str(tmp_path / "o")).code == 0
    )
    (run,) = (tmp_path / "o").glob("run-*")
    latest = tmp_path / "o" / "latest"
    latest.symlink_to(run.name)
    renamed = tmp_path / "o" / "artifact"
    shutil.copytree(run, renamed)
    for folder in (latest, renamed):
        report = proctor("report", str(folder), "--reporter", "json")
        assert report.code == 0, report.err
        assert json.loads(report.out)["runId"] == run.name
        junit = proctor("report", str(folder), "--reporter", "junit")
        assert f'<testsuites name="proctor {run.name}"' in junit.out
    (renamed / "run.json").unlink()  # the control: with no run.json, the folder's name
    assert json.loads(proctor("report", str(renamed), "--reporter", "json").out)["runId"] == (
        "artifact"
    )


def test_a_run_stopped_before_its_first_trial_ended_is_reported_as_such(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix", config={"repeats": 2}, plan={"turns": [{"say": "hi"}]})
    out = tmp_path / "out"
    assert proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out)).code == 0
    (run,) = out.glob("run-*")
    # As a stop just after the run folder was made leaves it: no trial record.
    shutil.rmtree(run / "trials")
    manifest = json.loads((run / "run.json").read_text())
    manifest.update(interrupted=True, trialsFinished=0)
    (run / "run.json").write_text(json.dumps(manifest))
    reported = proctor("report", str(run), "--reporter", "json")
    assert reported.code == 130, reported.err  # as the run itself exited
    assert "is this a run folder" not in reported.err
    assert f"`proctor run --resume {run}` finishes it" in reported.err
    assert json.loads(reported.out)["totals"]["n"] == 0
    # Comparing a run of no trials has nothing to compare: said so, not "no run folder".
    compared = proctor("compare", str(run))
    assert compared.code == 2
    assert "stopped before its first trial ended" in compared.err, compared.err
    assert f"`proctor run --resume {run}` runs them" in compared.err, compared.err
    # A run of `proctor eval` cannot be resumed: the hint is to run it again, as report's.
    (run / "run.json").write_text(json.dumps({**manifest, "argv": ["proctor", "eval"]}))
    compared = proctor("compare", str(run))
    assert compared.code == 2 and "--resume" not in compared.err, compared.err
    assert "`proctor eval` again runs its cases anew" in compared.err, compared.err
    # Control: a folder that is no run's is still refused as such.
    (run / "run.json").unlink()
    assert "not a run folder (no run.json and no trial record)" in proctor("report", str(run)).err


def test_a_baseline_run_and_a_run_of_the_change_compare_case_by_case(
    proctor: Run, tmp_path: Path
) -> None:
    runs = []
    for condition in ("baseline", "with-plugin"):
        source = tmp_path / condition
        write_case(source, "fix", config={"conditions": {condition: {}}, "repeats": 3})
        out = tmp_path / f"out-{condition}"
        assert proctor("run", "--source", str(source), "--out", str(out)).code == 0
        (run,) = out.glob("run-*")
        runs.append(str(run))
    compared = proctor("compare", *runs, "--json")
    assert compared.code == 0, compared.err
    (group,) = compared.json()["groups"]
    assert (group["condition"], group["candidateCondition"]) == ("baseline", "with-plugin")
    assert (group["beforeScored"], group["afterScored"]) == (3, 3)
    # Pooled with --treatment/--baseline, no run holds both sides: no pair, and a note says why.
    pooled = proctor("compare", *runs, "--treatment", "with-plugin", "--baseline", "baseline")
    assert pooled.code == 0, pooled.err
    assert "no complete pair" in pooled.err and f"compare {runs[0]} {runs[1]}`" in pooled.err


def test_compare_counts_a_trial_gone_from_a_finished_run_as_report_does(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix", config={"repeats": 3}, plan={"turns": [{"say": "hi"}]})
    runs = []
    for name in ("before", "after"):
        out = tmp_path / name
        assert proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out)).code == 0
        (run,) = out.glob("run-*")
        runs.append(run)
    (runs[1] / "trials" / "fix" / "scripted" / "default" / "2" / "trial.json").unlink()
    reported = proctor("report", str(runs[1]), "--reporter", "json")
    assert json.loads(reported.out)["groups"][0]["statusCounts"]["infra-error"] == 1
    compared = proctor("compare", *map(str, runs), "--json")
    assert compared.code == 0, compared.err
    (group,) = compared.json()["groups"]
    assert (group["afterScored"], group["afterErrors"]) == (2, 1)
    assert "no trial.json, in a run that finished" in compared.err


def test_runs_read_as_one_list_the_cases_they_skipped(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """As one run's report does: each case and reason once, a reason not every run gave
    naming the runs that gave it; a run that never finished tells its skipped cases by its
    resolved.json."""
    make_case("fix", plan={"turns": [{"say": "hi"}]})
    make_case("broken", prompt="")
    cases = str(tmp_path / "cases")
    runs = []
    for name in ("first", "second"):
        if name == "second":
            make_case("late", prompt="")  # skipped by the second run only
        assert proctor("run", "--source", cases, "--out", str(tmp_path / name)).code == 0
        (run,) = (tmp_path / name).glob("run-*")
        runs.append(run)
    both = proctor("report", *map(str, runs), "--reporter", "json")
    assert both.code == 0, both.err
    assert json.loads(both.out)["skippedCases"] == [
        {"case": "broken", "reason": "prompt.md is empty"},
        {"case": "late", "reason": f"prompt.md is empty (in {runs[1].name}: 1 of the 2 runs read)"},
    ]
    markdown = proctor("report", *map(str, runs)).out
    assert "## Skipped case folders\n\n- `broken`: prompt.md is empty\n- `late`: " in markdown
    (runs[0] / "suite.json").unlink()  # as a run killed before its aggregate was written
    alone = proctor("report", str(runs[0]), "--reporter", "json")
    assert json.loads(alone.out)["skippedCases"] == [
        {"case": "broken", "reason": "prompt.md is empty"}
    ]


def test_compare_of_runs_of_different_suites_says_so_as_report_does(
    proctor: Run, tmp_path: Path
) -> None:
    ab = {"conditions": {"baseline": {}, "treatment": {}}}
    runs = []
    for name in ("first", "second"):
        write_case(tmp_path / f"{name}-cases", "fix", config=ab, plan={"turns": [{"say": "hi"}]})
        argv = ("--source", str(tmp_path / f"{name}-cases"), "--out", str(tmp_path / name))
        assert proctor("run", *argv).code == 0
        (run,) = (tmp_path / name).glob("run-*")
        runs.append(str(run))
    report = proctor("report", *runs)
    (note,) = [line for line in report.err.splitlines() if "different suites" in line]
    assert note.startswith("proctor: note: the runs are of different suites (run.json's source)")
    compared = proctor("compare", *runs, "--treatment", "treatment", "--baseline", "baseline")
    assert compared.code == 0, compared.err
    assert compared.err.count(note + "\n") == 1, compared.err
    assert "- The runs are of different suites (`run.json`'s `source`): " in compared.out
