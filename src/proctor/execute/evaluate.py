"""The fourth phase of a trial: every evaluator of the case over the finished trial, and the
tokens, calls and dollars of proctor's own model roles (the answerer, the judge)."""

from __future__ import annotations

from dataclasses import dataclass, field

from proctor.evaluators.base import EvaluationContext, error_result, get_evaluator
from proctor.execute.collect import Collected
from proctor.execute.context import TrialContext
from proctor.execute.driving import Driven
from proctor.execute.prepare import Prepared
from proctor.llm.roles import RoleSet
from proctor.metrics.effort import responses, spent_on
from proctor.models.case import EvaluatorSpec
from proctor.models.pricing import CostInfo, price_usage, total
from proctor.models.trajectory import ModelUsage, sum_usage
from proctor.models.trial import EvaluatorResult, HarnessCall


@dataclass(frozen=True)
class Evaluated:
    results: list[EvaluatorResult]
    harness_usage: dict[str, ModelUsage] = field(default_factory=dict)
    """Tokens of proctor's own model roles, keyed ``role:provider/model``."""
    harness_calls: list[HarnessCall] = field(default_factory=list)
    cost: CostInfo = field(default_factory=CostInfo)
    """The agent's dollars and the roles' together."""


def run_evaluators(
    ctx: TrialContext, prepared: Prepared, collected: Collected, driven: Driven | None
) -> list[EvaluatorResult]:
    spec = ctx.spec
    raw = ctx.paths.raw_transcript
    context = EvaluationContext(
        workspace=ctx.workspace,
        trial=ctx.paths,
        case_dir=spec.case.case.path,
        agent=spec.agent,
        trajectory=collected.trajectory,
        raw_transcript=raw if raw.exists() else None,
        env=prepared.env,
        timed_out=driven is not None and driven.outcome.kind == "timeout",
        roles=prepared.roles,
        case_evaluators=spec.case.evaluators,
    )
    return [evaluated(entry, context, spec.condition) for entry in spec.case.evaluators]


def evaluated(
    entry: EvaluatorSpec, context: EvaluationContext, condition: str | None = None
) -> EvaluatorResult:
    """One evaluator's result; an evaluator that crashed gives an errored result saying so.
    An evaluator the entry runs under other conditions only is not run: its result is there
    (the results stay in the order of the case's evaluators) and is not counted."""
    if entry.conditions and condition not in entry.conditions:
        return EvaluatorResult(
            use=entry.use,
            label=entry.label or None,
            passed=True,
            score=0.0,
            gate=entry.gate,
            weight=entry.weight,
            counted=False,
            message=f"not run under condition '{condition}' (it runs under "
            f"{', '.join(entry.conditions)})",
            details={"notRun": True},
        )
    try:
        result = get_evaluator(entry.use).evaluate(entry, context)
    except Exception as exc:
        return error_result(entry, f"evaluator crashed: {type(exc).__name__}: {exc}")
    # Named as the case names it, however the evaluator built its result.
    label = entry.label or None
    return result if result.label == label else result.model_copy(update={"label": label})


def harness_usage(roles: RoleSet | None) -> tuple[dict[str, ModelUsage], list[HarnessCall]]:
    """Every call of the trial's roles: tokens per ``role:provider/model`` and one record each."""
    made = roles.calls() if roles is not None else []
    if roles is not None:
        roles.reset_calls()
    usage = sum_usage(
        (
            f"{call.role}:{call.model}",
            ModelUsage(
                input_tokens=call.input_tokens,
                output_tokens=call.output_tokens,
                cache_read_tokens=call.cache_read_tokens,
                cache_write_tokens=call.cache_write_tokens,
                responses=1 if call.ok else 0,
            ),
        )
        for call in made
    )
    calls = [
        HarnessCall(
            role=call.role,
            model=call.model,
            input_tokens=call.input_tokens,
            output_tokens=call.output_tokens,
            latency_ms=round(call.latency_ms, 3),
            attempts=call.attempts,
            ok=call.ok,
            error=call.error,
        )
        for call in made
    ]
    return usage, calls


def evaluate(
    ctx: TrialContext, prepared: Prepared, collected: Collected, driven: Driven
) -> Evaluated:
    results = run_evaluators(ctx, prepared, collected, driven)
    usage, calls = harness_usage(prepared.roles)
    if ctx.spec.collect_cost:
        trajectory = collected.trajectory
        day = spent_on(trajectory.events)
        # The agent's responses at the agent's prices (none on the scripted model), the
        # harness's roles at the run's.
        agent = price_usage(
            trajectory.usage, ctx.spec.agent_pricing, responses(trajectory.events), day
        )
        rows = [
            (f"{call.role}:{call.model}", call.input_tokens, call.output_tokens, 0, 0, 0)
            for call in calls
        ]
        roles = price_usage(usage, ctx.spec.pricing, rows, day)
        by_model = {**agent.by_model, **roles.by_model}
        unpriced = [model for model, dollars in by_model.items() if dollars is None]
        cost = CostInfo(total_usd=total(by_model.values()), by_model=by_model, unpriced=unpriced)
    else:
        cost = CostInfo(collected=False)
    return Evaluated(results, usage, calls, cost)
