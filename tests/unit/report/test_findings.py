"""The findings ledger's logic: checks of a run, applying runs, dismissals, ids. Controls run
the same walk against broken variants (one that re-proposes, one that takes errors and
timeouts as evidence, one that forgets dismissals, one that re-applies a run) and must fail."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from proctor.errors import ConfigError, SchemaVersionError
from proctor.models.findings import Finding, FindingsLedger
from proctor.models.process import RuleResult
from proctor.models.run import ResolvedCaseRecord, ResolvedEvaluator, ResolvedRecord
from proctor.models.trial import EvaluatorResult, TrialRecord
from proctor.report.checks import run_checks
from proctor.report.findings import (
    CheckKey,
    CheckResult,
    apply_run,
    dismiss,
    dismissal_reason,
    finding_id,
    load_ledger,
    render_run_events,
    run_events,
    save_ledger,
)

Apply = Callable[[FindingsLedger, str, Iterable[CheckResult]], FindingsLedger]
Checks = Callable[[list[TrialRecord]], list[CheckResult]]

KEY = CheckKey("hello", "scripted", "default", "file-exists")
ID = finding_id(KEY)


def trial(
    status: str = "failed",
    passed: bool | None = False,
    *,
    repeat: int = 1,
    error: bool = False,
    rules: list[RuleResult] | None = None,
) -> TrialRecord:
    """A trial of hello/scripted/default whose file-exists evaluator passed or failed (no
    evaluator result when ``passed`` is None)."""
    evaluators = (
        []
        if passed is None
        else [
            EvaluatorResult(
                use="file-exists",
                passed=passed,
                score=100 if passed else 0,
                error=error,
                message="" if passed else "missing: hello.txt",
            )
        ]
    )
    return TrialRecord(
        case="hello",
        agent="scripted",
        repeat=repeat,
        status=status,  # type: ignore[arg-type]
        evaluators=evaluators,
        rules=rules or [],
    )


FAIL = [trial("failed", False)]
PASS = [trial("passed", True)]
NO_EVIDENCE = [
    trial("skipped", None),
    trial("agent-error", None, repeat=2),
    trial("infra-error", None, repeat=3),
    trial("eval-error", False, repeat=4, error=True),
    trial("timeout", True, repeat=5),  # the file was there, but the agent was cut off
]


def walk(apply: Apply = apply_run, checks: Checks = run_checks) -> None:
    """new → (errors, no change) → resolved → reopened → still open → dismissed → failing,
    still dismissed → passing → failing again: reopened. One finding all along."""
    ledger = FindingsLedger()

    def step(run_id: str, records: list[TrialRecord]) -> Finding:
        nonlocal ledger
        ledger = apply(ledger, run_id, checks(records))
        assert len(ledger.findings) == 1, "one finding per check, never a duplicate"
        return ledger.findings[0]

    finding = step("run-1", FAIL)
    assert (finding.id, finding.state, finding.failures) == (ID, "open", 1)
    assert finding.first_seen_run == finding.last_seen_run == "run-1"
    assert finding.message == "missing: hello.txt"
    assert [e for _, e in run_events(ledger, "run-1")] == ["new"]

    again = apply(ledger, "run-1", checks(FAIL))
    assert again == ledger, "re-applying a run changes nothing"

    finding = step("run-2", NO_EVIDENCE)
    assert (finding.state, finding.failures) == ("open", 1), "no evidence never resolves"
    assert run_events(ledger, "run-2") == []

    finding = step("run-3", PASS)
    assert finding.state == "resolved"
    assert [e for _, e in run_events(ledger, "run-3")] == ["resolved"]

    finding = step("run-4", NO_EVIDENCE)
    assert finding.state == "resolved", "no evidence never reopens"

    finding = step("run-5", FAIL)
    assert (finding.state, finding.failures, finding.last_seen_run) == ("open", 2, "run-5")
    assert [e for _, e in run_events(ledger, "run-5")] == ["reopened"]

    finding = step("run-6", FAIL)
    assert (finding.state, finding.failures, finding.last_seen_run) == ("open", 3, "run-6")
    assert run_events(ledger, "run-6") == [], "a failure that stays open is not an event"

    ledger = dismiss(ledger, ID, "the fixture is flaky", "2026-12-01T00:00:00.000Z")
    finding = ledger.findings[0]
    assert finding.state == "dismissed"
    assert dismissal_reason(finding) == "the fixture is flaky"

    finding = step("run-7", FAIL)
    assert (finding.state, finding.failures) == ("dismissed", 4), "dismissed stays dismissed"
    assert run_events(ledger, "run-7") == []

    finding = step("run-8", NO_EVIDENCE)
    assert (finding.state, finding.passed_since_dismissal) == ("dismissed", False)

    finding = step("run-9", PASS)
    assert (finding.state, finding.passed_since_dismissal) == ("dismissed", True)
    assert [e for _, e in run_events(ledger, "run-9")] == ["passed"], "its reports say it"

    finding = step("run-10", FAIL)
    assert (finding.state, finding.failures, finding.passed_since_dismissal) == ("open", 5, False)
    assert [e for _, e in run_events(ledger, "run-10")] == ["reopened"]

    assert ledger.runs == [f"run-{n}" for n in range(1, 11)]
    assert [(e.run_id, e.event) for e in finding.history] == [
        ("run-1", "new"),
        ("run-3", "resolved"),
        ("run-5", "reopened"),
        (None, "dismissed"),
        ("run-9", "passed"),
        ("run-10", "reopened"),
    ]


def test_the_walk_new_resolved_reopened_dismissed_passing_failing_again() -> None:
    walk()


# --- controls: broken variants must fail the walk -----------------------------------------


def reproposing(
    ledger: FindingsLedger, run_id: str, results: Iterable[CheckResult]
) -> FindingsLedger:
    """Proposes a new finding on every failure, known or not."""
    results = list(results)
    updated = apply_run(ledger, run_id, results)
    if run_id in ledger.runs:
        return updated
    known = {f.id for f in ledger.findings}
    extra = [
        Finding(
            id=finding_id(r.key),
            case=r.key.case,
            agent=r.key.agent,
            condition=r.key.condition,
            check=r.key.check,
            first_seen_run=run_id,
            last_seen_run=run_id,
        )
        for r in results
        if r.failed and finding_id(r.key) in known
    ]
    return updated.model_copy(update={"findings": [*updated.findings, *extra]})


def forgets_dismissals(
    ledger: FindingsLedger, run_id: str, results: Iterable[CheckResult]
) -> FindingsLedger:
    """Treats a dismissed finding as resolved."""
    undismissed = ledger.model_copy(deep=True)
    for finding in undismissed.findings:
        if finding.state == "dismissed":
            finding.state = "resolved"
    return apply_run(undismissed, run_id, results)


def reapplies(
    ledger: FindingsLedger, run_id: str, results: Iterable[CheckResult]
) -> FindingsLedger:
    """Does not remember which runs it applied."""
    updated = apply_run(ledger.model_copy(update={"runs": []}), run_id, results)
    return updated.model_copy(update={"runs": [*ledger.runs, run_id]})


def every_status_is_evidence(records: list[TrialRecord]) -> list[CheckResult]:
    """Reads skipped, errored and timed-out trials as if they were scored."""
    return run_checks([r.model_copy(update={"status": "failed"}) for r in records])


@pytest.mark.parametrize(
    ("apply", "checks", "caught"),
    [
        (reproposing, run_checks, "never a duplicate"),
        (forgets_dismissals, run_checks, "dismissed stays dismissed"),
        (reapplies, run_checks, "re-applying a run changes nothing"),
        (apply_run, every_status_is_evidence, "no evidence never resolves"),
    ],
    ids=["re-proposes", "forgets-dismissals", "re-applies", "errors-are-evidence"],
)
def test_control_a_broken_ledger_fails_the_walk(apply: Apply, checks: Checks, caught: str) -> None:
    with pytest.raises(AssertionError, match=caught):
        walk(apply, checks)


# --- checks of a run ----------------------------------------------------------------------


def test_finding_ids_are_stable_and_documented() -> None:
    assert ID == "4ade1b6124"  # sha256("hello\x1fscripted\x1fdefault\x1ffile-exists")[:10]
    assert finding_id(CheckKey("hello", "scripted", "default", "rule:loops")) != ID
    assert finding_id(CheckKey("hello", "scripted", "baseline", "file-exists")) != ID
    # The separator keeps parts apart: "a b" + "c" is not "a" + "b c".
    assert finding_id(CheckKey("a", "b", "c", "d")) != finding_id(CheckKey("a", "b", "", "cd"))


def test_a_check_fails_when_any_repeat_fails_and_passes_when_all_pass() -> None:
    mixed = [trial("passed", True), trial("failed", False, repeat=2), trial("skipped", None)]
    assert [(r.key.check, r.failed) for r in run_checks(mixed)] == [("file-exists", True)]
    assert run_checks(mixed)[0].message == "missing: hello.txt"
    both = [trial("passed", True), trial("passed", True, repeat=2)]
    assert [(r.key, r.failed) for r in run_checks(both)] == [(KEY, False)]
    assert run_checks(NO_EVIDENCE) == [], "nothing is known from errors, skips or timeouts"


def test_a_result_the_verdict_leaves_out_is_no_check() -> None:
    """A soft assertion of an eval written as code (``.soft()``), or an external program's
    metrics without a score, is recorded with ``counted: false``: it never opens a finding."""
    record = trial("passed", True)
    soft = EvaluatorResult(
        use="eval",
        passed=False,
        score=0,
        counted=False,
        details={"name": "used_no_tools()"},
        message="the agent used tools",
    )
    record.evaluators.append(soft)
    assert [(r.key.check, r.failed) for r in run_checks([record])] == [("file-exists", False)]
    record.evaluators[-1] = soft.model_copy(update={"counted": True})  # the control
    assert ("eval: used_no_tools()", True) in [
        (r.key.check, r.failed) for r in run_checks([record])
    ]


def test_a_finding_per_rule_and_inapplicable_rules_say_nothing() -> None:
    rules = [
        RuleResult(rule="unverified", fired=True, message="edited without running anything"),
        RuleResult(rule="loops", fired=False),
        RuleResult(rule="rework", fired=False, applicable=False),
    ]
    results = run_checks([trial("passed", True, rules=rules)])
    assert [(r.key.check, r.failed) for r in results] == [
        ("file-exists", False),
        ("rule:unverified", True),
        ("rule:loops", False),
    ]
    ledger = apply_run(FindingsLedger(), "run-1", results)
    assert [(f.check, f.message) for f in ledger.findings] == [
        ("rule:unverified", "edited without running anything")
    ]


def test_checks_are_named_by_label_else_use_and_repeated_uses_are_numbered() -> None:
    record = trial("failed", False).model_copy(
        update={
            "evaluators": [
                EvaluatorResult(use="command", passed=False, score=0),
                EvaluatorResult(use="command", passed=True, score=100),
                EvaluatorResult(use="command", passed=True, score=100),
                EvaluatorResult(use="file-exists", passed=True, score=100),
            ]
        }
    )
    assert [r.key.check for r in run_checks([record])] == [
        "command",
        "command#2",
        "command#3",
        "file-exists",
    ]
    resolved = ResolvedRecord(
        cases=[
            ResolvedCaseRecord(
                case="hello",
                path="cases/hello",
                agents=["scripted"],
                timeout_sec=30,
                repeats=1,
                combiner="gated-mean",
                pass_threshold=60,
                evaluators=[
                    ResolvedEvaluator(use="command", label="unit tests"),
                    ResolvedEvaluator(use="command"),
                    ResolvedEvaluator(use="command", label="lint"),
                    ResolvedEvaluator(use="llm-judge", label="not this one"),
                ],
            )
        ]
    )
    assert [r.key.check for r in run_checks([record], resolved)] == [
        "unit tests",
        "command",
        "lint",
        "file-exists",  # the resolved entry's use differs: its label is not taken
    ]


# --- dismissals, events, the file ---------------------------------------------------------


def test_dismissing_needs_a_known_id_and_a_reason() -> None:
    ledger = apply_run(FindingsLedger(), "run-1", run_checks(FAIL))
    with pytest.raises(ConfigError, match="no finding 'nope'"):
        dismiss(ledger, "nope", "why", "now")
    with pytest.raises(ConfigError, match="--reason"):
        dismiss(ledger, ID, "  ", "now")
    assert ledger.findings[0].state == "open", "dismiss returns a new ledger"


def test_run_events_render_as_markdown_only_for_runs_in_the_ledger() -> None:
    ledger = apply_run(FindingsLedger(), "run-1", run_checks(FAIL))
    ledger = apply_run(ledger, "run-2", run_checks(NO_EVIDENCE))
    assert render_run_events(ledger, "run-0") is None
    assert f"| new | `{ID}` | hello / scripted / default | file-exists |" in (
        render_run_events(ledger, "run-1") or ""
    )
    assert "No new, reopened or resolved findings" in (render_run_events(ledger, "run-2") or "")


def test_the_ledger_round_trips_and_bad_files_are_one_sentence(tmp_path: Path) -> None:
    assert load_ledger(tmp_path) == FindingsLedger(), "no file yet: an empty ledger"
    ledger = apply_run(FindingsLedger(), "run-1", run_checks(FAIL))
    save_ledger(tmp_path, ledger)
    data = json.loads((tmp_path / "findings.json").read_text())
    assert data["schemaVersion"] == 6 and data["findings"][0]["firstSeenRun"] == "run-1"
    assert load_ledger(tmp_path) == ledger
    assert [p.name for p in tmp_path.iterdir()] == ["findings.json"], "no temp file left"

    (tmp_path / "findings.json").write_text(
        json.dumps({"schemaVersion": 2, "findings": [{"id": 3}]})
    )
    with pytest.raises(ConfigError, match=r"findings\.json.*findings\[0\]"):
        load_ledger(tmp_path)
    (tmp_path / "findings.json").write_text("{not json")
    with pytest.raises(ConfigError, match=r"findings\.json: not a readable JSON file"):
        load_ledger(tmp_path)
    (tmp_path / "findings.json").write_text(json.dumps({"schemaVersion": 99}))
    with pytest.raises(SchemaVersionError, match="newer"):
        load_ledger(tmp_path)


def test_two_dismissals_at_once_both_stand(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each reads the ledger, changes it and writes it: without the lock, the second write
    would carry the ledger as it was before the first one's change."""
    import threading
    import time

    from proctor.report import findings as module

    def finding(fid: str) -> Finding:
        return Finding(
            id=fid, case=fid, agent="a", condition="d", check="x",
            first_seen_run="r", last_seen_run="r",
        )  # fmt: skip

    module.save_ledger(
        tmp_path, FindingsLedger(runs=["r"], findings=[finding("a1"), finding("b2")])
    )
    real_save = module.save_ledger

    def slow_save(folder: Path, ledger: FindingsLedger) -> None:
        time.sleep(0.2)  # both would have read the ledger by now
        real_save(folder, ledger)

    monkeypatch.setattr(module, "save_ledger", slow_save)

    def dismiss_one(fid: str) -> None:
        with module.ledger_lock(tmp_path):
            ledger = module.load_ledger(tmp_path)
            module.save_ledger(tmp_path, module.dismiss(ledger, fid, "noise", "t"))

    threads = [threading.Thread(target=dismiss_one, args=(f,)) for f in ("a1", "b2")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    states = {f.id: f.state for f in module.load_ledger(tmp_path).findings}
    assert states == {"a1": "dismissed", "b2": "dismissed"}


def test_the_newest_run_is_told_by_its_start_not_by_when_it_was_applied() -> None:
    """A late run (started before one the ledger holds) is applied last, and is not the
    newest: a finding the newest run checked is not reported unchecked."""
    from proctor.cli.findings import _unchecked
    from proctor.report.findings import latest_run

    newer, older = "run-20260102T000000Z-bbbbbb", "run-20260101T000000Z-aaaaaa"
    ledger = apply_run(FindingsLedger(), newer, run_checks(FAIL))
    ledger = apply_run(ledger, older, run_checks(FAIL), held_back={KEY})
    (finding,) = ledger.findings
    assert ledger.runs[-1] == older and latest_run(ledger) == newer
    assert finding.last_checked_run == newer and not _unchecked(finding, latest_run(ledger))
    assert _unchecked(finding, "run-20260103T000000Z-cccccc")  # the control: a newer run
    assert latest_run(FindingsLedger(runs=["by-hand", "other"])) == "other"  # undated: the last


def test_a_late_run_holds_back_only_the_checks_a_newer_run_recorded() -> None:
    """A run applied after a newer one: the check the newer run recorded is held back (its
    failure counted, nothing proposed), its other failing check is proposed as any run's."""
    from proctor.report.findings import recorded_since

    other = CheckKey("other", "scripted", "default", "file-exists")
    newer, older = "run-20260102T000000Z-bbbbbb", "run-20260101T000000Z-aaaaaa"
    ledger = apply_run(FindingsLedger(), newer, run_checks(FAIL))
    late = [CheckResult(KEY, failed=True, message="x"), CheckResult(other, failed=True)]
    held_back = recorded_since(ledger, "20260101T000000Z") & {r.key for r in late}
    assert held_back == {KEY}
    assert recorded_since(ledger, "20260103T000000Z") == set()  # nothing newer than that
    ledger = apply_run(ledger, older, late, held_back=held_back)
    found = {f.case: f for f in ledger.findings}
    assert (found["hello"].failures, found["hello"].first_seen_run) == (2, newer)
    assert [e.event for e in found["hello"].history] == ["new"]
    assert (found["other"].state, found["other"].first_seen_run) == ("open", older)
    assert run_events(ledger, older) == [(found["other"], "new")]


@pytest.mark.parametrize(
    ("cwd", "source", "out", "suite"),
    [
        ("/w/repo", "suites/api", "/w/repo/proctor-results", "suites/api"),
        ("/w/repo/suites", "./api/", "/w/repo/proctor-results", "suites/api"),
        ("/w/repo", "/w/repo/suites/api", "/w/repo/out", "suites/api"),
        ("/w/repo", "../shared/api", "/w/repo/out", "/w/shared/api"),
        ("/w/repo", "suites/api", "/var/results/out", "/w/repo/suites/api"),
        ("/w/repo", None, "/w/repo/out", None),
    ],
)
def test_a_runs_suite_is_its_source_relative_to_the_folder_holding_the_results(
    cwd: str, source: str | None, out: str, suite: str | None
) -> None:
    from proctor.models.run import RunManifest
    from proctor.report.findings import run_suite

    manifest = RunManifest(
        run_id="run-1", proctor_version="0", started_at="2026", source=source, cwd=cwd
    )
    assert run_suite(manifest, Path(out)) == suite


@pytest.mark.parametrize("status", ["timeout", "agent-error", "infra-error", "eval-error"])
def test_a_trial_annotated_failed_counts_by_its_own_outcome(status: str) -> None:
    """``proctor annotate --verdict failed`` makes a timed-out (or errored) trial ``failed``;
    its evaluators still say nothing: the agent was cut off, and a pass there resolves
    nothing. A scored trial annotated failed is evidence as it was."""
    from proctor.models.run import AnnotationsRecord
    from proctor.models.trial import TrialAnnotation
    from proctor.report.annotations import apply_annotations

    def marked(record: TrialRecord) -> TrialRecord:
        mark = TrialAnnotation(
            trial=f"hello/scripted/default/{record.repeat}", verdict="failed", note="n", at="t"
        )
        (annotated,) = apply_annotations([record], AnnotationsRecord(annotations=[mark]))
        return annotated

    cut_off = marked(trial(status, True))
    assert run_checks([cut_off]) == []
    assert cut_off.status == "failed" and cut_off.status_before_annotation == status
    opened = apply_run(FindingsLedger(), "run-20261201T120000Z-a", run_checks(FAIL))
    after = apply_run(opened, "run-20261202T120000Z-b", run_checks([cut_off]))
    assert [f.state for f in after.findings] == ["open"], "a cut-off trial resolves nothing"
    scored = marked(trial("passed", True))
    assert [(r.key, r.failed) for r in run_checks([scored])] == [(KEY, False)]
