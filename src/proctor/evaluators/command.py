"""``command``: run a case-authored shell line in the workspace and check its exit code.

``copyIn`` names files or folders of the case folder (hidden tests, say) that are copied into the
workspace after the agent has finished, just before this evaluator runs; they stay there, so the
evaluators after it see them too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field, field_validator

from proctor.evaluators.base import (
    MAX_TIMEOUT_SEC,
    CaseProblem,
    EvaluationContext,
    EvaluatorParams,
    ProgramText,
    error_result,
    register,
    run_logged,
    scored_result,
)
from proctor.evaluators.copy_in import CopyInError, copy_in, copy_in_problem, relative_entry
from proctor.models.case import EvaluatorSpec
from proctor.models.trial import EvaluatorResult
from proctor.util.cutting import output_tail


class CommandParams(EvaluatorParams):
    run: ProgramText = Field(min_length=1)
    expect_exit: int = Field(default=0, ge=0, le=255)
    """The exit code that passes: a program's own, from 0 to 255."""
    timeout_sec: float = Field(default=300.0, gt=0, le=MAX_TIMEOUT_SEC)
    copy_in: list[str] = []
    """Case-folder paths copied into the workspace (same relative path) before the run."""

    @field_validator("copy_in")
    @classmethod
    def _relative(cls, entries: list[str]) -> list[str]:
        return [relative_entry(entry) for entry in entries]

    def case_problem(self, case_dir: Path) -> CaseProblem | None:
        found = copy_in_problem(case_dir, self.copy_in)
        return None if found is None else CaseProblem(f"copyIn[{found[0]}]", found[1])


@register
class Command:
    name: ClassVar[str] = "command"
    Params: ClassVar[type[EvaluatorParams]] = CommandParams

    def evaluate(self, spec: EvaluatorSpec, ctx: EvaluationContext) -> EvaluatorResult:
        params = CommandParams.of(spec)
        log = ctx.trial.evaluator_log(spec.index, spec.use)
        try:
            copied = copy_in(ctx.case_dir, ctx.workspace, params.copy_in)
        except (CopyInError, OSError) as exc:
            return error_result(spec, f"copyIn: {exc}")
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
        flooded = outcome.stopped_for_output()
        if flooded:
            # Like a timeout: the line misbehaved, whatever exit its kill gave it.
            return scored_result(
                spec,
                passed=False,
                message=f"`{params.run}` {flooded} (its log keeps the first and last 4 MiB)",
                log=rel,
                outputTail=output_tail(outcome),
            )
        if outcome.timed_out:
            return scored_result(
                spec,
                passed=False,
                message=f"`{params.run}` timed out after {params.timeout_sec:g}s",
                log=rel,
            )
        passed = outcome.returncode == params.expect_exit
        extra: dict[str, Any] = {"copiedIn": copied} if copied else {}
        return scored_result(
            spec,
            passed=passed,
            message=f"`{params.run}` exited {outcome.returncode} (expected {params.expect_exit})",
            metrics={"exit_code": float(outcome.returncode)},
            log=rel,
            exitCode=outcome.returncode,
            outputTail=output_tail(outcome),
            **extra,
        )
