"""The third phase of a trial: what the session left behind. The native transcript copied byte
for byte and parsed into the trajectory (questions and the harness's answers merged in), the
terminal's screen and byte stream, the CLI's own token report checked against the transcript,
dollars, process metrics and task rules, and the workspace diff."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proctor.agents.base import AgentAdapter
from proctor.agents.protocol import Launch
from proctor.drive.driver import SessionLog
from proctor.drive.policy import split_options
from proctor.execute.context import TrialContext
from proctor.execute.driving import Driven
from proctor.execute.prepare import Prepared, shell_lines
from proctor.metrics import compute_process_metrics, evaluate_rules
from proctor.metrics.effort import responses, spent_on, tokens_by_model
from proctor.metrics.trace import build_steps
from proctor.metrics.traces import trace_metrics
from proctor.models.io import (
    copy_file_atomic,
    write_bytes_atomic,
    write_jsonl,
    write_text_atomic,
    write_trajectory,
)
from proctor.models.list_prices import CLAUDE_SUFFIXES, list_name
from proctor.models.pricing import CostInfo, price_usage
from proctor.models.process import ProcessMetrics, RuleResult
from proctor.models.trajectory import (
    AnswerEvent,
    AssistantText,
    Event,
    ModelUsage,
    QuestionEvent,
    ToolCall,
    Trajectory,
    sum_usage,
)
from proctor.models.trial import QuestionRecord, TokenCounts, TranscriptInfo, UsageCheck
from proctor.util.cutting import mask_wrapped
from proctor.util.terminal_masking import mask_terminal
from proctor.workspace.diff import workspace_diff

USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


@dataclass(frozen=True)
class Collected:
    trajectory: Trajectory
    transcript: TranscriptInfo
    usage_check: UsageCheck | None
    cost: CostInfo
    process: ProcessMetrics | None
    rules: list[RuleResult]


def copy_session_files(files: list[Path], dest: Path) -> None:
    """Copy every native file of the session (its own first) byte for byte, keeping names
    unique. A file in a folder under the session's file's folder keeps its path under it, as
    the CLI laid it out (a Claude Code session's ``<session>/subagents/``, a Gemini CLI chat's
    ``<session id>/``): a Gemini CLI subagent's chat names no session but by that folder, and
    ``proctor history`` reads the copies as one session with its subagents, as the trial did."""
    dest.mkdir(parents=True, exist_ok=True)
    base = files[0].parent if files else dest
    for i, path in enumerate(files):
        try:
            kept = path.relative_to(base)
        except ValueError:  # elsewhere (a Codex thread's rollout of another day): by name
            kept = Path(path.name)
        target = dest / kept
        if target.exists():
            target = target.parent / f"{i}-{path.name}"
        target.parent.mkdir(parents=True, exist_ok=True)
        copy_file_atomic(path, target)


def usage_check(parsed: dict[str, ModelUsage], reported: dict[str, dict[str, int]]) -> UsageCheck:
    """Compare the transcript's token counts with the CLI's own totals (Claude Code's
    ``modelUsage``, Codex's ``turn.completed``, Gemini CLI's ``stats``); differences are
    recorded, never corrected."""
    theirs = {model: TokenCounts.model_validate(row) for model, row in reported.items()}
    parsed = _as_reported(parsed, theirs)
    differences: dict[str, dict[str, int]] = {}
    for model in sorted(set(parsed) | set(theirs)):
        ours = parsed.get(model, ModelUsage())
        them = theirs.get(model, TokenCounts())
        diff = {
            TokenCounts.model_fields[f].alias or f: getattr(them, f) - getattr(ours, f)
            for f in USAGE_FIELDS
        }
        diff = {f: d for f, d in diff.items() if d}
        if diff:
            differences[model] = diff
    return UsageCheck(reported=theirs, differences=differences, ok=not differences)


def _as_reported(
    parsed: dict[str, ModelUsage], reported: dict[str, TokenCounts]
) -> dict[str, ModelUsage]:
    """The transcript's counts under the names the CLI reports them by: a Claude response
    served in fast mode counts for ``…-fast``, one whose inference ran in the US only for
    ``…-us`` (see :func:`~proctor.transcripts.claude.records.usage_model`); the CLI's own
    totals may count them for the model itself."""

    def named(model: str) -> str:
        if not list_name(model).startswith("claude-"):
            return model
        for suffix in CLAUDE_SUFFIXES:  # the outer one first: claude-opus-4-8-fast-us
            if model not in reported and model.endswith(suffix):
                model = model.removesuffix(suffix)
        return model

    if all(named(model) == model for model in parsed):
        return parsed
    return sum_usage((named(model), used) for model, used in parsed.items())


def _says(event: Event, text: str) -> bool:
    """Whether ``event`` is the message that asked ``text``: the question a turn-end record
    holds is the message without the list of options it ends with (:func:`split_options`)."""
    return isinstance(event, AssistantText) and split_options(event.text)[0] == text


def _normal(text: str | None) -> str:
    return " ".join((text or "").split()).casefold()


_WRAPPED_TAIL = 12
"""The shortest last line of a question wrapped on a terminal's screen that pairs it by text."""


