"""The normalised trajectory: one vocabulary of events for every agent.

Each line of ``trajectory.jsonl`` is one event, a member of the :data:`Event` union told apart
by ``type``; fields that do not apply to a type do not exist on it, and fields without a value
are left out of the file. The lines follow schema :data:`TRAJECTORY_SCHEMA_VERSION`, which
``trial.json`` records as ``transcript.trajectorySchemaVersion`` (version 1 files, written
before the union, hold the same keys and read the same way).

========================  ==============================================================
``user_message``          a message sent to the agent (``text``)
``assistant_text``        text the agent wrote (``text``, ``model``)
``thinking``              reasoning the agent recorded (``text``, possibly empty)
``tool_call``             ``id``, ``name``, ``kind``, ``input``, ``files`` (paths it touched)
``tool_result``           ``id`` (of the call), ``output``, ``isError``, ``denied``
``usage``                 tokens of one model response, counted once (``model``, ``inputTokens``,
                          ``outputTokens``, ``cacheReadTokens``, ``cacheWriteTokens``)
``question``              the agent asked the user (``id``, ``text``, ``options``)
``answer``                what the user or the harness answered (``id``, ``text``, ``policy``)
``hook``                  a hook ran (``name``, ``hookEvent``, ``command``, ``exitCode``, ``id``,
                          ``isError``)
``skill``                 a skill was loaded (``name``)
``subagent``              a subagent ran (``id``, ``name``)
``api_error``             the agent's model call failed (``text``)
``compaction``            the agent compacted its context (``text``)
``turn_end``              the agent ended its turn (``durationMs``, ``text``)
``other``                 a record the parser did not understand or keeps as is
                          (``recordType``, ``text``, ``raw``)
========================  ==============================================================

Every event may carry ``ts`` (ISO-8601 UTC, when the transcript gives one) and ``sidechain``
(true for a subagent's events).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from types import UnionType
from typing import Annotated, Any, Literal, Protocol, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from pydantic.alias_generators import to_camel

TRAJECTORY_SCHEMA_VERSION = 2
OUTPUT_CAP = 20_000
"""The most characters of a tool result's output a trajectory keeps: its first ones. A longer
output is cut there, so its end (a test runner's closing summary) is not in it."""

ToolKind = Literal[
    "shell",
    "read",
    "write",
    "edit",
    "search",
    "skill",
    "mcp",
    "subagent",
    "question",
    "web",
    "other",
]

HARNESS_TOOLS = frozenset({"tool_search", "ToolSearch"})
"""Tools that only search the agent's own tool list for deferred tools (Codex CLI's
``tool_search``, Claude Code's ``ToolSearch``): harness bookkeeping, not an action on the task.
Their calls stay in the trajectory (kind ``other``) but are no steps of the process metrics."""


def is_harness_call(name: object, kind: object) -> bool:
    """A call of one of :data:`HARNESS_TOOLS` (kind ``other``: an MCP tool of that name is the
    server's, a step like any other)."""
    return kind in (None, "other") and type(name) is str and name in HARNESS_TOOLS


class EventBase(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    ts: str | None = None
    sidechain: bool | None = None


class UserMessage(EventBase):
    type: Literal["user_message"] = "user_message"
    text: str = ""


class AssistantText(EventBase):
    type: Literal["assistant_text"] = "assistant_text"
    text: str = ""
    model: str | None = None


class Thinking(EventBase):
    type: Literal["thinking"] = "thinking"
    text: str | None = None


class ToolCall(EventBase):
    type: Literal["tool_call"] = "tool_call"
    id: str | None = None
    name: str = ""
    kind: ToolKind | None = None
    input: dict[str, Any] | None = None
    files: list[str] | None = None
    cwd: str | None = None
    """The folder a shell call ran in, where the transcript says so and the call's input does
    not, and it is not the session's own folder: Claude Code's shell keeps a ``cd`` from one
    call to the next, and its line records the folder."""


class ToolResult(EventBase):
    type: Literal["tool_result"] = "tool_result"
    id: str | None = None
    output: str | None = None
    is_error: bool | None = None
    """True: the call failed; False: it succeeded or was refused; None: unknown."""
    denied: bool | None = None
    """The user, a policy or a permission mode refused the call (not a failure)."""


class Usage(EventBase):
    type: Literal["usage"] = "usage"
    model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    cache_write_1h_tokens: int | None = Field(default=None, alias="cacheWrite1hTokens")
    """The part of ``cache_write_tokens`` kept for an hour (absent when none is)."""


class QuestionEvent(EventBase):
    type: Literal["question"] = "question"
    id: str | None = None
    text: str | None = None
    options: list[str] | None = None


class AnswerEvent(EventBase):
    type: Literal["answer"] = "answer"
    id: str | None = None
    text: str | None = None
    policy: str | None = None
    """``rule``, ``model`` or ``abort`` when the harness answered, else absent."""


class HookEvent(EventBase):
    type: Literal["hook"] = "hook"
    id: str | None = None
    name: str | None = None
    hook_event: str | None = None
    command: str | None = None
    exit_code: int | None = None
    is_error: bool | None = None


class SkillEvent(EventBase):
    type: Literal["skill"] = "skill"
    name: str | None = None


class SubagentEvent(EventBase):
    type: Literal["subagent"] = "subagent"
    id: str | None = None
    name: str | None = None


class ApiError(EventBase):
    type: Literal["api_error"] = "api_error"
    text: str | None = None


class Compaction(EventBase):
    type: Literal["compaction"] = "compaction"
    text: str | None = None


class TurnEnd(EventBase):
    type: Literal["turn_end"] = "turn_end"
    duration_ms: float | None = None
    text: str | None = None


HARNESS_MESSAGE = "harness-message"
"""The record type of an ``other`` event that holds the context a CLI writes into its session
itself (Gemini CLI's ``<session_context>``, Codex's ``<environment_context>``). It is written
when the CLI opens, which may be long before the first prompt, so its time starts nothing."""

COMMAND_RECORD = "local_command"
"""The record type of an ``other`` event for a command the CLI ran itself (Claude Code's
``/exit``, ``/model``, ``/clear`` and their output): housekeeping, never sent to the model. An
``/exit`` typed the morning after ends no task, so its time ends nothing either."""

UNTIMED = frozenset({HARNESS_MESSAGE, COMMAND_RECORD})
"""The record types of the ``other`` events whose times are not a session's span."""


class OtherEvent(EventBase):
    type: Literal["other"] = "other"
    record_type: str | None = None
    text: str | None = None
    raw: Any = None


Event = Annotated[
    UserMessage
    | AssistantText
    | Thinking
    | ToolCall
    | ToolResult
    | Usage
    | QuestionEvent
    | AnswerEvent
    | HookEvent
    | SkillEvent
    | SubagentEvent
    | ApiError
    | Compaction
    | TurnEnd
    | OtherEvent,
    Field(discriminator="type"),
]
EventType = Literal[
    "user_message",
    "assistant_text",
    "thinking",
    "tool_call",
    "tool_result",
    "usage",
    "question",
    "answer",
    "hook",
    "skill",
    "subagent",
    "api_error",
    "compaction",
    "turn_end",
    "other",
]
EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


Check = Callable[[Any], bool]
Spec = tuple[frozenset[type], Check | None]
"""A field's test: the exact types its values may have, and a test of a value of one of them
(a Literal's choices, a list's items, an integer's size) when the type is not enough."""
FLOAT_EXACT = 2**53
"""Integers up to this size are floats exactly (a ``float`` field reads them unchanged)."""
ANY: frozenset[type] = frozenset()
"""No test at all (an ``Any`` field)."""
NONE = type(None)


def _spec_of(annotation: Any) -> Spec | None:
    """A test of a value's exact type that implies the field accepts the value as it is (and
    reads back an equal one); None for an annotation without such a test."""
    args = get_args(annotation)
    if annotation is Any:
        return ANY, None
    if get_origin(annotation) in (Union, UnionType) and NONE in args:
        rest = [a for a in args if a is not NONE]
        if len(rest) != 1:
            return None
        inner = _spec_of(rest[0])
        return None if inner is None or inner[0] is ANY else (inner[0] | {NONE}, inner[1])
    if annotation in (str, bool, int):
        return frozenset({annotation}), None  # a bool is not an int here: type() is exact
    if annotation is float:
        return frozenset(
            {float, int}
        ), lambda v: type(v) is float or -FLOAT_EXACT <= v <= FLOAT_EXACT
    if get_origin(annotation) is Literal:
        allowed = frozenset(args)
        return frozenset({str}), lambda v: v in allowed
    if annotation == dict[str, Any]:
        return frozenset({dict}), lambda v: all(type(k) is str for k in v)
    if annotation == list[str]:
        return frozenset({list}), lambda v: all(type(i) is str for i in v)
    return None


def _specs_of(model: type[BaseModel]) -> dict[str, Spec] | None:
    """Each field's test by its ``trajectory.jsonl`` key; None when a field has none."""
    specs = {}
    for name, info in model.model_fields.items():
        spec = _spec_of(info.annotation)
        if spec is None:
            return None
        specs[info.alias or name] = spec
    return specs


_EVENT_MODELS: tuple[type[BaseModel], ...] = get_args(get_args(Event)[0])
_SPECS: dict[str, dict[str, Spec] | None] = {
    get_args(model.model_fields["type"].annotation)[0]: _specs_of(model) for model in _EVENT_MODELS
}
_SNAKE_ONLY: dict[str, frozenset[str]] = {
    get_args(model.model_fields["type"].annotation)[0]: frozenset(
        name for name, info in model.model_fields.items() if (info.alias or name) != name
    )
    for model in _EVENT_MODELS
}


def event_conforms(event: dict[str, Any]) -> bool:
    """Whether an event object is, as it stands, what its model reads (every field of the
    exact type, keys in their ``trajectory.jsonl`` spelling): a cheap test that lets a reader
    that only measures skip building the models. False means "validate it to find out", not
    "invalid"; the test is derived from the models' fields, so it follows them."""
    kind = event.get("type")
    specs = _SPECS.get(kind) if type(kind) is str else None
    if specs is None:
        return False
    snake = _SNAKE_ONLY[kind]  # type: ignore[index]
    for key, value in event.items():
        spec = specs.get(key)
        if spec is None:
            if key in snake:
                return False  # a field by its Python name: the model would read it
            continue  # not a field: the model ignores it
        types, deeper = spec
        if types is ANY:
            continue
        if type(value) not in types:
            return False
        if deeper is not None and value is not None and not deeper(value):
            return False
    return True


def parse_event(data: dict[str, Any]) -> Event:
    """One event from its ``trajectory.jsonl`` object (camelCase or snake_case keys)."""
    return EVENT_ADAPTER.validate_python(data)


def make_event(type: EventType, **fields: Any) -> Event:
    """An event of ``type`` from keyword fields (snake_case), e.g.
    ``make_event("tool_call", id="t1", name="Bash", kind="shell")``."""
    return EVENT_ADAPTER.validate_python({"type": type, **fields})


def event_json(event: Event) -> dict[str, Any]:
    """The event as its ``trajectory.jsonl`` object: camelCase keys, no empty fields."""
    return event.model_dump(mode="json", by_alias=True, exclude_none=True)


class ModelUsage(BaseModel):
    """Tokens of one model, summed over its responses (each response counted once)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    responses: int = 0
    cache_write_1h_tokens: int = Field(
        default=0,
        alias="cacheWrite1hTokens",
        description="the part of cacheWriteTokens written to a cache kept for an hour",
    )
    """The part of ``cache_write_tokens`` written to a cache kept for an hour (Claude Code's
    ``ephemeral_1h_input_tokens``), which costs more than one kept for five minutes."""

    def add(self, other: ModelUsage) -> None:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cache_read_tokens += other.cache_read_tokens
        self.cache_write_tokens += other.cache_write_tokens
        self.responses += other.responses
        self.cache_write_1h_tokens += other.cache_write_1h_tokens

    @property
    def total_tokens(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_read_tokens
            + self.cache_write_tokens
        )


class ParseCoverage(BaseModel):
    """How much of a native transcript the parser understood."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    lines: int = 0
    unknown_record_types: dict[str, int] = {}
    unparsed_lines: int = 0


class Trajectory(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    format: str
    events: list[Event] = []
    usage: dict[str, ModelUsage] = {}
    coverage: ParseCoverage = Field(default_factory=ParseCoverage)
    session_id: str | None = None
    agent_version: str | None = None

    def tool_calls(self) -> list[ToolCall]:
        return [e for e in self.events if isinstance(e, ToolCall)]

    def agent_calls(self) -> list[ToolCall]:
        """The tool calls of the agent's work: :meth:`tool_calls` without those of a harness
        tool (:func:`is_harness_call`, a search of its own tool list). What a trial's
        ``toolCalls`` and its ``maxToolCalls`` budget count, as the process metrics' steps."""
        return [
            e
            for e in self.events
            if isinstance(e, ToolCall) and not is_harness_call(e.name, e.kind)
        ]


class TokenCounts(Protocol):
    """What :func:`sum_usage` reads of a model's usage: a :class:`ModelUsage`, or a history's
    record of one."""

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    responses: int
    cache_write_1h_tokens: int


ResponseTokens = tuple[str, int, int, int, int, int]
"""One model response's tokens: (model, input, output, cache read, cache write, the part of
the cache write kept for an hour)."""


def usage_by_model(rows: Iterable[ResponseTokens]) -> dict[str, ModelUsage]:
    """Sum usage rows per model, one row per response."""
    # Rows grouped, then each column summed in C: a session has hundreds of responses, where
    # adding each number in Python cost more than the rest of its count.
    grouped: dict[str, list[ResponseTokens]] = {}
    for row in rows:
        group = grouped.get(row[0])
        if group is None:
            group = grouped[row[0]] = []
        group.append(row)
    usage = {}
    for model, group in grouped.items():
        _, inp, out, read, write, hour = zip(*group, strict=True)
        usage[model] = ModelUsage(
            input_tokens=sum(inp),
            output_tokens=sum(out),
            cache_read_tokens=sum(read),
            cache_write_tokens=sum(write),
            responses=len(group),
            cache_write_1h_tokens=sum(hour),
        )
    return usage


def sum_usage(rows: Iterable[tuple[str, TokenCounts]]) -> dict[str, ModelUsage]:
    """Usage summed per model from ``(model, usage)`` rows (each row counted as given)."""
    # Plain integers while summing: a model's attribute assignment costs a microsecond each.
    sums: dict[str, list[int]] = {}
    for model, usage in rows:
        acc = sums.get(model)
        if acc is None:
            acc = sums[model] = [0, 0, 0, 0, 0, 0]
        acc[0] += usage.input_tokens
        acc[1] += usage.output_tokens
        acc[2] += usage.cache_read_tokens
        acc[3] += usage.cache_write_tokens
        acc[4] += usage.responses
        acc[5] += usage.cache_write_1h_tokens
    return {
        model: ModelUsage(
            input_tokens=a[0],
            output_tokens=a[1],
            cache_read_tokens=a[2],
            cache_write_tokens=a[3],
            responses=a[4],
            cache_write_1h_tokens=a[5],
        )
        for model, a in sums.items()
    }
