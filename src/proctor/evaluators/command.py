"""``command``: run a case-authored shell line in the workspace and check its exit code."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from proctor.evaluators.base import (
    EvaluationContext,
    EvaluatorParams,
    error_result,
    register,
    run_logged,
    scored_result,
)
from proctor.models.case import EvaluatorSpec
from proctor.models.trial import EvaluatorResult


class CommandParams(EvaluatorParams):
    run: str = Field(min_length=1)
    expect_exit: int = 0
    timeout_sec: float = Field(default=300.0, gt=0)


@register
class Command:
    name: ClassVar[str] = "command"
    Params: ClassVar[type[EvaluatorParams]] = CommandParams

    def evaluate(self, spec: EvaluatorSpec, ctx: EvaluationContext) -> EvaluatorResult:
        params = CommandParams.of(spec)
        log = ctx.trial.evaluator_log(spec.index, spec.use)
        try:
            outcome = run_logged(
                ["/bin/sh", "-c", params.run],
                cwd=ctx.workspace,
                env=ctx.env,
                timeout=params.timeout_sec,
                log=log,
            )
        except OSError as exc:
            return error_result(spec, f"could not start /bin/sh: {exc}")
        rel = log.relative_to(ctx.trial.root).as_posix()
        if outcome.timed_out:
            return scored_result(
                spec,
                passed=False,
                message=f"`{params.run}` timed out after {params.timeout_sec:g}s",
                log=rel,
            )
        passed = outcome.returncode == params.expect_exit
        return scored_result(
            spec,
            passed=passed,
            message=f"`{params.run}` exited {outcome.returncode} (expected {params.expect_exit})",
            metrics={"exit_code": float(outcome.returncode)},
            log=rel,
            exitCode=outcome.returncode,
            outputTail=outcome.tail,
        )
