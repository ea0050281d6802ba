"""Two runs started in the same second into one results directory: their folders name the
same start, and which is late is told by the ``startedAt`` of their ``run.json``."""

from __future__ import annotations

from pathlib import Path

from proctor.models.io import write_record
from proctor.models.run import ResolvedCaseRecord, ResolvedEvaluator, ResolvedRecord, RunManifest
from proctor.models.trial import EvaluatorResult, Timings, TrialRecord
from proctor.paths import RunPaths
from proctor.report.findings import update_ledger

FIRST = "run-20261201T110000Z-cccccc"
EARLIER = "run-20261201T120000Z-zzzzzz"
"""Started at 12:00:00.100, finished last: late."""
LATER = "run-20261201T120000Z-aaaaaa"
"""Started at 12:00:00.900, finished first."""


def stored(results: Path, name: str, passed: bool, started: str) -> None:
    paths = RunPaths(results / name)
    case = ResolvedCaseRecord(
        case="a",
        path="cases/a",
        agents=["scripted"],
        timeout_sec=30,
        repeats=1,
        combiner="gated-mean",
        pass_threshold=60,
        evaluators=[ResolvedEvaluator(use="file-exists")],
    )
    write_record(paths.resolved_json, ResolvedRecord(cases=[case]))
    trial = TrialRecord(
        case="a",
        agent="scripted",
        repeat=1,
        status="passed" if passed else "failed",
        evaluators=[EvaluatorResult(use="file-exists", passed=passed, score=100 * passed)],
        timings=Timings(started_at=started),
    )
    write_record(paths.trial("a", "scripted", "default", 1).trial_json, trial)
    manifest = RunManifest(
        run_id=name, proctor_version="0", started_at=started, finished_at=started
    )
    write_record(paths.run_json, manifest)


def test_a_run_started_earlier_in_the_same_second_is_late(tmp_path: Path) -> None:
    stored(tmp_path, FIRST, False, "2026-12-01T11:00:00.000Z")
    stored(tmp_path, LATER, True, "2026-12-01T12:00:00.900Z")
    assert update_ledger(tmp_path).applied == [FIRST, LATER]
    stored(tmp_path, EARLIER, False, "2026-12-01T12:00:00.100Z")
    update = update_ledger(tmp_path)
    assert update.applied == [EARLIER]
    (finding,) = update.ledger.findings
    # The run that started later passed the check: the late run's failure is counted, and
    # reopens nothing.
    assert (finding.state, finding.failures, finding.last_seen_run) == ("resolved", 2, FIRST)
    assert [(e.event, e.run_id) for e in finding.history] == [
        ("new", FIRST),
        ("resolved", LATER),
    ]
    assert update.notes == [
        f"{EARLIER} started before {LATER}, which the findings ledger holds: 1 of its 1 "
        "check was held back, since a newer run had recorded them (a failure of a "
        "finding already listed adds to its failures; they propose, reopen or resolve "
        "nothing)"
    ]


def test_a_run_started_later_in_the_same_second_is_not_late(tmp_path: Path) -> None:
    """The control: the run applied second started second, and moves the finding."""
    stored(tmp_path, FIRST, False, "2026-12-01T11:00:00.000Z")
    stored(tmp_path, EARLIER, True, "2026-12-01T12:00:00.100Z")
    assert update_ledger(tmp_path).applied == [FIRST, EARLIER]
    stored(tmp_path, LATER, False, "2026-12-01T12:00:00.900Z")
    update = update_ledger(tmp_path)
    (finding,) = update.ledger.findings
    assert (finding.state, finding.failures, update.notes) == ("open", 2, [])
    assert finding.history[-1].event == "reopened"


def test_the_newest_run_of_one_second_is_the_one_started_last(tmp_path: Path) -> None:
    """`proctor findings` names what the newest run did not check: of two runs in the same
    second, the one started last, not the late one applied after it."""
    from proctor.report.findings import newest_run

    stored(tmp_path, LATER, True, "2026-12-01T12:00:00.900Z")
    update_ledger(tmp_path)
    stored(tmp_path, EARLIER, True, "2026-12-01T12:00:00.100Z")
    ledger = update_ledger(tmp_path).ledger
    assert ledger.runs == [LATER, EARLIER]
    assert newest_run(tmp_path, ledger) == LATER
    (tmp_path / LATER / "run.json").unlink()  # unread: the later applied, as before
    assert newest_run(tmp_path, ledger) == EARLIER
