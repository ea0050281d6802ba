"""Per-group statistics beyond pass rates: pass@k, confidence intervals, effort, task rules."""

from __future__ import annotations

from collections.abc import Sequence

from proctor.models.pricing import merge_costs
from proctor.models.process import RULE_NAMES
from proctor.models.suite import (
    CI,
    EffortStats,
    OutcomeRate,
    OutcomeRates,
    SourceTimes,
    SourceUsage,
    Spread,
)
from proctor.models.trajectory import ModelUsage
from proctor.models.trial import SCORED_STATUSES, TrialRecord
from proctor.report.ab.measures import (
    abandoned,
    elapsed_seconds,
    excluded_by_hand,
    file_hit,
    patch_in_area,
    search_steps,
    symbol_hit,
    total_tokens,
    wrong_context,
)
from proctor.stats import (
    Interval,
    expanded_bootstrap_ci,
    median,
    pass_at_k_table,
    pass_hat_k_table,
)
from proctor.stats.rates import wilson_interval

BOOTSTRAP_SEED = 0


def ci(interval: Interval | None) -> CI | None:
    if interval is None:
        return None
    return CI(
        low=round(interval.low, 6), high=round(interval.high, 6), confidence=interval.confidence
    )


def rate_ci(successes: int, n: int) -> CI | None:
    """The 95% Wilson score interval of a rate, ``successes`` of ``n`` (None when n is 0):
    it never shrinks to a point, as a bootstrap of the outcomes would for a group whose every
    trial passed (or failed)."""
    found = wilson_interval(successes, n)
    if found is None:
        return None
    return CI(low=round(found[0], 6), high=round(found[1], 6), confidence=0.95)


def spread(values: Sequence[float]) -> Spread:
    """Median and range; ``n=0`` and None fields for no values."""
    if not values:
        return Spread()
    return Spread(n=len(values), median=median(values), min=min(values), max=max(values))


def effort_stats(records: Sequence[TrialRecord]) -> EffortStats:
    """Median and range of elapsed seconds, tool calls, tokens and cost over the scored trials
    (passed, failed, timeout), as the A/B section and ``repeated`` take them: a crashed or
    errored trial's time and tokens describe the crash, not the agent's work. A trial whose
    time is unknown is left out of the time's spread, not counted as 0 s; one whose cost is
    unknown (a model without a price, or a run under ``--no-collect-cost``, whose trials
    priced no token) is left out of the cost's."""
    ran = [r for r in records if r.status in SCORED_STATUSES]
    costs = [
        r.process.effort.cost
        for r in ran
        if r.process and r.process.effort.cost is not None and r.cost.collected
    ]
    times = [t for t in map(elapsed_seconds, ran) if t is not None]
    return EffortStats(
        elapsed_seconds=spread(times),
        tool_calls=spread([float(r.tool_calls) for r in ran]),
        tokens=spread([float(total_tokens(r)) for r in ran]),
        cost=spread([float(c) for c in costs]),
    )


def rule_counts(records: Sequence[TrialRecord]) -> tuple[int, dict[str, int]]:
    """(trials that were tasks, how many of them fired each rule); a trial a person excluded
    (``annotate --verdict excluded``) is left out."""
    counts = dict.fromkeys(RULE_NAMES, 0)
    tasks = 0
    for r in records:
        if not r.process or not r.process.is_task:
            continue
        if excluded_by_hand(r):
            continue  # left out of the statistics by a person
        tasks += 1
        for rule in r.rules:
            if rule.fired:
                counts[rule.rule] = counts.get(rule.rule, 0) + 1
    return tasks, counts


def pass_k_tables(
    passes: int, scored: int, digits: int | None = 6
) -> tuple[dict[str, float], dict[str, float]]:
    """(pass@k, pass^k) for every k up to ``scored``, to ``digits`` decimals (None: as
    computed, for a mean of them to be rounded once, by :func:`mean_tables`)."""

    def kept(table: dict[int, float]) -> dict[str, float]:
        return {str(k): v if digits is None else round(v, digits) for k, v in table.items()}

    return kept(pass_at_k_table(scored, passes)), kept(pass_hat_k_table(scored, passes))