def pair_answers(
    events: list[Event], records: list[QuestionRecord]
) -> list[tuple[AnswerEvent, QuestionRecord]]:
    """Each transcript ``answer`` event with the question record it answers: by tool call id
    and question text where both have an id (a call that asks several questions gives a
    ``question`` and an ``answer`` event for each, in the same order, all with its id); then
    by tool call id alone; else by question text (its ``question`` event's, whitespace and
    case aside); else in order among the records of the same kind (a permission prompt's
    answer is a tool call's, as over ACP). A record nothing answered in the transcript (a
    terminal's approval or permission prompt) takes no answer event; one with an id takes
    none by order."""
    asked: dict[str, list[str]] = {}
    for event in events:
        if isinstance(event, QuestionEvent) and event.id:
            asked.setdefault(event.id, []).append(_normal(event.text))
    # A permission's answer is a call's of another kind than the agent's question tool (whose
    # call, question and answer events share one id): a tool call's over ACP.
    calls = {e.id for e in events if isinstance(e, ToolCall) and e.id and e.kind != "question"}
    answers = [e for e in events if isinstance(e, AnswerEvent)]
    # The question each answer event answers: its call's next one (or last one, for a call
    # answered more times than it asked).
    seen: dict[str, int] = {}
    questions: list[str | None] = []
    for answer in answers:
        key = answer.id or ""
        texts, at = asked.get(key), seen.get(key, 0)
        seen[key] = at + 1
        questions.append(texts[min(at, len(texts) - 1)] if texts else None)
    pairs: dict[int, QuestionRecord] = {}

    def asks(record: QuestionRecord, index: int) -> bool:
        text, said = questions[index], _normal(record.question)
        # A question wrapped on screen is read from its last line there.
        wrapped = text is not None and len(said) >= _WRAPPED_TAIL and text.endswith(" " + said)
        return text == said or wrapped

    def by_id(record: QuestionRecord, index: int) -> bool:
        return record.tool_call_id is not None and answers[index].id == record.tool_call_id

    def by_id_and_text(record: QuestionRecord, index: int) -> bool:
        return by_id(record, index) and asks(record, index)

    def kind_of(answer: AnswerEvent) -> str:
        return "permission" if answer.id in calls else "question"

    def by_text(record: QuestionRecord, index: int) -> bool:
        answer = answers[index]
        if kind_of(answer) != record.kind:  # an approval worded as the question's end
            return False
        both_ids = record.tool_call_id and answer.id  # two ids that differ: two calls
        return not both_ids and asks(record, index)

    def by_kind(record: QuestionRecord, index: int) -> bool:
        return record.tool_call_id is None and kind_of(answers[index]) == record.kind

    rest = records
    for fits in (by_id_and_text, by_id, by_text, by_kind):
        unpaired = []
        for record in rest:
            found = next(
                (i for i in range(len(answers)) if i not in pairs and fits(record, i)), None
            )
            if found is None:
                unpaired.append(record)
            else:
                pairs[found] = record
        rest = unpaired
    return [(answers[i], record) for i, record in sorted(pairs.items())]


