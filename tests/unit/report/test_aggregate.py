import random

from proctor.models.config import Gate
from proctor.models.pricing import CostInfo
from proctor.models.process import Effort, ProcessMetrics, RuleResult
from proctor.models.trial import NOT_EVALUATED, EvaluatorResult, TrialAnnotation, TrialRecord
from proctor.report.aggregate import aggregate


def rec(case: str, status: str, score: float | None, repeat: int = 1) -> TrialRecord:
    return TrialRecord(
        case=case,
        agent="a",
        repeat=repeat,
        status=status,  # type: ignore[arg-type]
        passed=status == "passed",
        score=score,
    )


ALL_PASS = Gate(min_pass_rate=1.0)


def test_all_passing_exits_0() -> None:
    suite = aggregate([rec("c", "passed", 100), rec("c", "passed", 80, 2)], ALL_PASS, run_id="r")
    g = suite.groups[0]
    assert suite.exit_code == 0
    assert (g.n, g.scored, g.passes, g.pass_rate, g.stability) == (2, 2, 2, 1.0, "stable-pass")
    assert g.mean_score == 90 and g.stddev is not None


def test_timeout_counts_as_failure_and_fails_the_gate() -> None:
    suite = aggregate([rec("c", "passed", 100), rec("c", "timeout", 0, 2)], ALL_PASS, run_id="r")
    assert suite.groups[0].pass_rate == 0.5 and suite.groups[0].stability == "flaky"
    assert suite.exit_code == 1


def test_errors_are_excluded_and_exit_3_when_gates_pass() -> None:
    records = [
        rec("c", "passed", 100),
        rec("c", "eval-error", None, 2),
        rec("c", "agent-error", None, 3),
    ]
    suite = aggregate(records, ALL_PASS, run_id="r")
    g = suite.groups[0]
    assert (g.n, g.scored, g.pass_rate) == (3, 1, 1.0)
    assert suite.exit_code == 3


def test_gate_failure_wins_over_partial_infra_failure() -> None:
    records = [rec("c", "failed", 0), rec("d", "infra-error", None)]
    assert aggregate(records, ALL_PASS, run_id="r").exit_code == 1


def test_every_trial_infra_error_exits_2() -> None:
    records = [rec("c", "infra-error", None), rec("d", "infra-error", None)]
    suite = aggregate(records, ALL_PASS, run_id="r")
    assert suite.exit_code == 2 and not suite.groups[0].gate_passed


def test_nothing_ran_exits_2() -> None:
    assert aggregate([], ALL_PASS, run_id="r").exit_code == 2


def test_min_score_and_max_stddev_gates() -> None:
    records = [rec("c", "passed", 100), rec("c", "passed", 60, 2)]
    assert aggregate(records, Gate(min_score=90), run_id="r").exit_code == 1
    assert aggregate(records, Gate(min_score=70), run_id="r").exit_code == 0
    suite = aggregate(records, Gate(max_stddev=10), run_id="r")
    assert suite.exit_code == 1
    assert "maxStddev" in suite.groups[0].gate_checks[0].message


def test_max_stddev_is_not_checked_for_a_single_trial() -> None:
    assert aggregate([rec("c", "passed", 100)], Gate(max_stddev=0), run_id="r").exit_code == 0


def test_interrupted_exits_130() -> None:
    suite = aggregate([rec("c", "passed", 100)], ALL_PASS, run_id="r", interrupted=True)
    assert suite.exit_code == 130 and suite.interrupted


def test_an_interrupted_run_counts_finished_cut_short_and_unstarted_trials_apart() -> None:
    """The trials a stopped run cut short (recorded as interrupted, in an error status) were
    counted among those it finished and again as trials in an error status."""
    cut = [rec("slow", "infra-error", None, n) for n in (1, 2)]
    for record in cut:
        record.reason = "interrupted: the run was stopped before this trial ended"
    records = [rec("c", "passed", 100, n) for n in range(1, 5)] + cut
    suite = aggregate(records, ALL_PASS, run_id="r", interrupted=True, planned=7)
    assert suite.exit_code == 130
    assert suite.exit_reason == (
        "interrupted after 4 of 7 trials finished (2 cut short, recorded as interrupted; "
        "1 not started); of the finished ones: every group passed its gate"
    )
    records.append(rec("d", "agent-error", None))  # an error of its own is still said
    suite = aggregate(records, ALL_PASS, run_id="r", interrupted=True, planned=7)
    assert suite.exit_reason == (
        "interrupted after 5 of 7 trials finished (2 cut short, recorded as interrupted); of "
        "the finished ones: 1 trial in an error status; no scored group failed its gate"
    )
    suite = aggregate(cut, ALL_PASS, run_id="r", interrupted=True, planned=2)
    assert (
        suite.exit_reason == "interrupted after 0 of 2 trials finished (2 cut short, "
        "recorded as interrupted)"
    )


