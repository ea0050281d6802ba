"""Stored records read back one at a time keep every rule of reading them whole."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from proctor.errors import ConfigError
from proctor.exit_codes import ExitCode
from proctor.models.io import write_record
from proctor.models.run import AnnotationsRecord
from proctor.models.trial import TrialAnnotation
from proctor.paths import RunPaths
from proctor.report.recompute import recompute
from proctor.report.stored import load_run
from proctor.report.trial_records import is_stand_in, iter_records, load_records

EXAMPLE_RUN = Path(__file__).resolve().parents[2] / "fixtures" / "results-v1" / "example-suite"


def test_an_unreadable_trial_is_annotated_like_any_other(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(EXAMPLE_RUN, run)
    broken = run / "trials" / "fix-a-bug" / "scripted" / "default" / "1" / "trial.json"
    broken.write_text("{ not json")
    mark = TrialAnnotation(
        trial="fix-a-bug/scripted/default/1", verdict="excluded", note="infra", at="now"
    )
    write_record(RunPaths(run).annotations, AnnotationsRecord(annotations=[mark]))
    (lost,) = [r for r in load_records(run) if r.case == "fix-a-bug" and r.repeat == 1]
    assert lost.status == "skipped" and lost.reason.startswith("annotated excluded: infra")


def test_reading_one_at_a_time_gives_the_records_read_whole() -> None:
    assert [r.model_dump() for r in iter_records(EXAMPLE_RUN)] == [
        r.model_dump() for r in load_records(EXAMPLE_RUN)
    ]


def test_a_score_or_metric_no_number_can_be_is_read_as_damaged_not_a_crash(
    tmp_path: Path,
) -> None:
    """A hand-edited trial.json with a NaN or absurd score is an infra-error saying why; a NaN
    in its process metrics drops that section with a note; the aggregate is computed."""
    import json

    from proctor.models.config import Gate
    from proctor.report.aggregate import aggregate

    run = tmp_path / "run"
    shutil.copytree(EXAMPLE_RUN, run)
    edits = {"fix-a-bug/1": "NaN", "fix-a-bug/2": "1e308", "wrong-fix/1": "metric"}
    for where, edit in edits.items():
        case, repeat = where.split("/")
        path = run / "trials" / case / "scripted" / "default" / repeat / "trial.json"
        record = json.loads(path.read_text())
        if edit == "metric":
            record["process"]["effort"]["elapsedSeconds"] = "__NAN__"
        else:
            record["score"] = "__NAN__" if edit == "NaN" else 1e308
        path.write_text(json.dumps(record).replace('"__NAN__"', "NaN"))
    notes: list[str] = []
    records = {f"{r.case}/{r.repeat}": r for r in load_records(run, notes)}
    for where in ("fix-a-bug/1", "fix-a-bug/2"):
        assert records[where].status == "infra-error", records[where]
        assert "score" in records[where].reason
    edited = records["wrong-fix/1"]
    assert edited.status != "infra-error" and edited.process is None
    assert any("wrong-fix" in note and "process" in note for note in notes), notes
    aggregate(list(records.values()), Gate(), run_id="run")  # no crash


def test_a_trial_folder_copied_by_hand_is_not_counted_twice(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(EXAMPLE_RUN, run)
    trials = run / "trials" / "fix-a-bug" / "scripted" / "default"
    shutil.copytree(trials / "1", trials / "9")
    records = {(r.case, r.repeat): r for r in load_records(run)}
    copy = records[("fix-a-bug", 9)]
    assert copy.status == "infra-error"
    assert "trial.json of trial fix-a-bug/scripted/default/1, in another folder" in copy.reason
    assert records[("fix-a-bug", 1)].status != "infra-error"  # the original counts as before


def test_a_trial_removed_from_a_finished_run_is_an_infra_error_not_an_interruption(
    tmp_path: Path,
) -> None:
    run = tmp_path / "run"
    shutil.copytree(EXAMPLE_RUN, run)
    shutil.rmtree(run / "trials" / "fix-a-bug" / "scripted" / "default" / "1")
    stored = load_run(run)
    (lost,) = [r for r in stored.records if (r.case, r.repeat) == ("fix-a-bug", 1)]
    assert lost.status == "infra-error" and lost.reason.startswith("no trial.json: the run")
    assert is_stand_in(lost) and not stored.stopped_short
    assert any("no trial.json, in a run that finished" in note for note in stored.notes)
    _, suite = recompute(run)
    assert suite.exit_code != ExitCode.INTERRUPTED and suite.totals.status_counts["infra-error"]
    # A run that was stopped is read as before: its trials not run are not errors.
    manifest = run / "run.json"
    data = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**data, "interrupted": True}))
    stopped = load_run(run)
    assert stopped.stopped_short and all(
        r.case != "fix-a-bug" or r.repeat != 1 for r in stopped.records
    )


def test_a_trial_json_that_is_a_folder_or_a_link_is_a_damaged_trial(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(EXAMPLE_RUN, run)
    folder = run / "trials" / "fix-a-bug" / "scripted" / "default" / "1" / "trial.json"
    folder.unlink()
    folder.mkdir()
    linked = run / "trials" / "fix-a-bug" / "scripted" / "default" / "2" / "trial.json"
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_bytes(linked.read_bytes())
    linked.unlink()
    linked.symlink_to(elsewhere)
    notes: list[str] = []
    records = {(r.case, r.repeat): r for r in load_records(run, notes)}
    assert records[("fix-a-bug", 1)].status == "infra-error"
    # Its reason names the file, as an unreadable one's does ("a folder, not a file of the
    # run's own" named neither, and a folder is no file of anyone's).
    assert (
        records[("fix-a-bug", 1)].reason == f"unreadable trial.json: {folder}: a folder, not a file"
    )
    assert records[("fix-a-bug", 2)].status == "infra-error"
    assert records[("fix-a-bug", 2)].reason == (
        f"unreadable trial.json: {linked}: a link, not a file of the run's own"
    )
    assert len(notes) == 2 and all(is_stand_in(records[("fix-a-bug", n)]) for n in (1, 2))


def test_a_trial_json_cut_inside_a_string_at_a_line_break_is_said_cut_short(
    tmp_path: Path,
) -> None:
    run = tmp_path / "run"
    shutil.copytree(EXAMPLE_RUN, run)
    cut = run / "trials" / "fix-a-bug" / "scripted" / "default" / "1" / "trial.json"
    cut.write_text('{"broken\n')
    notes: list[str] = []
    records = {(r.case, r.repeat): r for r in load_records(run, notes)}
    assert records[("fix-a-bug", 1)].status == "infra-error"
    (note,) = notes
    assert "it ends before its JSON value does: the file is cut short" in note, note
    assert "control character" not in note


def test_a_results_directory_whose_run_lost_its_run_json_names_that_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`proctor report RESULTS_DIR` whose run folder lost its run.json (its trials kept): the
    run folder is named with its trials (exit 2), and naming it reads them, as it says."""
    from proctor.cli.main import main

    results = tmp_path / "proctor-results"
    run = results / "run-20261101T000000Z-abcdef"
    shutil.copytree(EXAMPLE_RUN, run)
    (run / "run.json").unlink()
    held = len(list(run.glob("trials/*/*/*/*/trial.json")))
    said = (
        f"{results}: a results directory whose run folder {run} has no run.json but holds "
        f"{held} trial records; name that run folder to read them"
    )
    with pytest.raises(ConfigError) as refused:
        load_records(results)
    assert str(refused.value) == said
    with pytest.raises(SystemExit) as stopped:
        main(["report", str(results)])
    assert stopped.value.code == ExitCode.CONFIG_ERROR
    assert capsys.readouterr().err == f"proctor: error: {said}\n"
    assert len(load_records(run)) == held  # the run folder named: read without its run.json
    # Two such run folders: both named, with their trials.
    other = results / "run-20261102T000000Z-abcdef"
    shutil.copytree(run, other)
    with pytest.raises(ConfigError) as refused:
        load_records(results)
    assert f"trial records ({run} ({held}), {other} ({held})); name one of them" in str(
        refused.value
    )


def test_a_plan_that_does_not_read_is_said_not_read_as_planning_nothing(tmp_path: Path) -> None:
    """planned_cells without notes gave a resolved.json that is not JSON as a plan of no
    trial (the trial page, annotate's refusal took it so); it raises, naming the file. Given
    notes, it is said in them and none are given, as `proctor compare` reads it."""
    from proctor.errors import ConfigError
    from proctor.report.planned import planned_cells

    resolved = tmp_path / "resolved.json"
    resolved.write_text("not json")
    with pytest.raises(ConfigError, match="it holds the run's plan") as raised:
        planned_cells(tmp_path)
    assert str(raised.value).startswith(f"{resolved}: not a readable JSON file")
    notes: list[str] = []
    assert planned_cells(tmp_path, notes) == [] and len(notes) == 1
    assert notes[0].startswith(f"{resolved}: not a readable JSON file")
    resolved.unlink()  # a run not yet planned: none, nothing said
    assert (
        planned_cells(tmp_path) == [] and planned_cells(tmp_path, notes) == [] and len(notes) == 1
    )
