"""``trial.json``: everything known about one trial (case × agent × condition × repeat)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from proctor.models.audit import AuditReport
from proctor.models.base import CamelModel, RecordModel
from proctor.models.pricing import CostInfo
from proctor.models.process import ProcessMetrics, RuleResult
from proctor.models.trajectory import TRAJECTORY_SCHEMA_VERSION, ModelUsage, ParseCoverage

TrialStatus = Literal[
    "passed", "failed", "timeout", "agent-error", "infra-error", "eval-error", "skipped"
]

#: Statuses that count in pass rates (a timeout is a failure).
SCORED_STATUSES: frozenset[str] = frozenset({"passed", "failed", "timeout"})
#: Statuses excluded from pass rates and score statistics, reported separately.
ERROR_STATUSES: frozenset[str] = frozenset({"agent-error", "infra-error", "eval-error"})
#: How the reason of a trial that a stopped run cut short begins: ``--resume`` runs it again.
INTERRUPTED_PREFIX = "interrupted:"
NOT_EVALUATED_PREFIX = "not evaluated: the run was told not to evaluate this case ("
"""How the reason of a ``skipped`` trial that ran but was not evaluated (``--no-evaluate``,
``--only-evaluator``, ``--skip-evaluator``, an inline ``--prompt`` run without ``--evaluate``)
begins; :func:`not_evaluated` ends it with the one cause that applied."""
EVERY_NOT_EVALUATED_CAUSE = (
    "--no-evaluate, --only-evaluator/--skip-evaluator leaving none of its evaluators, or "
    "--prompt without --evaluate"
)
"""Every cause that leaves a case not evaluated, as an older proctor named them all, not
knowing which one applied."""
NOT_EVALUATED = f"{NOT_EVALUATED_PREFIX}{EVERY_NOT_EVALUATED_CAUSE})"
"""The reason an older proctor gave every trial it ran but did not evaluate, whatever the
cause: its records still read as not evaluated."""
BY_HAND = "(a session driven by a person, recorded)"
"""The end of the reason of a trial ``proctor record`` wrote (a session a person drove)."""
NOT_EVALUATED_HERE = (
    "not evaluated: every evaluator of this case runs under other conditions (the "
    "'conditions' of its entries)"
)
"""The reason of a ``skipped`` trial whose condition none of its case's evaluators runs under:
nothing judged it, and a pass would inflate its condition's pass rate."""
_OLDEST_NOT_EVALUATED = "not evaluated: the run's switches left out every evaluator of this case"
NOT_EVALUATED_REASONS: frozenset[str] = frozenset(
    {NOT_EVALUATED, NOT_EVALUATED_HERE, _OLDEST_NOT_EVALUATED}
)
"""The whole reasons a trial not evaluated has carried (an older proctor wrote the first and
the last); :func:`not_evaluated_cause` reads these and the ones :func:`not_evaluated` writes."""


def not_evaluated(cause: str) -> str:
    """The reason of a trial the run was told not to evaluate, naming the one ``cause`` that
    applied (``--no-evaluate``, ``--prompt without --evaluate``)."""
    return f"{NOT_EVALUATED_PREFIX}{cause})"


def not_evaluated_cause(reason: str | None) -> str | None:
    """Why a trial ran but was not evaluated, as its reason says (an older record's reason
    names every possible cause); None for a reason of any other trial."""
    if reason is None:
        return None
    if reason == NOT_EVALUATED_HERE:
        return "every evaluator of its case runs under other conditions"
    if reason == _OLDEST_NOT_EVALUATED:
        return "the run's switches left out every evaluator of its case"
    if reason.startswith(NOT_EVALUATED_PREFIX) and reason.endswith(")"):
        return reason[len(NOT_EVALUATED_PREFIX) : -1]
    return None


ALL_STATUSES: tuple[str, ...] = (
    "passed",
    "failed",
    "timeout",
    "agent-error",
    "infra-error",
    "eval-error",
    "skipped",
)


class EvaluatorResult(CamelModel):
    use: str
    label: str | None = None
    """The case's evaluator entry's ``label``, the name findings and reports give its check;
    None when the entry has none (and in records written before it was kept)."""
    passed: bool
    score: float = Field(ge=0, le=100)
    gate: bool = False
    weight: float = 1.0
    error: bool = False
    metrics: dict[str, float] = {}
    details: dict[str, Any] = {}
    message: str = ""
    counted: bool = True
    """False when the evaluator only reported named metrics (an ``external`` program without
    ``scoreMetric``): the metrics are recorded and rolled up, the verdict ignores the result."""


class ErrorInfo(CamelModel):
    type: str
    message: str
    traceback: str | None = None