def merge_questions(trajectory: Trajectory, questions: list[QuestionRecord]) -> None:
    """Every question becomes trajectory events: mid-turn ones already are (the agent's
    question tool); their answers get the policy of the reply each was given (a question
    that parked the turn is recorded twice, left pending then answered: only the reply has
    an answer in the transcript), paired as :func:`pair_answers` does. A question the agent
    ended its turn with gets ``question`` and ``answer`` events right after that message."""
    replied = [q for q in questions if q.where == "mid-turn" and q.replied]
    for event, asked in pair_answers(trajectory.events, replied):
        event.policy = asked.policy
    start = 0
    for asked in (q for q in questions if q.where == "turn-end"):
        events = trajectory.events
        wanted = asked.question.strip()
        at = next(
            (i for i in range(start, len(events)) if _says(events[i], wanted)), len(events) - 1
        )
        start = at + 3
        ts = events[at].ts if events else None
        events[at + 1 : at + 1] = [
            QuestionEvent(ts=ts, text=asked.question, options=asked.options or None),
            AnswerEvent(ts=ts, text=asked.answer, policy=asked.policy),
        ]


def process_metrics(
    ctx: TrialContext, trajectory: Trajectory
) -> tuple[ProcessMetrics, list[RuleResult]]:
    spec = ctx.spec
    config = spec.case.case.config
    workspace = str(ctx.workspace)
    metrics = compute_process_metrics(
        trajectory.events,
        expected_files=config.expected_files,
        expected_symbols=config.expected_symbols,
        config=spec.metrics,
        workspace=workspace,
        pricing=spec.agent_pricing,
    )
    if config.expected_traces:
        steps = build_steps(trajectory.events, workspace)
        traces = trace_metrics(steps, config.expected_traces, workspace)
        metrics = metrics.model_copy(update={"traces": traces})
    return metrics, evaluate_rules(metrics, spec.metrics)


def read_transcript(
    adapter: AgentAdapter[Any], launch: Launch[Any], ctx: TrialContext
) -> tuple[Trajectory, TranscriptInfo]:
    paths = ctx.paths
    files = adapter.transcript_files(launch)
    trajectory = Trajectory(format=adapter.transcript_format)
    info = TranscriptInfo(format=adapter.transcript_format)
    if files:
        copy_file_atomic(files[0], paths.raw_transcript)
        if len(files) > 1:
            copy_session_files(files, paths.transcript_dir)
        trajectory = adapter.parse(paths.raw_transcript if len(files) == 1 else files[0])
        adapter.annotate(trajectory, launch)
        info.source = str(files[0])
        info.raw = paths.raw_transcript.name
    return trajectory, info


def keep_terminal(ctx: TrialContext, log: SessionLog) -> None:
    """``screen.log`` and ``terminal.raw`` of a terminal session, each written atomically."""
    if log.terminal or log.screen:
        # A key the terminal wrapped over two lines, or the stream split with escapes, is
        # masked here: the trial folder's own masking finds whole keys only.
        write_text_atomic(ctx.paths.screen_log, mask_wrapped(log.screen))
        write_bytes_atomic(ctx.paths.terminal_raw, mask_terminal(log.terminal))


def read_session(
    ctx: TrialContext, adapter: AgentAdapter[Any], launch: Launch[Any], log: SessionLog
) -> tuple[Trajectory, TranscriptInfo]:
    """The terminal, the native transcript and its trajectory, and the questions, kept in the
    trial folder (each file written atomically)."""
    paths = ctx.paths
    keep_terminal(ctx, log)
    if log.questions:
        write_jsonl(paths.questions, log.questions)
    trajectory, info = read_transcript(adapter, launch, ctx)
    merge_questions(trajectory, log.questions)
    write_trajectory(paths.trajectory, trajectory.events)
    info.trajectory = paths.trajectory.name
    info.events = len(trajectory.events)
    info.coverage = trajectory.coverage
    return trajectory, info