def outcome_cis(records: Sequence[TrialRecord]) -> tuple[CI | None, CI | None]:
    scored = [r for r in records if r.status in SCORED_STATUSES]
    outcomes = [r.status == "passed" for r in scored]
    scores = [r.score for r in scored if r.score is not None]
    return (
        rate_ci(sum(outcomes), len(outcomes)),
        # (None from fewer than two scores: one score is no interval.)
        ci(expanded_bootstrap_ci(scores, seed=BOOTSTRAP_SEED)),
    )


def mean_tables(tables: Sequence[dict[str, float]]) -> dict[str, float]:
    """The mean of each k over tables, for k present in every table (empty if none given), to
    six decimals: give it the tables as computed (``pass_k_tables(..., digits=None)``), not
    rounded already, or the mean could be off in its last decimal."""
    if not tables:
        return {}
    common = set.intersection(*(set(t) for t in tables))
    return {k: round(sum(t[k] for t in tables) / len(tables), 6) for k in sorted(common, key=int)}


def cost_rollup(records: Sequence[TrialRecord]) -> tuple[float | None, list[str]]:
    """(the trials' dollars in total, or None when a model they used has no price; the models
    without a price), by :mod:`proctor.models.pricing`'s rule."""
    return merge_costs([*(r.cost for r in records), *(a.cost for r in records for a in r.attempts)])


def source_rollup(records: Sequence[TrialRecord]) -> list[SourceUsage]:
    """Tokens and dollars per source (``agent``, or the harness role) × model. A cost is None
    as soon as one trial's dollars for that model are unknown."""
    rows: dict[tuple[str, str], SourceUsage] = {}

    def add(source: str, model: str, used: ModelUsage, dollars: float | None) -> None:
        row = rows.setdefault(
            (source, model), SourceUsage(source=source, model=model, cost_usd=0.0)
        )
        row.tokens.add(used)
        row.cost_usd = None if row.cost_usd is None or dollars is None else row.cost_usd + dollars

    for record in records:
        costs = record.cost.by_model if record.cost.collected else {}
        for model, used in record.usage.items():
            add("agent", model, used, costs.get(model))
        for key, used in record.harness_usage.items():
            role, _, model = key.partition(":")
            add(role, model or role, used, costs.get(key))
    for row in rows.values():
        if row.cost_usd is not None:
            row.cost_usd = round(row.cost_usd, 6)
    return [rows[key] for key in sorted(rows, key=lambda k: (k[0] != "agent", k))]


def source_times(records: Sequence[TrialRecord]) -> SourceTimes:
    times = SourceTimes()
    for record in records:
        t = record.timings
        times.agent_ms += t.agent_ms
        times.agent_pure_ms += t.agent_pure_ms
        times.harness_react_ms += t.harness_react_ms
        times.turns += t.turns_total
        times.question_turns += t.question_turns
        times.interruptions += t.interruptions
        for call in record.harness_calls:
            times.harness_model_ms[call.model] = times.harness_model_ms.get(call.model, 0.0) + (
                call.latency_ms
            )
    times.agent_ms = round(times.agent_ms, 3)
    times.agent_pure_ms = round(times.agent_pure_ms, 3)
    times.harness_react_ms = round(times.harness_react_ms, 3)
    times.harness_model_ms = {m: round(v, 3) for m, v in sorted(times.harness_model_ms.items())}
    return times


def _outcome(values: Sequence[float | None]) -> OutcomeRate:
    held = [v == 1.0 for v in values if v is not None]
    if not held:
        return OutcomeRate()
    return OutcomeRate(
        k=sum(held),
        n=len(held),
        rate=round(sum(held) / len(held), 6),
        ci=rate_ci(sum(held), len(held)),
    )


def outcome_rates(records: Sequence[TrialRecord]) -> OutcomeRates:
    """The outcome rates over the scored trials (see :mod:`proctor.report.ab.measures`)."""
    scored = [r for r in records if r.status in SCORED_STATUSES]
    searches = [s for s in (search_steps(r) for r in scored) if s is not None]
    return OutcomeRates(
        file_hit=_outcome([file_hit(r) for r in scored]),
        symbol_hit=_outcome([symbol_hit(r) for r in scored]),
        patch_in_area=_outcome([patch_in_area(r) for r in scored]),
        wrong_context=_outcome([wrong_context(r) for r in scored]),
        abandoned=_outcome([abandoned(r) for r in scored]),
        search_steps=spread(searches),
    )