def test_pass_at_k_and_pass_hat_k_per_group() -> None:
    records = [
        rec("c", s, 100 if s == "passed" else 0, i)
        for i, s in enumerate(["passed", "failed", "passed", "timeout"], 1)
    ]
    g = aggregate(records, ALL_PASS, run_id="r").groups[0]
    assert g.pass_at_k == {"1": 0.5, "2": 0.833333, "3": 1.0, "4": 1.0}
    assert g.pass_hat_k == {"1": 0.5, "2": 0.166667, "3": 0.0, "4": 0.0}


def test_the_totals_tables_are_the_mean_of_the_groups_as_computed_rounded_once() -> None:
    # pass@1 of 0/1 and of 1/3: (0 + 0.3333333…) / 2 = 0.1666667; the mean of the groups'
    # tables as rounded, (0 + 0.333333) / 2, read 0.166666.
    records = [rec("c", "failed", 0), rec("d", "passed", 100)]
    records += [rec("d", "failed", 0, 2), rec("d", "failed", 0, 3)]
    totals = aggregate(records, ALL_PASS, run_id="r").totals
    assert totals.pass_at_k == {"1": 0.166667} and totals.pass_hat_k == {"1": 0.166667}


def test_confidence_intervals_are_reproducible_and_bracket_the_rate() -> None:
    records = [rec("c", "passed" if i % 3 else "failed", 50, i) for i in range(1, 10)]
    first = aggregate(records, ALL_PASS, run_id="r").groups[0]
    again = aggregate(records, ALL_PASS, run_id="r").groups[0]
    assert first.pass_rate_ci == again.pass_rate_ci
    assert first.pass_rate_ci is not None and first.pass_rate is not None
    assert first.pass_rate_ci.low <= first.pass_rate <= first.pass_rate_ci.high
    assert first.pass_rate_ci.low < first.pass_rate_ci.high


def test_one_score_has_no_interval_and_a_few_get_a_widened_one() -> None:
    """A mean score's interval needs two scores: one is no interval ([100, 100] read as
    certainty); a few get the expanded interval, wider than the plain percentile one."""
    one = aggregate([rec("c", "passed", 100)], ALL_PASS, run_id="r").groups[0]
    assert one.mean_score == 100 and one.mean_score_ci is None
    scores = [40.0, 100.0, 70.0, 90.0, 60.0, 80.0]
    few = aggregate(
        [rec("c", "passed", s, i) for i, s in enumerate(scores, 1)], ALL_PASS, run_id="r"
    )
    ci = few.groups[0].mean_score_ci
    assert ci is not None
    # The plain interval is [56.666667, 88.333333].
    assert (ci.low, ci.high) == (51.666667, 93.333333)


def test_effort_and_rule_counts() -> None:
    records = []
    for i, (calls, fired) in enumerate([(4, True), (8, False), (6, False)], 1):
        r = rec("c", "passed", 100, i)
        r.tool_calls = calls
        r.timings.agent_ms = 1000.0 * i
        r.process = ProcessMetrics(is_task=True)
        r.rules = [
            RuleResult(rule="unverified", fired=fired),
            RuleResult(rule="loops", fired=False),
        ]
        records.append(r)
    g = aggregate(records, ALL_PASS, run_id="r").groups[0]
    assert (g.effort.tool_calls.median, g.effort.tool_calls.min, g.effort.tool_calls.max) == (
        6,
        4,
        8,
    )
    assert g.effort.elapsed_seconds.median == 2.0
    assert g.tasks == 3 and g.rule_counts["unverified"] == 1 and g.rule_counts["loops"] == 0


