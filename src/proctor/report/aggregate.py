"""From trial records to per-group statistics, the gate and the exit code.

Pure over its inputs: ``proctor report`` recomputes all of it from stored ``trial.json`` files.

Exit codes: 0 every group passes its gate and no trial is in an error status; 1 a gate failed;
2 nothing ran or every trial is an infra-error; 3 some trials are in an error status but every
gate on completed trials passes. A gate failure wins over partial infra failure. 130 (Ctrl-C)
is decided by the caller.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from proctor.exit_codes import ExitCode
from proctor.llm.failures import retried_attempt
from proctor.models.ab import ABGateResult, ABReport
from proctor.models.config import Gate
from proctor.models.run import SkippedCaseRecord
from proctor.models.suite import (
    GateCheck,
    GroupStats,
    ScoreStats,
    Spread,
    SuiteRecord,
    SuiteTotals,
    TimeRollup,
)
from proctor.models.trajectory import ModelUsage, sum_usage
from proctor.models.trial import (
    ERROR_STATUSES,
    INTERRUPTED_PREFIX,
    SCORED_STATUSES,
    TrialRecord,
    not_evaluated_cause,
)
from proctor.report.ab.analysis import ab_gate, analyse_ab
from proctor.report.ab.choose import choose_pair, records_for_pair
from proctor.report.ab.measures import excluded_by_hand
from proctor.report.ab.pairs import Cell
from proctor.report.cut_short import is_cut_short
from proctor.report.effort import (
    cost_rollup,
    effort_stats,
    mean_tables,
    outcome_cis,
    outcome_rates,
    pass_k_tables,
    rule_counts,
    source_rollup,
    source_times,
    spread,
)
from proctor.report.repeated import repeated_runs
from proctor.stats import median, pass_rate, stability, summarize
from proctor.util.text import plural


def _scores(records: Sequence[TrialRecord]) -> ScoreStats:
    values = [r.score for r in records if r.status in SCORED_STATUSES and r.score is not None]
    s = summarize(values)
    return ScoreStats(n=s.n, min=s.min, max=s.max, mean=s.mean, median=s.median, stddev=s.stddev)


def _time(records: Sequence[TrialRecord]) -> TimeRollup:
    t = TimeRollup()
    for r in records:
        t.total_ms += r.timings.total_ms
        t.prepare_ms += r.timings.prepare_ms
        t.agent_ms += r.timings.agent_ms
        t.collect_ms += r.timings.collect_ms
        t.evaluate_ms += r.timings.evaluate_ms
        t.harness_ms += r.timings.harness_ms
    t.median_trial_ms = median([r.timings.total_ms for r in records])
    for name in ("total_ms", "prepare_ms", "agent_ms", "collect_ms", "evaluate_ms", "harness_ms"):
        setattr(t, name, round(getattr(t, name), 3))
    return t


def _usage(records: Iterable[TrialRecord]) -> dict[str, ModelUsage]:
    return sum_usage(model_usage for r in records for model_usage in r.usage.items())


def gate_checks(gate: Gate, rate: float | None, scores: ScoreStats, n: int) -> list[GateCheck]:
    checks = []
    if gate.min_pass_rate is not None:
        ok = rate is not None and rate >= gate.min_pass_rate
        checks.append(
            GateCheck(name="minPassRate", threshold=gate.min_pass_rate, actual=rate, passed=ok)
        )
    if gate.min_score is not None:
        ok = scores.mean is not None and scores.mean >= gate.min_score
        checks.append(
            GateCheck(name="minScore", threshold=gate.min_score, actual=scores.mean, passed=ok)
        )
    if gate.max_stddev is not None and n > 1:
        ok = scores.stddev is None or scores.stddev <= gate.max_stddev
        checks.append(
            GateCheck(name="maxStddev", threshold=gate.max_stddev, actual=scores.stddev, passed=ok)
        )
    for check in checks:
        if not check.passed:
            actual = "n/a" if check.actual is None else f"{check.actual:.3g}"
            rel = "<" if check.name != "maxStddev" else ">"
            check.message = f"{check.name}: {actual} {rel} {check.threshold:g}"
    return checks


def group_stats(records: Sequence[TrialRecord], gate: Gate) -> GroupStats:
    first = records[0]
    counts = Counter(r.status for r in records)
    scored = [r for r in records if r.status in SCORED_STATUSES]
    passes = sum(1 for r in scored if r.status == "passed")
    rate = pass_rate(passes, len(scored))
    scores = _scores(records)
    checks = gate_checks(gate, rate, scores, len(scored))
    at_k, hat_k = pass_k_tables(passes, len(scored))
    rate_ci, score_ci = outcome_cis(records)
    tasks, rules = rule_counts(records)
    labels = first.labels.model_dump(by_alias=True, exclude_none=True)
    cost, unpriced = cost_rollup(records)
    return GroupStats(
        case=first.case,
        agent=first.agent,
        condition=first.condition,
        n=len(records),
        status_counts=dict(sorted(counts.items())),
        cut_short=sum(map(is_cut_short, records)),
        scored=len(scored),
        passes=passes,
        pass_rate=rate,
        mean_score=scores.mean,
        stddev=scores.stddev,
        scores=scores,
        stability=stability(passes, len(scored)),
        gate_passed=bool(scored) and all(c.passed for c in checks),
        # Every trial skipped (an eval's t.skip, not evaluated, or left out by a person with
        # annotate --verdict excluded): no gate to pass.
        not_gated=not scored and all(r.status == "skipped" for r in records),
        gate_checks=checks,
        time=_time(records),
        usage=_usage(records),
        pass_at_k=at_k,
        pass_hat_k=hat_k,
        pass_rate_ci=rate_ci,
        mean_score_ci=score_ci,
        effort=effort_stats(records),
        tasks=tasks,
        rule_counts=rules,
        labels=labels,
        cost_usd=cost,
        unpriced_models=unpriced,
        metrics=metric_rollup(records),
        by_source=source_rollup(records),
        source_times=source_times(records),
        outcomes=outcome_rates(records),
    )


def metric_rollup(records: Iterable[TrialRecord]) -> dict[str, Spread]:
    """Each metric name the evaluators reported → the median and range of its values."""
    values: dict[str, list[float]] = {}
    for record in records:
        if excluded_by_hand(record):  # left out of the statistics by a person
            continue
        for result in record.evaluators:
            for name, value in result.metrics.items():
                values.setdefault(name, []).append(value)
    return {name: spread(found) for name, found in sorted(values.items())}


def gate_failed(record: TrialRecord) -> bool:
    """A gate evaluator of the trial judged, and failed, and so decides the exit code whatever
    the trial's status (a gate that failed in a trial that then ended in an error). An eval's
    agent that crashed is ``agent-error`` whatever its test's assertions said (a
    ``turn.expect_ok()`` fails by the crash itself): those decide nothing. Nor does any gate of
    an agent that crashed before its first tool call, as its transcript shows (a provider it
    could not reach, a key refused): the gate judged the workspace as the case left it, not
    anything the agent did."""
    crashed = record.status == "agent-error"
    if crashed and record.tool_calls == 0 and record.process is not None:
        return False
    return any(
        e.gate and not e.passed and not e.error and not (crashed and e.use == "eval")
        for e in record.evaluators
    )


def _named(groups: Sequence[GroupStats]) -> str:
    """The first five groups by name, and how many more."""
    names = ", ".join(f"{g.case}/{g.agent}/{g.condition}" for g in groups[:5])
    return names + (f" and {len(groups) - 5} more" if len(groups) > 5 else "")


@dataclass(frozen=True)
class FailedGates:
    """The gates that make the exit code 1: the A/B gate, the groups whose gate failed over
    their scored trials, and the groups where a gate evaluator failed in a trial that then
    ended in an error status. The JUnit report fails a test for each, so that its test view
    is red exactly when a gate is."""

    ab: bool = False
    groups: tuple[GroupStats, ...] = ()
    in_errors: tuple[GroupStats, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.ab or self.groups or self.in_errors)


def failed_gates(
    groups: Sequence[GroupStats],
    records: Sequence[TrialRecord],
    ab_gate_result: ABGateResult | None = None,
) -> FailedGates:
    """What failed a gate (see :class:`FailedGates`); nothing when nothing ran or every trial
    ended in infra-error (exit 2 then, whatever a gate said)."""
    if not records or all(r.status == "infra-error" for r in records):
        return FailedGates()
    unevaluated = sum(1 for r in records if not_evaluated_cause(r.reason) is not None)
    nothing_scored = unevaluated and not any(g.scored for g in groups)
    ab = ab_gate_result is not None and not ab_gate_result.passed and not nothing_scored
    # A group with no scored trial fails no gate: errors are exit 3; trials skipped (an
    # eval's t.skip, not evaluated, every one left out by a person) are not gated.
    failed = [g for g in groups if g.scored and not g.gate_passed]
    # A gate evaluator that judged and failed stands even when its trial then ended in an
    # error status (an eval's test that raised after a failed gate): exit 1, as the command's.
    seen = {(g.case, g.agent, g.condition) for g in failed}
    in_error = gate_failures_in_errors(records)
    in_errors = [
        g
        for g in groups
        if (g.case, g.agent, g.condition) not in seen and in_error[(g.case, g.agent, g.condition)]
    ]
    return FailedGates(ab, tuple(failed), tuple(in_errors))


def gate_failures_in_errors(records: Iterable[TrialRecord]) -> Counter[tuple[str, str, str]]:
    """Per case × agent × condition, its trials in an error status in which a gate evaluator
    judged and failed (:func:`gate_failed`)."""
    return Counter(
        (r.case, r.agent, r.condition)
        for r in records
        if r.status in ERROR_STATUSES and gate_failed(r)
    )


IN_ERRORS = "a gate evaluator failed in a trial that then ended in an error status"


def exit_code_for(
    groups: Sequence[GroupStats],
    records: Sequence[TrialRecord],
    ab_gate_result: ABGateResult | None = None,
) -> tuple[ExitCode, str]:
    if not records:
        return ExitCode.CONFIG_ERROR, "nothing ran"
    if all(r.status == "infra-error" for r in records):
        return ExitCode.CONFIG_ERROR, "every trial ended in infra-error"
    unevaluated = sum(1 for r in records if not_evaluated_cause(r.reason) is not None)
    nothing_scored = unevaluated and not any(g.scored for g in groups)
    failing = failed_gates(groups, records, ab_gate_result)
    failed, in_errors = failing.groups, failing.in_errors
    said = [f"gate failed for {plural(len(failed), 'group')}: {_named(failed)}"] if failed else []
    if in_errors:
        # Its gate, over its scored trials, may have passed: said as what it is.
        said.append(f"{IN_ERRORS}, in {plural(len(in_errors), 'group')}: {_named(in_errors)}")
    if failing.ab and ab_gate_result is not None:
        # The groups' failed gates too: the A/B gate's message alone would hide them.
        also = f"; also {'; '.join(said)}" if said else ""
        return (
            ExitCode.GATE_FAILED,
            f"A/B gate failed: {ab_gate_result.message.rstrip('.')}{also}",
        )
    # The A/B gate's verdict when it passed, as its failure is said: never left unsaid.
    ab = ""
    if ab_gate_result is not None and ab_gate_result.passed and not nothing_scored:
        ab = f"; A/B gate passed: {ab_gate_result.message.rstrip('.')}"
    if said:
        return ExitCode.GATE_FAILED, "; ".join(said) + ab
    errors = [r for r in records if r.status in ERROR_STATUSES]
    if errors:
        reason = (
            f"{plural(len(errors), 'trial')} in an error status; no scored group failed its gate"
        )
        return ExitCode.TRIAL_ERRORS, reason + ab
    if nothing_scored:
        return (
            ExitCode.OK,
            f"not evaluated: {plural(unevaluated, 'trial')} ran and "
            f"{'was' if unevaluated == 1 else 'were'} recorded; "
            "nothing was gated",
        )
    # A group left without a scored trial here was skipped (an eval's t.skip, trials not
    # evaluated): it has no gate that passed, and saying so would be untrue.
    unscored = sum(1 for g in groups if g.not_gated)
    if unscored == len(groups):
        return ExitCode.OK, "nothing was gated: every trial was skipped"
    if unscored:
        return (
            ExitCode.OK,
            f"every scored group passed its gate; {plural(unscored, 'group')} not gated: every "
            f"trial skipped{ab}",
        )
    return ExitCode.OK, f"every group passed its gate{ab}"


def _record_order(r: TrialRecord) -> tuple[str, str, str, int]:
    return (r.case, r.agent, r.condition, r.repeat)


def group_records(records: Sequence[TrialRecord]) -> dict[tuple[str, str, str], list[TrialRecord]]:
    """Trials per case × agent × condition, groups and repeats in sorted order."""
    groups: dict[tuple[str, str, str], list[TrialRecord]] = {}
    for r in sorted(records, key=_record_order):
        groups.setdefault((r.case, r.agent, r.condition), []).append(r)
    return groups


def aggregate(
    records: Sequence[TrialRecord],
    gate: Gate,
    *,
    run_id: str,
    skipped_cases: Sequence[SkippedCaseRecord] = (),
    interrupted: bool = False,
    planned: int | None = None,
    unrecorded: int = 0,
    wall_ms: float | None = None,
    cells: Sequence[Cell] = (),
    wall_lower_bound: bool = False,
    wall_session: bool = False,
    stopped_because: str | None = None,
) -> SuiteRecord:
    """The suite's aggregate. ``cells`` is the run's matrix, when known: the A/B section lists
    the repeats an interrupted run never started on either side as incomplete pairs.
    ``stopped_because``: why proctor stopped the run itself, said in its exit reason.

    The records are taken in one order (case, agent, condition, repeat), whatever order they
    come in: a run's, or ``proctor report`` reading them back, gives the same figures."""
    records = sorted(records, key=_record_order)
    groups = [group_stats(rs, gate) for rs in group_records(records).values()]
    if not all(r.status == "infra-error" for r in records):  # else exit 2, whatever a gate said
        in_error = gate_failures_in_errors(records)
        groups = [
            g.model_copy(update={"gate_failed_in_errors": in_error[(g.case, g.agent, g.condition)]})
            for g in groups
        ]
    ab_report, gate_result = ab_sections(records, gate, cells)
    code, reason = exit_code_for(groups, records, gate_result)
    if interrupted:
        said = _interrupted_reason(records, gate, gate_result, planned, unrecorded, stopped_because)
        code, reason = ExitCode.INTERRUPTED, said
    counts = Counter(r.status for r in records)
    scored = [r for r in records if r.status in SCORED_STATUSES]
    passes = sum(1 for r in scored if r.status == "passed")
    tasks, rules = rule_counts(records)
    cost_usd, unpriced = cost_rollup(records)
    with_scores = [g for g in groups if g.scored]
    # The groups' tables as computed: their mean is rounded once.
    tables = [pass_k_tables(g.passes, g.scored, digits=None) for g in with_scores]
    totals = SuiteTotals(
        n=len(records),
        status_counts=dict(sorted(counts.items())),
        cut_short=sum(map(is_cut_short, records)),
        scored=len(scored),
        passes=passes,
        pass_rate=pass_rate(passes, len(scored)),
        scores=_scores(records),
        time=_time(records),
        usage=_usage(records),
        groups=len(groups),
        groups_passed=sum(1 for g in groups if g.gate_passed),
        pass_at_k=mean_tables([t[0] for t in tables]),
        pass_hat_k=mean_tables([t[1] for t in tables]),
        pass_rate_ci=outcome_cis(records)[0],
        effort=effort_stats(records),
        tasks=tasks,
        rule_counts=rules,
        wall_ms=wall_ms,
        wall_lower_bound=wall_lower_bound and wall_ms is not None,
        wall_session=wall_session,
        cost_usd=cost_usd,
        unpriced_models=unpriced,
        retried=sum(1 for r in records if any(retried_attempt(a) for a in r.attempts)),
        metrics=metric_rollup(records),
        by_source=source_rollup(records),
        source_times=source_times(records),
        outcomes=outcome_rates(records),
    )
    return SuiteRecord(
        run_id=run_id,
        exit_code=int(code),
        exit_reason=reason,
        gate=gate,
        groups=groups,
        totals=totals,
        skipped_cases=list(skipped_cases),
        interrupted=interrupted,
        ab=ab_report,
        ab_gate=gate_result,
        repeated=repeated_runs(records),
    )


