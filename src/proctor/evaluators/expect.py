"""``expect``: the gates of evals written as code, for case folders, in ``config.json``.

``{"use": "expect", "gate": true, "checks": [{"calledTool": "shell", "status": "completed"},
{"notCalledTool": "web"}, {"noTestTampering": true}]}`` runs each check (see
:mod:`proctor.evaluators.gates.checks`) over the finished trial's trajectory and workspace diff.
It passes when every check passes; its score is the share that passed, and its details list each
check with whether it passed and why not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, Field

from proctor.agents.protocol import Question
from proctor.evaluators.base import (
    EvaluationContext,
    EvaluatorParams,
    register,
    scored_result,
)
from proctor.evaluators.gates.assertions import Assertion, Handle
from proctor.evaluators.gates.checks import parse_check
from proctor.evaluators.gates.snooping import ReadScope, scope_of_trial
from proctor.evaluators.gates.vocabulary import Gates
from proctor.models.case import EvaluatorSpec
from proctor.models.trajectory import AssistantText, Event
from proctor.models.trial import EvaluatorResult


def _valid_check(entry: Any) -> Any:
    parse_check(entry)
    return entry


class ExpectParams(EvaluatorParams):
    checks: list[Annotated[Any, AfterValidator(_valid_check)]] = Field(min_length=1)


class TrialGates(Gates):
    """The gate vocabulary over one finished trial."""

    def __init__(self, ctx: EvaluationContext) -> None:
        self.ctx = ctx
        self.assertions: list[Assertion] = []

    def _events(self) -> list[Event]:
        return list(self.ctx.trajectory.events)

    def _roots(self) -> tuple[str, ...]:
        root = self.ctx.workspace
        return tuple(dict.fromkeys((str(root), str(root.resolve()))))

    def _reply(self) -> str:
        texts = [
            e.text
            for e in self.ctx.trajectory.events
            if isinstance(e, AssistantText) and e.text and not e.sidechain
        ]
        return texts[-1] if texts else ""

    def _outcomes(self) -> list[tuple[bool, Question | None]]:
        return [(not self.ctx.timed_out, None)]

    def _record(self, assertion: Assertion) -> Handle:
        self.assertions.append(assertion)
        return Handle(assertion)

    def _diff(self) -> str | None:
        path = self.ctx.trial.workspace_diff
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None

    def _read_scope(self) -> ReadScope:
        return trial_scope(self.ctx)


def trial_scope(ctx: EvaluationContext) -> ReadScope:
    return scope_of_trial(ctx.workspace, ctx.trial.root, ctx.case_dir)


def copied_in(entries: Sequence[EvaluatorSpec]) -> list[str]:
    """What the case's ``command`` evaluators (``entries``, the case's evaluators as loaded)
    copy in after the agent finished (its hidden files): the globs ``"noHiddenReads": true``
    stands for. Read from the loaded entries, not the case folder's ``config.json``: a task of
    a ``tasks.json`` has none."""
    paths: list[str] = []
    for entry in entries:
        if entry.use == "command":
            listed = entry.params.get("copyIn", [])
            paths += [p for p in listed if isinstance(p, str)] if isinstance(listed, list) else []
    return paths


@register
class Expect:
    name: ClassVar[str] = "expect"
    Params: ClassVar[type[EvaluatorParams]] = ExpectParams

    def evaluate(self, spec: EvaluatorSpec, ctx: EvaluationContext) -> EvaluatorResult:
        params = ExpectParams.of(spec)
        gates = TrialGates(ctx)
        hidden = copied_in(ctx.case_evaluators)
        rows: list[dict[str, Any]] = []
        for index, entry in enumerate(params.checks):
            check = parse_check(entry, hidden)
            assertion = check.run(gates).assertion
            rows.append(
                {
                    "index": index,
                    "check": check.key,
                    "name": assertion.name,
                    "passed": assertion.passed,
                    "message": assertion.message,
                }
            )
        passed = sum(1 for row in rows if row["passed"])
        failed = [f"[{r['index']}] {r['name']}: {r['message']}" for r in rows if not r["passed"]]
        message = f"{passed} of {len(rows)} checks passed"
        return scored_result(
            spec,
            passed=not failed,
            score=100.0 * passed / len(rows),
            message=message + ("; failed " + "; ".join(failed) if failed else ""),
            metrics={"checks_passed": float(passed), "checks_total": float(len(rows))},
            checks=rows,
        )