def test_a_run_cost_is_unknown_when_a_model_has_no_price() -> None:
    priced, unpriced = rec("c", "passed", 100, 1), rec("c", "passed", 100, 2)
    priced.cost = CostInfo(total_usd=1.5, by_model={"m": 1.5})
    unpriced.cost = CostInfo(total_usd=None, by_model={"x": None}, unpriced=["x"])
    suite = aggregate([priced], ALL_PASS, run_id="r")
    assert suite.totals.cost_usd == 1.5 and suite.totals.unpriced_models == []
    suite = aggregate([priced, unpriced], ALL_PASS, run_id="r")
    assert suite.totals.cost_usd is None and suite.totals.unpriced_models == ["x"]


def test_a_trial_that_never_reached_its_agent_leaves_the_run_cost_known() -> None:
    """A setup that failed (infra-error) or a trial interrupted before its agent ran has a cost
    that names no model: it spent nothing recorded, and the run's total stays known."""
    priced = rec("c", "passed", 100, 1)
    priced.cost = CostInfo(total_usd=1.5, by_model={"m": 1.5})
    never = rec("c", "infra-error", None, 2)  # its default CostInfo: no model, no total
    suite = aggregate([priced, never], ALL_PASS, run_id="r")
    assert suite.totals.cost_usd == 1.5 and suite.groups[0].cost_usd == 1.5
    uncollected = rec("c", "passed", 100, 3)
    uncollected.cost = CostInfo(collected=False)  # --no-collect-cost: unknown, as before
    assert aggregate([priced, uncollected], ALL_PASS, run_id="r").totals.cost_usd is None


def test_ab_gate_on_a_run_missing_a_condition_fails_without_raising() -> None:
    from proctor.models.config import ABGate

    record = TrialRecord(
        case="c", agent="a", condition="with", repeat=1, status="passed", score=100
    )
    gate = Gate(min_pass_rate=0, ab=ABGate(treatment="with", baseline="without"))
    suite = aggregate([record], gate, run_id="r", interrupted=True)
    assert suite.ab_gate is not None and suite.ab_gate.passed is False
    assert suite.exit_code == 130


def test_a_failed_ab_gate_does_not_hide_the_groups_whose_gate_failed_too() -> None:
    from proctor.models.config import ABGate

    records = [
        TrialRecord(
            case=case,
            agent="a",
            condition=condition,
            repeat=1,
            status="passed" if passed else "failed",
            passed=passed,
            score=100 if passed else 0,
        )
        for case, condition, passed in (
            ("c", "base", True),
            ("c", "treat", False),
            ("d", "base", True),
            ("d", "treat", True),
        )
    ]
    gate = Gate(min_pass_rate=1.0, ab=ABGate(treatment="treat", baseline="base"))
    suite = aggregate(records, gate, run_id="r")
    assert suite.exit_code == 1
    assert suite.exit_reason.startswith("A/B gate failed: pass-rate delta -0.500 over 2 ")
    assert suite.exit_reason.endswith("; also gate failed for 1 group: c/a/treat")


def test_a_passed_ab_gate_is_named_in_the_exit_reason() -> None:
    """As a failed one is: the reason says the A/B gate passed and on what, not only that
    the groups did; beside a group's failed gate and trials in error too."""
    from proctor.models.config import ABGate

    def trial(case: str, condition: str, status: str) -> TrialRecord:
        ok = status == "passed"
        scored = status in ("passed", "failed")
        return TrialRecord(
            case=case, agent="a", condition=condition, repeat=1, status=status,  # type: ignore[arg-type]
            passed=ok if scored else None, score=(100 if ok else 0) if scored else None,
        )  # fmt: skip

    records = [trial(c, k, "passed") for c in "cde" for k in ("base", "treat")]
    gate = Gate(
        min_pass_rate=1.0, ab=ABGate(treatment="treat", baseline="base", max_pass_rate_drop=1.0)
    )
    suite = aggregate(records, gate, run_id="r")
    assert suite.exit_code == 0 and suite.ab_gate is not None and suite.ab_gate.passed
    assert suite.exit_reason == (
        "every group passed its gate; A/B gate passed: pass-rate delta 0.000 over 3 complete "
        "pairs, 95% CI [-0.561, +0.561]; the lower bound is within the allowed drop of 1: passed"
    ), suite.exit_reason
    failing = aggregate([*records, trial("f", "treat", "failed")], gate, run_id="r")
    assert failing.exit_code == 1
    assert failing.exit_reason.startswith("gate failed for 1 group: f/a/treat; A/B gate passed")
    errors = aggregate([*records, trial("f", "treat", "agent-error")], gate, run_id="r")
    assert (
        errors.exit_code == 3
        and "error status; no scored group failed its gate; A/B gate passed: "
        in (errors.exit_reason)
    )


