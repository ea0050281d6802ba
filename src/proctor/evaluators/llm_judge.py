"""``llm-judge``: a model scores the trial against the case's rubric.

A provider failure (quota, auth, network after retries) is an evaluator **error**: the trial
becomes ``eval-error`` and the run exits 3; it is never a low score. A malformed reply is retried
once, then it is an error too.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field

from proctor.evaluators.base import (
    MAX_TIMEOUT_SEC,
    CaseProblem,
    EvaluationContext,
    EvaluatorParams,
    error_result,
    register,
    scored_result,
)
from proctor.llm.client import ModelClient
from proctor.llm.failures import ProviderError
from proctor.llm.judge import (
    SYSTEM,
    ContextOverflow,
    Material,
    build_material,
    collect_artifacts,
    parse_verdict,
    perplexity_level,
)
from proctor.llm.refs import parse_ref
from proctor.models.case import EvaluatorSpec
from proctor.models.config import PathText
from proctor.models.trial import EvaluatorResult
from proctor.util.cutting import masked_head

JUDGE_TIMEOUT_SEC = 300.0
"""The default bound of an llm-judge's calls in all (a provider that takes the connection
and never answers would otherwise hold the trial four requests of 120 s each)."""
RETRY_NOTE = (
    "\n\nYour previous reply could not be used ({problem}). Reply with the JSON object only."
)


class JudgeParams(EvaluatorParams):
    rubric: PathText = "evaluation.md"
    artifacts: list[PathText] = []
    pass_threshold: float = Field(default=60.0, ge=0, le=100)
    model: str | None = None
    max_input_chars: int = Field(default=120_000, ge=1_000)
    max_output_tokens: int = Field(default=1_024, ge=16)
    timeout_sec: float = Field(default=JUDGE_TIMEOUT_SEC, gt=0, le=MAX_TIMEOUT_SEC)
    """The longest the judge's calls may take in all, their retries and waits included."""

    def case_problem(self, case_dir: Path) -> CaseProblem | None:
        given = "rubric" in self.model_fields_set
        problem = self._rubric_problem(case_dir, given)
        if problem is None:
            return None
        return CaseProblem("rubric" if given else "", problem)

    def _rubric_problem(self, case_dir: Path, given: bool) -> str | None:
        if not within_case(self.rubric):
            return (
                f"the rubric {self.rubric} is outside the case folder {case_dir}: name a file "
                "in it (what it holds is sent to the judge model)"
            )
        path = case_dir / self.rubric
        if path.is_dir():
            return (
                f"the rubric {self.rubric} is a folder in the case folder {case_dir}: name a file"
            )
        if not path.is_file():
            if not given:
                return (
                    f"the rubric {self.rubric} (the default, as 'rubric' is not given) is not "
                    f"in the case folder {case_dir}: write it there, or name the rubric's file "
                    "in 'rubric'"
                )
            return f"the rubric {self.rubric} is not in the case folder {case_dir}"
        try:  # read as every trial's judge reads it: one it cannot would fail them all
            path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            return f"the rubric {path} is not UTF-8 text ({exc.reason})"
        except OSError as exc:
            return f"the rubric {path} cannot be read ({exc.strerror or exc})"
        return None


def within_case(relative: str) -> bool:
    """A path that names something in the case folder as written: not absolute, no ``..``
    out of it (a link the case's author put in it is theirs to make)."""
    path = os.path.normpath(relative)
    return not os.path.isabs(path) and path != ".." and not path.startswith("../")


