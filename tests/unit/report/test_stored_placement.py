"""A stored trial.json counts only as the record of the trial folder it is in: one copied or
moved by hand (into another case's folder, beside a record of the same trial, or into a trial
the run never planned) is an infra-error of its folder's trial, with a note naming the file,
and the recomputed run cannot pass."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from proctor.report.recompute import recompute
from proctor.report.trial_records import load_records

EXAMPLE_RUN = Path(__file__).resolve().parents[2] / "fixtures" / "results-v1" / "example-suite"


def copied(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    shutil.copytree(EXAMPLE_RUN, run)
    return run


def trial(run: Path, case: str, condition: str = "default", repeat: int = 1) -> Path:
    return run / "trials" / case / "scripted" / condition / str(repeat) / "trial.json"


def test_a_record_copied_into_another_case_s_folder_is_not_counted(tmp_path: Path) -> None:
    run = copied(tmp_path)
    _, before = recompute(run)
    shutil.copy(trial(run, "fix-a-bug"), trial(run, "wrong-fix"))
    notes: list[str] = []
    records = {(r.case, r.repeat): r for r in load_records(run, notes)}
    moved = records[("wrong-fix", 1)]
    assert moved.status == "infra-error"
    assert moved.reason == "trial.json of trial fix-a-bug/scripted/default/1, in another folder"
    assert records[("fix-a-bug", 1)].status != "infra-error"
    (note,) = notes
    assert note.startswith(str(trial(run, "wrong-fix"))) and "fix-a-bug" in note
    _, after = recompute(run)
    assert after.exit_code != 0 and after.totals.n == before.totals.n


def test_a_record_named_for_another_condition_or_agent_is_not_counted(tmp_path: Path) -> None:
    run = copied(tmp_path)
    shutil.copy(
        trial(run, "find-the-bug", "baseline", 3), trial(run, "find-the-bug", "with-skill", 3)
    )
    (moved,) = [r for r in load_records(run) if r.condition == "with-skill" and r.repeat == 3]
    assert moved.status == "infra-error" and "find-the-bug/scripted/baseline/3" in moved.reason


def test_a_trial_the_run_did_not_plan_is_not_counted(tmp_path: Path) -> None:
    run = copied(tmp_path)
    extra = trial(run, "fix-a-bug", repeat=9)
    extra.parent.mkdir(parents=True)
    record = json.loads(trial(run, "fix-a-bug").read_text())
    extra.write_text(json.dumps({**record, "repeat": 9}))
    notes: list[str] = []
    (added,) = [r for r in load_records(run) if r.repeat == 9]
    assert added.status != "infra-error"  # without the plan, nothing says it does not belong
    stored, suite = recompute(run)
    (added,) = [r for r in stored.records if r.repeat == 9]
    assert added.status == "infra-error" and "which the run did not plan" in added.reason
    assert any(str(extra) in note for note in stored.notes + notes)
    assert suite.exit_code != 0


def test_a_masked_or_escaped_name_is_its_folder_s(tmp_path: Path) -> None:
    """A record names its trial as written: a secret in a case name masked, a byte that is not
    UTF-8 escaped. Two folders whose names read alike once masked are two trials, both counted."""
    run = copied(tmp_path)
    source = json.loads(trial(run, "fix-a-bug").read_text())
    folders = {"key-Ab3xY9z-case": "key-***-case", "key-Qw7eR2t-case": "key-***-case",
               "caf\udce9": "caf\\xe9"}  # fmt: skip
    for folder, name in folders.items():
        path = run / "trials" / folder / "scripted" / "default" / "1" / "trial.json"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps({**source, "case": name}))
    notes: list[str] = []
    records = load_records(run, notes)
    (escaped,) = [r for r in records if r.case == "caf\\xe9"]
    assert escaped.status == source["status"]
    masked = [r for r in records if r.case.startswith("key-")]
    assert [r.status for r in masked] == [source["status"]] * 2 and not notes