def excluded(record: TrialRecord) -> TrialRecord:
    record.annotation = TrialAnnotation(
        trial=f"c/a/default/{record.repeat}", verdict="excluded", note="wrong task", at="t"
    )
    return record


def test_a_group_whose_every_trial_was_left_out_is_not_gated() -> None:
    # Every trial of c excluded by hand (status skipped): no gate to pass, as any group whose
    # every trial was skipped.
    records = [
        excluded(rec("c", "skipped", None)),
        excluded(rec("c", "skipped", None, 2)),
        rec("d", "passed", 100),
    ]
    suite = aggregate(records, ALL_PASS, run_id="r")
    assert suite.exit_code == 0, suite.exit_reason
    assert [g.not_gated for g in suite.groups] == [True, False]


def test_excluding_the_crashed_trial_leaves_no_error_behind() -> None:
    """A crash a person left out (annotate --verdict excluded) no longer decides the exit
    code: the run passes if the rest does (it was exit 3 before; never exit 1)."""
    crashed = rec("c", "agent-error", None)
    assert aggregate([crashed, rec("d", "passed", 100)], ALL_PASS, run_id="r").exit_code == 3
    left_out = excluded(rec("c", "skipped", None))
    assert aggregate([left_out, rec("d", "passed", 100)], ALL_PASS, run_id="r").exit_code == 0


def test_a_trial_left_out_counts_in_no_rule_nor_metric() -> None:
    """excluded leaves a trial out of the statistics: its task rules and its evaluators'
    metrics too (the pass rate and the effort columns already)."""

    def task(repeat: int, fired: bool, metric: float) -> TrialRecord:
        record = rec("c", "passed", 100, repeat)
        record.process = ProcessMetrics(is_task=True)
        record.rules = [RuleResult(rule="unverified", fired=fired)]
        record.evaluators = [
            EvaluatorResult(use="command", passed=True, score=100, metrics={"lines": metric})
        ]
        return record

    records = [task(1, False, 1.0), task(2, False, 2.0), task(3, True, 90.0)]
    whole = aggregate(records, ALL_PASS, run_id="r").groups[0]
    assert (whole.tasks, whole.rule_counts["unverified"]) == (3, 1)
    assert whole.metrics["lines"].max == 90.0
    records[2] = excluded(records[2])
    records[2].status = "skipped"
    kept = aggregate(records, ALL_PASS, run_id="r").groups[0]
    assert (kept.tasks, kept.rule_counts["unverified"]) == (2, 0)
    assert kept.metrics["lines"].max == 2.0


def test_control_a_group_an_eval_skipped_is_no_failed_gate() -> None:
    records = [rec("c", "skipped", None), rec("d", "passed", 100)]  # t.skip: not left out by hand
    assert aggregate(records, ALL_PASS, run_id="r").exit_code == 0


def test_control_a_group_of_errors_or_of_unevaluated_trials_is_not_a_failed_gate() -> None:
    errored = [rec("c", "eval-error", None), rec("d", "passed", 100)]
    assert aggregate(errored, ALL_PASS, run_id="r").exit_code == 3
    unevaluated = rec("c", "skipped", None)
    unevaluated.reason = NOT_EVALUATED
    assert aggregate([unevaluated], ALL_PASS, run_id="r").exit_code == 0


def test_an_unevaluated_trial_says_why_and_one_an_older_proctor_wrote_still_reads_so() -> None:
    # An inline `--prompt` run without `--evaluate` has no evaluator to leave out: the reason
    # names it among the causes, not only the evaluator switches.
    assert "--prompt without --evaluate" in NOT_EVALUATED
    older = rec("c", "skipped", None)
    older.reason = "not evaluated: the run's switches left out every evaluator of this case"
    suite = aggregate([older], ALL_PASS, run_id="r")
    assert suite.exit_code == 0
    assert suite.exit_reason.startswith("not evaluated: 1 trial ran and was recorded")