def stopped_progress(
    finished: int, cut_short: int, planned: int | None, unrecorded: int = 0
) -> str:
    """How far a stopped run got, each trial counted once: ``interrupted after 10 of 50 trials
    finished (1 cut short, recorded as interrupted; 2 started but never recorded; 37 not
    started)``; ``cut_short`` are the trials the stop ended (recorded as interrupted),
    ``unrecorded`` those its journal says started and that left no record (their processes
    were killed with the orchestrator, or a full disk refused their record), the rest of
    ``planned`` never started."""
    of = f" of {planned}" if planned is not None else ""
    last = finished if planned is None else planned  # the noun agrees with the last count
    said = f"interrupted after {finished}{of} trial{'' if last == 1 else 's'} finished"
    rest = [f"{cut_short} cut short, recorded as interrupted"] if cut_short else []
    if planned is not None:
        unrecorded = max(0, min(unrecorded, planned - finished - cut_short))
    if unrecorded:
        rest.append(f"{unrecorded} started but never recorded")
    if planned is not None and planned > finished + cut_short + unrecorded:
        rest.append(f"{planned - finished - cut_short - unrecorded} not started")
    if rest:
        said += f" ({'; '.join(rest)})"
    return said


def _interrupted_reason(
    records: Sequence[TrialRecord],
    gate: Gate,
    ab_gate_result: ABGateResult | None,
    planned: int | None,
    unrecorded: int = 0,
    because: str | None = None,
) -> str:
    """What a stopped run did: the trials that finished, those it cut short (recorded in an
    error status, as interrupted), those that started and left no record, and those it never
    started, each counted once; why proctor stopped it, when it did (``because``); then what
    the finished trials say (an interrupted one is no error of the suite's)."""
    stopped = sum(1 for r in records if r.reason.startswith(INTERRUPTED_PREFIX))
    finished = [r for r in records if not r.reason.startswith(INTERRUPTED_PREFIX)]
    said = stopped_progress(len(finished), stopped, planned, unrecorded)
    if because:
        said += f", as {because}"
    if not finished:
        return said
    groups = [group_stats(rs, gate) for rs in group_records(finished).values()]
    _, reason = exit_code_for(groups, finished, ab_gate_result)
    return f"{said}; of the finished ones: {reason}"