def keep_cut_short(
    ctx: TrialContext, adapter: AgentAdapter[Any], launch: Launch[Any], log: SessionLog
) -> tuple[Trajectory, TranscriptInfo] | None:
    """What a session cut short (Ctrl-C, SIGTERM, a driver that raised) left, so that its
    folder shows what the agent did and showed until then: the terminal, the transcript and
    its trajectory, the questions. Nothing is evaluated, and the workspace is neither diffed
    nor kept (``--resume`` runs the trial again in a fresh one). Each part that cannot be
    kept is left out; the trajectory (whose tokens the record counts) and the transcript's
    description, or None when it was not read."""
    try:
        return read_session(ctx, adapter, launch, log)  # the terminal first, then the rest
    except Exception:
        return None


def cut_short_cost(ctx: TrialContext, trajectory: Trajectory) -> CostInfo:
    """What the tokens a session cut short spent until then cost (see :func:`collect`)."""
    return price_usage(
        trajectory.usage,
        ctx.spec.agent_pricing,
        responses(trajectory.events),
        spent_on(trajectory.events),
    )


def _reported_part(trajectory: Trajectory, adapter: AgentAdapter[Any]) -> dict[str, ModelUsage]:
    """The tokens of the transcript that the CLI's own report covers: all of them, or only the
    main thread's when the CLI reports its subagents' apart (Codex)."""
    if adapter.reports_subagent_usage:
        return trajectory.usage
    return tokens_by_model([e for e in trajectory.events if not e.sidechain])


def reclaim_workspace(workspace: Path) -> str | None:
    """Make ``workspace`` a real, empty folder again when the agent removed it or put a link
    (or a file) in its place, and say so; None when it is still the folder it was given.

    Evaluators, hidden tests copied in and the diff all work in the workspace: through a link
    they would work wherever it leads, outside the trial, and count what they found there as
    the agent's. Read as empty, the workspace fails whatever checks its files."""
    if workspace.is_dir() and not workspace.is_symlink():
        return None
    if workspace.is_symlink():
        left = f"a link to {os.readlink(workspace)}"
        workspace.unlink()
    elif workspace.exists():
        left = "a file"
        workspace.unlink()
    else:
        left = "nothing"
    workspace.mkdir()
    return (
        f"Workspace replaced: the agent left {left} where its workspace folder was; the "
        "workspace is read as empty"
    )


def collect(ctx: TrialContext, prepared: Prepared, driven: Driven) -> Collected:
    paths, log = ctx.paths, driven.log
    trajectory, info = read_session(ctx, prepared.adapter, driven.launch, log)
    replaced = reclaim_workspace(ctx.workspace)
    diff = workspace_diff(prepared.before, ctx.workspace)
    write_text_atomic(paths.workspace_diff, f"{replaced}\n{diff}" if replaced else diff)
    process, rules = process_metrics(ctx, trajectory)
    shell_lines(ctx, prepared.env, "teardown", ctx.spec.case.teardown, fatal=False)
    return Collected(
        trajectory=trajectory,
        transcript=info,
        # Not when proctor stopped the agent mid-turn (its step budget): the CLI never reported
        # the stopped turn's tokens, and the check would compare incomplete totals.
        usage_check=usage_check(_reported_part(trajectory, prepared.adapter), log.reported_usage)
        if log.reported_usage and log.stopped is None
        else None,
        cost=price_usage(
            trajectory.usage,
            ctx.spec.agent_pricing,
            responses(trajectory.events),
            spent_on(trajectory.events),
        ),
        process=process,
        rules=rules,
    )