def test_an_older_records_reason_naming_every_cause_still_reads_as_not_evaluated() -> None:
    """An older proctor gave every trial it did not evaluate one reason listing all causes;
    a trial now names its own, and both read as not evaluated."""
    from proctor.models.trial import not_evaluated, not_evaluated_cause

    assert not_evaluated_cause(NOT_EVALUATED) is not None
    assert not_evaluated_cause(not_evaluated("--no-evaluate")) == "--no-evaluate"
    assert not_evaluated_cause("not evaluated by me") is None  # an eval's own t.skip
    for reason in (NOT_EVALUATED, not_evaluated("--prompt without --evaluate")):
        trial = rec("c", "skipped", None)
        trial.reason = reason
        suite = aggregate([trial], ALL_PASS, run_id="r")
        assert suite.exit_reason.startswith("not evaluated: 1 trial ran and was recorded")


def test_an_unevaluated_run_is_not_failed_by_its_ab_gate() -> None:
    from proctor.models.config import ABGate

    records = []
    for condition in ("base", "treat"):
        trial = rec("c", "skipped", None)
        trial.condition, trial.reason = condition, NOT_EVALUATED
        records.append(trial)
    gate = Gate(min_pass_rate=1.0, ab=ABGate(treatment="treat", baseline="base"))
    suite = aggregate(records, gate, run_id="r")
    assert suite.exit_code == 0 and suite.exit_reason.startswith("not evaluated")


def test_pass_rate_intervals_are_wilson_and_never_a_point() -> None:
    # 3 of 3 passed: the interval says the rate may be as low as 44%, not [100%, 100%].
    records = [rec("c", "passed", 100, i) for i in range(1, 4)]
    suite = aggregate(records, ALL_PASS, run_id="r")
    for ci in (suite.groups[0].pass_rate_ci, suite.totals.pass_rate_ci):
        assert ci is not None and (round(ci.low, 4), ci.high) == (0.4385, 1.0)


def test_the_figures_do_not_depend_on_the_order_the_records_come_in() -> None:
    # A run hands its records over in plan order (conditions rotating); `proctor report` reads
    # them back in path order: both must give the same figures (a bootstrap picks by index).
    rng = random.Random(0)
    for _ in range(20):
        records = [
            rec(case, rng.choice(["passed", "failed"]), 1.0, repeat).model_copy(
                update={"condition": condition}
            )
            for case in ("a", "b")
            for repeat in range(1, 5)
            for condition in ("x", "y")
        ]
        by_path = sorted(records, key=lambda r: (r.case, r.condition, r.repeat))
        one = aggregate(records, ALL_PASS, run_id="r")
        other = aggregate(by_path, ALL_PASS, run_id="r")
        assert one.totals.model_dump() == other.totals.model_dump()


def test_effort_spreads_leave_out_crashes_and_unknown_times() -> None:
    records = []
    for i, (status, calls) in enumerate([("passed", 3), ("passed", 3), ("agent-error", 9)], 1):
        r = rec("c", status, 100 if status == "passed" else None, i)
        r.tool_calls = calls
        r.timings.agent_ms = 2000.0 if i == 1 else 0.0
        records.append(r)
    records[1].timings.total_ms = 0.0
    g = aggregate(records, ALL_PASS, run_id="r").groups[0]
    assert (g.effort.tool_calls.n, g.effort.tool_calls.max) == (2, 3)  # the crash's 9 left out
    # The second trial's time is unknown: left out, not counted as 0 s.
    assert (g.effort.elapsed_seconds.n, g.effort.elapsed_seconds.min) == (1, 2.0)


def test_effort_cost_leaves_out_trials_whose_cost_was_not_collected() -> None:
    """Under --no-collect-cost a trial's cost is unknown (its costUsd null), though its
    process metrics priced its trajectory: the group's cost spread must not show it as known."""
    records = []
    for i, collected in enumerate([True, False, False], 1):
        r = rec("c", "passed", 100, i)
        r.process = ProcessMetrics(effort=Effort(cost=0.25 * i))
        r.cost = CostInfo(total_usd=0.25 * i) if collected else CostInfo(collected=False)
        records.append(r)
    g = aggregate(records, ALL_PASS, run_id="r").groups[0]
    assert (g.effort.cost.n, g.effort.cost.median) == (1, 0.25)
    g = aggregate(records[1:], ALL_PASS, run_id="r").groups[0]
    assert g.cost_usd is None and g.effort.cost.n == 0 and g.effort.cost.median is None