class Timings(CamelModel):
    """Wall-clock milliseconds per phase of a trial."""

    prepare_ms: float = 0.0
    agent_ms: float = 0.0
    collect_ms: float = 0.0
    evaluate_ms: float = 0.0
    total_ms: float = 0.0
    harness_ms: float = 0.0
    """Time the harness spent outside the agent (total minus agent)."""
    agent_pure_ms: float = 0.0
    """The agent's own execution time: agent phase minus the harness's reaction time."""
    harness_react_ms: float = 0.0
    """Time the harness spent deciding answers while the agent waited (model calls included)."""
    turns_total: int = 0
    question_turns: int = 0
    """Turns that only answered a question the agent ended its previous turn with."""
    interruptions: int = 0
    """Questions and prompts the agent raised mid-turn (pickers, permission prompts, ask); of a
    session a person drove, the turns they interrupted (Esc or Ctrl-C in the CLI)."""
    started_at: str | None = None
    finished_at: str | None = None


class TranscriptInfo(CamelModel):
    format: str | None = None
    source: str | None = None
    """Where the agent wrote its native transcript (inside the scratch home)."""
    raw: str | None = None
    """Trial-relative path of the byte-for-byte copy."""
    trajectory: str | None = None
    trajectory_schema_version: int = TRAJECTORY_SCHEMA_VERSION
    """The schema of ``trajectory.jsonl``'s lines (see :mod:`proctor.models.trajectory`)."""
    events: int = 0
    coverage: ParseCoverage = Field(default_factory=ParseCoverage)


class CaseLabels(CamelModel):
    """What a case is about, for slicing reports (from task files or a case's config.json)."""

    repository: str | None = None
    category: str | None = None
    framework: str | None = None
    language: str | None = None
    bucket: str | None = None
    goal_shape: str | None = None


class HarnessCall(CamelModel):
    """One call proctor made to one of its own model roles."""

    role: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    latency_ms: float = 0.0
    attempts: int = 1
    ok: bool = True
    error: str | None = None


class TokenCounts(CamelModel):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


class UsageCheck(CamelModel):
    """The CLI's own token totals next to the transcript's, and their differences (theirs minus
    ours, per model and count; only counts that differ)."""

    reported: dict[str, TokenCounts] = {}
    differences: dict[str, dict[str, int]] = {}
    ok: bool = True


class AttemptRecord(CamelModel):
    """An earlier attempt of a trial that ended for a transient cause and was run again
    (``--retry-errors``); its files are kept in ``folder`` of the trial's folder."""

    status: str
    reason: str
    folder: str
    cost: CostInfo = Field(default_factory=CostInfo)
    """What the attempt cost (counted in the run's cost with the final attempt's)."""


class TrialAnnotation(CamelModel):
    """A person's mark on a trial (``proctor annotate``), kept in the run's
    ``annotations.json`` and applied when the run is read back."""

    trial: str
    """``case/agent/condition/repeat``."""
    verdict: Literal["failed", "excluded"]
    note: str
    at: str


class TrialRecord(RecordModel):
    case: str
    agent: str
    condition: str = "default"
    repeat: int
    status: TrialStatus
    passed: bool | None = None
    score: float | None = Field(default=None, ge=0, le=100)
    """The combined score, 0 to 100 (a NaN or an absurd number in an edited file is refused)."""
    reason: str = ""
    evaluators: list[EvaluatorResult] = []
    combiner: str = "gated-mean"
    pass_threshold: float = 60.0
    timings: Timings = Field(default_factory=Timings)
    usage: dict[str, ModelUsage] = {}
    transcript: TranscriptInfo = Field(default_factory=TranscriptInfo)
    exit_code: int | None = None
    cost: CostInfo = Field(default_factory=CostInfo)
    harness_usage: dict[str, ModelUsage] = {}
    """Tokens of proctor's own model roles, keyed ``role:provider/model``."""
    harness_calls: list[HarnessCall] = []
    """One entry per harness model call."""
    usage_check: UsageCheck | None = None
    """The CLI's own token totals next to the transcript's, and their differences."""
    reported_cost_usd: float | None = None
    """The cost the agent CLI reported itself (e.g. Claude Code's ``total_cost_usd``)."""
    questions: int = 0
    tool_calls: int = 0
    """The agent's tool calls; a search of its own tool list (Codex CLI's ``tool_search``,
    Claude Code's ``ToolSearch``) is not counted, as in ``process.steps.toolCalls``."""
    error: ErrorInfo | None = None
    workspace: str | None = None
    """Trial-relative path of the kept workspace, when it was kept."""
    agent_version: str | None = None
    secrets_masked: list[str] = []
    """Trial files in which a provider key was found and masked."""
    agent_model: str | None = None
    agent_effort: str | None = None
    tags: list[str] = []
    labels: CaseLabels = Field(default_factory=CaseLabels)
    process: ProcessMetrics | None = None
    """Process metrics, when a trajectory exists."""
    rules: list[RuleResult] = []
    """Task rules: unverified, long-orientation, rework, loops."""
    session_id: str | None = None
    """The agent's own session id (its transcript's), to find the session again."""
    self_report: dict[str, Any] | None = None
    """The JSON object the agent's final answer ended with, when the case asks for one
    (``selfReport`` in its config.json)."""
    self_report_missing: str | None = None
    """Why there is no ``selfReport`` although the case asked for one."""
    annotation: TrialAnnotation | None = None
    """A person's mark, applied when the run was read back (never written into trial.json)."""
    status_before_annotation: TrialStatus | None = None
    """The status the trial ended with, when a person's mark replaced it (set with
    ``annotation``, never written into trial.json): the findings ledger judges a trial by its
    own outcome, so a timeout annotated failed is still no evidence."""
    audit: AuditReport | None = None
    """What the agent had in its scratch home and workspace once provisioned (skills, hooks,
    plugins, MCP servers, rules, instruction files); None for the scripted agent."""
    warnings: list[str] = []
    """What the run noticed that decides nothing, such as plan steps no message reached."""
    attempts: list[AttemptRecord] = []
    """Earlier attempts that ended in a transient error and were run again (the record itself
    is the last attempt); empty when the trial ran once."""

    @classmethod
    def upgrade(cls, data: dict[str, Any], version: int) -> dict[str, Any]:
        """Version 1 had the same keys, untyped. Its trajectory lines were version 1, and its
        context metrics had no ``firstRelevantFile``: it is taken, as version 1 readers did,
        as the first expected file in the (sorted) files read."""
        transcript = data.get("transcript")
        if isinstance(transcript, dict):
            transcript.setdefault("trajectorySchemaVersion", 1)
        process = data.get("process")
        context = process.get("context") if isinstance(process, dict) else None
        if isinstance(context, dict) and "firstRelevantFile" not in context:
            expected = context.get("expectedFiles")
            read = context.get("filesRead")
            if context.get("firstRelevantStep") is not None and isinstance(read, list):
                wanted = set(expected) if isinstance(expected, list) else set()
                context["firstRelevantFile"] = next((f for f in read if f in wanted), None)
        return data


