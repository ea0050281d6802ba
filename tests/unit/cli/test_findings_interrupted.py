"""`proctor findings` over interrupted runs: which findings a stop left unchecked, and the
JSON of the findings shown."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from proctor.cli.main import cli
from proctor.models.findings import FindingsLedger
from proctor.models.trial import EvaluatorResult, TrialRecord
from proctor.report.findings import save_ledger
from proctor.report.ledger_steps import dismiss
from tests.unit.report.test_findings_resume import CUT, DONE, EARLIER, RUN, record, stored

INTERRUPTED = "interrupted: the run was stopped before this trial ended"


def findings(out: Path, *args: str) -> str:
    result = CliRunner().invoke(cli, ["findings", str(out), *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_stop_leaves_unchecked_what_it_cut_short_and_a_renamed_check_is_gone(
    tmp_path: Path,
) -> None:
    stored(
        tmp_path / EARLIER,
        *(record(case, False, "2026-11-30T12:00:01Z") for case in "abc"),
        finished="2026-11-30T12:01:00Z",
    )
    renamed = TrialRecord(
        case="b",
        agent="scripted",
        repeat=1,
        status="failed",
        evaluators=[EvaluatorResult(use="command", passed=False, score=0)],
    )
    cut = TrialRecord(
        case="c", agent="scripted", repeat=1, status="infra-error", reason=INTERRUPTED
    )
    stored(tmp_path / RUN, record("a", False, "2026-12-01T12:00:01Z"), renamed, cut, finished=CUT)
    # `a` checked; `b` recorded another check (its `file-exists` is gone); `c` cut short.
    table = findings(tmp_path)
    ids = {line.split()[2]: line.split()[0] for line in table.splitlines()[1:4]}
    assert f"1 open finding ({ids['c']}) was not checked by the latest run" in table
    assert "which was interrupted before it checked it. A finding" in table  # one: "it"
    assert f"1 open finding ({ids['b']}) was not checked" in table
    assert "a case renamed or removed" in table


def test_the_json_of_the_findings_shown_is_a_ledger_that_reads(tmp_path: Path) -> None:
    stored(tmp_path / RUN, record("a", False, "2026-12-01T12:00:01Z"), finished=CUT)
    findings(tmp_path)  # taken in, kept as interrupted
    from proctor.report.findings import load_ledger

    ledger = load_ledger(tmp_path)
    (finding,) = ledger.findings
    assert ledger.interrupted_runs[RUN].failed == [finding.id]
    save_ledger(tmp_path, dismiss(ledger, finding.id, "flaky", "2026-12-01T13:00:00Z"))
    shown = FindingsLedger.model_validate_json(findings(tmp_path, "--json"))
    assert shown.findings == [] and shown.interrupted_runs[RUN].failed == []
    every = FindingsLedger.model_validate_json(findings(tmp_path, "--json", "--all"))
    assert every.interrupted_runs[RUN].failed == [finding.id]  # the control: all shown


def test_a_resume_s_trials_not_taken_in_yet_are_not_called_gone(tmp_path: Path) -> None:
    """While a `--resume` runs (or after it was killed), its trials are the ledger's only once
    it finishes: the findings of the cases it reached were not checked by an interrupted run,
    not renamed, and a trial still running ended in no status."""
    from proctor.paths import RunPaths

    stored(
        tmp_path / EARLIER,
        *(record(case, False, "2026-11-30T12:00:01Z") for case in "abc"),
        finished="2026-11-30T12:01:00Z",
    )
    stored(tmp_path / RUN, record("a", False, "2026-12-01T12:00:01Z"), finished=CUT)
    findings(tmp_path)  # the run taken in as interrupted at CUT
    # The resume: b's trial has passed (after CUT), c's is running (its folder, no record).
    resumed = record("b", True, "2026-12-01T12:06:00Z")
    stored(tmp_path / RUN, record("a", False, "2026-12-01T12:00:01Z"), resumed, finished=CUT)
    RunPaths(tmp_path / RUN).trial("c", "scripted", "default", 1).trial_json.parent.mkdir(
        parents=True
    )
    table = findings(tmp_path)
    assert "renamed or removed" not in table and "records no check" not in table
    assert "2 open findings (" in table and "which was interrupted before it checked them" in table
    # The control: once the ledger takes the resume in (the run finished), b is resolved.
    stored(tmp_path / RUN, record("a", False, "2026-12-01T12:00:01Z"), resumed, finished=DONE)
    done = findings(tmp_path)
    assert " b " not in done.split("\n\n")[0]


def test_a_check_restricted_to_other_conditions_is_gone_not_left_without_a_result(
    tmp_path: Path,
) -> None:
    """An evaluator whose entry's `conditions` leaves out the finding's condition: the trial
    passed, recording none of its checks, and no later run will check it (it is not an error
    awaiting a run). The control: a trial that errored is left without a result."""
    stored(
        tmp_path / EARLIER,
        *(record(case, False, "2026-11-30T12:00:01Z") for case in "ab"),
        finished="2026-11-30T12:01:00Z",
    )
    not_run = TrialRecord(
        case="a",
        agent="scripted",
        repeat=1,
        status="passed",
        evaluators=[
            EvaluatorResult(
                use="file-exists", passed=True, score=0, counted=False, details={"notRun": True}
            )
        ],
    )
    errored = TrialRecord(case="b", agent="scripted", repeat=1, status="agent-error")
    stored(tmp_path / RUN, not_run, errored, finished=DONE)
    table = findings(tmp_path)
    ids = {line.split()[2]: line.split()[0] for line in table.splitlines()[1:3]}
    assert f"1 open finding ({ids['a']}) was not checked by the latest run" in table
    assert "restricted to other conditions" in table
    assert f"1 open finding ({ids['b']}) was left without a result" in table


def test_a_case_run_on_another_agent_only_is_said_so_not_called_gone(tmp_path: Path) -> None:
    """A later run of the suite with `--agent codex` leaves the scripted agent's findings
    unchecked: not gone, and the message names what the run ran instead."""
    from proctor.models.io import write_record
    from proctor.models.run import RunManifest

    for run, agent in ((EARLIER, "scripted"), (RUN, "codex")):
        paths = stored(tmp_path / run)
        trial = record("a", False, f"{run[4:8]}-{run[8:10]}-{run[10:12]}T12:00:01Z")
        trial = trial.model_copy(update={"agent": agent})
        write_record(paths.trial("a", agent, "default", 1).trial_json, trial)
        started = f"{run[4:8]}-{run[8:10]}-{run[10:12]}T12:00:00Z"
        manifest = RunManifest(
            run_id=run, proctor_version="0", started_at=started, finished_at=started
        )
        write_record(paths.run_json, manifest)
        findings(tmp_path)  # each run taken in, in turn
    table = findings(tmp_path)
    scripted = next(line.split()[0] for line in table.splitlines() if "/ scripted /" in line)
    assert f"1 open finding ({scripted}) was not checked by the latest run" in table
    assert "which ran its case on other agents or conditions only (a on codex/default)" in table
    assert "run the suite on its agent and condition (`--agent`, `--condition`)" in table
    assert "a case renamed or removed" not in table
