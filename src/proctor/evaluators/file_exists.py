"""``file-exists``: globs that must, or must not, match in the final workspace."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from pydantic import field_validator, model_validator

from proctor.evaluators.base import (
    EvaluationContext,
    EvaluatorParams,
    register,
    scored_result,
)
from proctor.models.case import EvaluatorSpec
from proctor.models.config import no_nul_path
from proctor.models.trial import EvaluatorResult
from proctor.util.globbing import glob_workspace


class FileExistsParams(EvaluatorParams):
    must: list[str] = []
    must_not: list[str] = []

    @field_validator("must", "must_not")
    @classmethod
    def _file_patterns(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            no_nul_path(pattern)
            path = Path(pattern)
            if not pattern.strip() or path.is_absolute() or ".." in path.parts or pattern == ".":
                raise ValueError(
                    f"{pattern!r} is not a pattern for files in the workspace "
                    "(give a relative glob such as 'src/*.py')"
                )
        return patterns

    @model_validator(mode="after")
    def _checks_something(self) -> FileExistsParams:
        if not self.must and not self.must_not:
            raise ValueError(
                "give 'must' or 'mustNot' (a list of globs): without either it checks nothing, "
                "and would always pass"
            )
        return self


@register
class FileExists:
    name: ClassVar[str] = "file-exists"
    Params: ClassVar[type[EvaluatorParams]] = FileExistsParams

    def evaluate(self, spec: EvaluatorSpec, ctx: EvaluationContext) -> EvaluatorResult:
        params = FileExistsParams.of(spec)
        missing = [g for g in params.must if not glob_workspace(ctx.workspace, g)]
        # Anything by that name counts against mustNot, wherever a symlink points.
        present = {g: glob_workspace(ctx.workspace, g, contained=False) for g in params.must_not}
        forbidden = {g: m for g, m in present.items() if m}
        checks = len(params.must) + len(params.must_not)
        failures = len(missing) + len(forbidden)
        score = 100.0 if checks == 0 else 100.0 * (checks - failures) / checks
        parts = []
        if missing:
            parts.append("missing: " + ", ".join(missing))
        if forbidden:
            parts.append(
                "present but forbidden: "
                + ", ".join(f"{', '.join(m[:5])} ({g})" for g, m in sorted(forbidden.items()))
            )
        return scored_result(
            spec,
            passed=failures == 0,
            score=score,
            message="; ".join(parts) or "all file checks hold",
            missing=missing,
            forbidden=forbidden,
        )