def ab_sections(
    records: Sequence[TrialRecord], gate: Gate, cells: Sequence[Cell] = ()
) -> tuple[ABReport | None, ABGateResult | None]:
    """The A/B report of the run's default pair of conditions, and the A/B gate when set.

    The conditions are those of the trials and of the run's matrix (``cells``): a run stopped
    before any trial of a condition ran still has its A/B section, that side's pairs missing."""
    report = None
    if gate.ab is not None:
        pair: tuple[str, str] | None = (gate.ab.treatment, gate.ab.baseline)
    else:
        pair = choose_pair(records, together_only=True, planned=cells)
    conditions = {r.condition for r in records} | {cell[2] for cell in cells}
    if pair is not None and len(conditions) > 1:
        report = analyse_ab(records_for_pair(records, *pair), *pair, planned=cells)
        report.pair_from = "gate" if gate.ab is not None else "chosen"
    result = None
    if gate.ab is not None:
        # Never raise here: a stopped run may lack a condition; the gate then fails with
        # "no complete pair", and the aggregate is still written.
        result = ab_gate(
            records_for_pair(records, gate.ab.treatment, gate.ab.baseline),
            gate.ab.treatment,
            gate.ab.baseline,
            gate.ab.max_pass_rate_drop,
            planned=cells,
        )
    return report, result