@register
class LlmJudge:
    name: ClassVar[str] = "llm-judge"
    Params: ClassVar[type[EvaluatorParams]] = JudgeParams
    model_backed: ClassVar[bool] = True
    """Its result comes from a model: a repeat check leaves it out (see docs/repeat-check.md)."""

    def evaluate(self, spec: EvaluatorSpec, ctx: EvaluationContext) -> EvaluatorResult:
        params = JudgeParams.of(spec)
        if not within_case(params.rubric):
            return error_result(spec, f"the rubric {params.rubric} is outside the case folder")
        rubric_path = ctx.case_dir / params.rubric
        try:
            rubric = rubric_path.read_text(encoding="utf-8")
        except OSError as exc:
            return error_result(spec, f"cannot read the rubric {rubric_path}: {exc.strerror}")
        except UnicodeDecodeError as exc:
            return error_result(spec, f"the rubric {rubric_path} is not UTF-8 text ({exc})")
        if ctx.roles is None or not (params.model or ctx.roles.has("judge")):
            return error_result(spec, "no judge model configured (models.judge or --judge-model)")
        ref = parse_ref(params.model, "llm-judge model") if params.model else None
        diff = ctx.trial.workspace_diff.read_text() if ctx.trial.workspace_diff.exists() else ""
        try:
            material = build_material(
                rubric,
                list(ctx.trajectory.events),
                collect_artifacts(ctx.workspace, params.artifacts),
                diff,
                params.max_input_chars,
            )
        except ContextOverflow as exc:
            return error_result(spec, f"context overflow: {exc}")
        client = ctx.roles.client("judge", ref)
        kept = client.deadline, client.out_of_time
        own = time.monotonic() + params.timeout_sec
        if client.deadline is None or own < client.deadline:  # an earlier one (the trial's) holds
            client.deadline = own
            client.out_of_time = (
                f"no verdict within the judge's timeoutSec ({params.timeout_sec:g} s)"
            )
        try:
            return self._judged(spec, params, client, material)
        finally:
            client.deadline, client.out_of_time = kept

    def _judged(
        self, spec: EvaluatorSpec, params: JudgeParams, client: ModelClient, material: Material
    ) -> EvaluatorResult:
        user = material.prompt
        details: dict[str, Any] = {"model": str(client.ref), "truncation": material.truncation}
        verdict = None
        problem = ""
        for attempt in (1, 2):
            try:
                reply = client.complete(
                    SYSTEM, user, max_tokens=params.max_output_tokens, logprobs=True
                )
            except ProviderError as exc:
                hint = "; raise the evaluator's maxOutputTokens" if exc.token_limit else ""
                return error_result(spec, f"judge {client.ref} failed: {exc}{hint}", **details)
            try:
                verdict = parse_verdict(reply.text)
                break
            except ValueError as exc:
                problem = str(exc)
                details[f"malformedReply{attempt}"] = masked_head(reply.text, 500)
                user = material.prompt + RETRY_NOTE.format(problem=problem)
        if verdict is None:
            return error_result(
                spec, f"judge {client.ref}'s reply unusable after one retry: {problem}", **details
            )
        score = float(verdict["score"])
        perplexity = perplexity_level(reply.logprobs)
        metrics = {"score": score, "confidenceLevel": float(verdict["confidenceLevel"])}
        if perplexity is not None:
            metrics["perplexityLevel"] = perplexity
        else:
            details["perplexityUnavailable"] = str(client.ref)
        return scored_result(
            spec,
            passed=score >= params.pass_threshold,
            score=score,
            message=f"judge scored {score:g} (pass at >= {params.pass_threshold:g})",
            metrics=metrics,
            rationale=_kept(verdict["rationale"]),
            **details,
        )


RATIONALE_CHARS = 8_000
"""The most of a judge's rationale a trial keeps (it is asked for two to five sentences): a
gateway or a local model that writes megabytes would make ``trial.json`` that large."""


def _kept(rationale: str) -> str:
    """The rationale as a trial keeps it: masked whole before any cut (a key across the cut
    would keep its first part), then cut when longer than :data:`RATIONALE_CHARS`."""
    if len(rationale) <= RATIONALE_CHARS:
        return rationale
    return f"{masked_head(rationale, RATIONALE_CHARS)}… (cut: {len(rationale):,} characters in all)"