ANSWERED_BY_CONVERSATION = "answered by the conversation"
"""The ``rule`` of a question a test's (or a session's) next message answered."""


class QuestionRecord(RecordModel):
    """One line of ``questions.jsonl``. A question the policy left pending (it parked the
    turn) is one line, and the message that answered it later is another, of the same
    question."""

    question: str
    options: list[str] = []
    answer: str | None = None
    policy: Literal["rule", "model", "abort"]
    rule: str | None = None
    screen: str = ""
    latency_ms: float = 0.0
    where: Literal["mid-turn", "turn-end"] = "mid-turn"
    kind: Literal["question", "permission"] = "question"
    """``permission`` for a prompt to approve a tool call (a terminal's approval or permission
    prompt, an ACP permission request), ``question`` for one the agent asked."""
    tool_call_id: str | None = None
    """The tool call the question belongs to, when the agent's transcript names one: the
    trajectory's ``answer`` event of the same id is this question's answer."""
    model: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    reason: str = ""

    @property
    def replied(self) -> bool:
        """Whether the agent was given a reply: an answer, or (over ACP) the rejection the
        conversation's next message chose by naming none of the options. A question the
        policy left pending, or whose answer named none of a picker's options in a terminal,
        was given none: the agent still waits on it."""
        return self.answer is not None or (
            self.policy == "rule" and self.rule == ANSWERED_BY_CONVERSATION
        )


class EvalAssertionRecord(CamelModel):
    """One assertion of an eval's test, as ``eval.json`` keeps it."""

    name: str
    passed: bool
    soft: bool = False
    score: float | None = None
    """0–1 for a gate that measures something; None for a plain yes or no."""
    message: str = ""
    at: str | None = None
    """Where the test called the gate: ``FILE:LINE`` of the eval file."""


class EvalToolCall(CamelModel):
    """One tool call of an eval's conversation, in the order the agent made them."""

    tool_name: str
    """The agent's own name of the tool (``Bash``, ``exec_command``, ``run_shell_command``)."""
    is_error: bool = False
    kind: str | None = None
    """Its normalised kind (``shell``, ``read``, ``edit`` …), the same on every agent."""
    turn: int | None = None
    """The turn (1-based, the test's send) it was made in; None in a record written before
    proctor kept it."""


class EvalResultRecord(RecordModel):
    """``eval.json``, beside an eval's ``trial.json``: the case's assertions, logs, metrics and
    inputs as its test saw them."""

    id: str
    iteration: int
    assertions: list[EvalAssertionRecord] = []
    logs: list[str] = []
    metrics: dict[str, float] = {}
    inputs: list[str] = []
    """The messages the test sent, in order."""
    tool_calls: list[EvalToolCall] = []
    turn_outcomes: list[str] = []
    """How each turn ended: ``turn-end``, ``exited``, ``unanswered``, ``timeout``…"""
    skipped: str | None = None
    """``t.skip``'s reason."""
    error: str | None = None
    """What the test raised, with its line in the eval file."""
    final_text: str = ""
    """The agent's last reply."""
    warnings: list[str] = []
    """What the run noticed that decides nothing, such as plan steps no message reached."""
