"""The pieces of a trial that need no running agent: its first message, labels, prices,
the question a turn ended with, session-file copies and the verdict's reason."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from proctor.agents.base import AgentAdapter, Launch, Question
from proctor.drive.policy import classify_turn_end
from proctor.models.trajectory import Event, ModelUsage, Trajectory
from proctor.models.trial import CaseLabels, CostInfo, EvaluatorResult, QuestionRecord
from proctor.plan.resolve import TrialSpec

if TYPE_CHECKING:
    from proctor.llm.roles import RoleSet


def price_usage(
    usage: dict[str, ModelUsage], pricing: dict[str, tuple[float, float, float, float]]
) -> CostInfo:
    """Dollars per model from per-million prices (input, output, cache read, cache write)."""
    cost = CostInfo()
    total = 0.0
    for model, u in usage.items():
        price = pricing.get(model)
        if price is None and (model == "scripted" or model.startswith("scripted/")):
            price = (0.0, 0.0, 0.0, 0.0)  # proctor's own scripted agent and model cost nothing
        if price is None:
            cost.by_model[model] = None
            cost.unpriced.append(model)
            continue
        usd = (
            u.input_tokens * price[0]
            + u.output_tokens * price[1]
            + u.cache_read_tokens * price[2]
            + u.cache_write_tokens * price[3]
        ) / 1_000_000
        cost.by_model[model] = round(usd, 6)
        total += usd
    cost.total_usd = None if cost.unpriced else round(total, 6)
    return cost


MAX_FOLLOWUPS = 3


def turn_end_question(
    adapter: AgentAdapter, launch: Launch, roles: RoleSet | None
) -> Question | None:
    """The free-text question the agent ended its turn with, if it did."""
    if launch.transcript is None or not launch.transcript.exists():
        return None
    events = adapter.parse(launch.transcript).events
    last_user = max((i for i, e in enumerate(events) if e.type == "user_message"), default=-1)
    texts = [e.text for e in events[last_user + 1 :] if e.type == "assistant_text" and e.text]
    if not texts:
        return None
    is_question, _how = classify_turn_end(texts[-1], roles)
    return Question(texts[-1].strip()) if is_question else None


def copy_session_files(files: list[Path], dest: Path) -> None:
    """Copy every native file of the session byte for byte, keeping names unique."""
    dest.mkdir(parents=True, exist_ok=True)
    for i, path in enumerate(files):
        target = dest / path.name
        if target.exists():
            target = dest / f"{i}-{path.name}"
        shutil.copyfile(path, target)


def trial_prompt(spec: TrialSpec) -> str:
    """The first message: the condition's prompt prefix, then the case prompt."""
    prompt = spec.case.case.prompt.strip()
    prefix = spec.variant.prompt_prefix
    return f"{prefix.rstrip()}\n\n{prompt}" if prefix else prompt


def case_labels(spec: TrialSpec) -> CaseLabels:
    c = spec.case.case.config
    return CaseLabels(
        repository=c.repository,
        category=c.category,
        framework=c.framework,
        language=c.language,
        bucket=c.bucket,
        goal_shape=c.goal_shape,
    )


def verdict_reason(
    passed: bool, score: float, threshold: float, results: list[EvaluatorResult]
) -> str:
    failed_gates = [r for r in results if r.gate and not r.passed]
    if failed_gates:
        return "gate failed: " + "; ".join(f"{r.use}: {r.message}" for r in failed_gates)
    if passed:
        return f"score {score:g} >= {threshold:g}"
    failing = [f"{r.use}: {r.message}" for r in results if not r.passed]
    return f"score {score:g} < {threshold:g}" + (" (" + "; ".join(failing) + ")" if failing else "")


USAGE_FIELDS = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens")


def usage_check(parsed: dict[str, ModelUsage], reported: dict[str, Any]) -> dict[str, Any]:
    """Compare the transcript's token counts with the CLI's own totals (Claude Code's
    ``modelUsage``, Codex's ``turn.completed``); differences are recorded, never corrected."""
    differences: dict[str, dict[str, int]] = {}
    for model in sorted(set(parsed) | set(reported)):
        ours = parsed.get(model, ModelUsage()).model_dump(by_alias=True)
        theirs = reported.get(model) or {}
        diff = {f: int(theirs.get(f, 0)) - int(ours.get(f, 0)) for f in USAGE_FIELDS}
        diff = {f: d for f, d in diff.items() if d}
        if diff:
            differences[model] = diff
    return {"reported": reported, "differences": differences, "ok": not differences}


def merge_questions(trajectory: Trajectory, questions: list[QuestionRecord]) -> None:
    """Every question becomes trajectory events: mid-turn ones already are (the agent's
    question tool); their answers get the policy. A question the agent ended its turn with
    gets ``question`` and ``answer`` events right after that message."""
    mid_turn = iter(q for q in questions if q.where == "mid-turn")
    for event in trajectory.events:
        if event.type == "answer":
            asked = next(mid_turn, None)
            if asked is not None:
                event.policy = asked.policy
    start = 0
    for asked in (q for q in questions if q.where == "turn-end"):
        events = trajectory.events
        wanted = asked.question.strip()
        at = next(
            (
                i
                for i in range(start, len(events))
                if events[i].type == "assistant_text" and (events[i].text or "").strip() == wanted
            ),
            len(events) - 1,
        )
        start = at + 3
        ts = events[at].ts if events else None
        events[at + 1 : at + 1] = [
            Event(type="question", ts=ts, text=asked.question, options=asked.options or None),
            Event(type="answer", ts=ts, text=asked.answer, policy=asked.policy),
        ]
