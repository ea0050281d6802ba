"""The normalised trajectory: one vocabulary of events for every agent.

Each line of ``trajectory.jsonl`` is one :class:`Event`. Fields that do not apply to an event's
``type`` are omitted from the file.

Event types:

``user_message``  a message sent to the agent (``text``)
``assistant_text`` text the agent wrote (``text``, ``model``)
``thinking``      reasoning the agent recorded (``text``, possibly empty)
``tool_call``     ``id``, ``name``, ``kind``, ``input``, ``files`` (paths it touched)
``tool_result``   ``id`` (of the call), ``output``, ``isError``, ``denied``
``usage``         tokens of one model response, counted once (``model``, ``inputTokens``, ...)
``question``      the agent asked the user (``text``, ``options``)
``answer``        what the harness answered (``text``, ``policy``)
``hook``          a hook ran (``name``, ``hookEvent``, ``command``, ``exitCode``)
``skill``         a skill was loaded (``name``)
``subagent``      a subagent ran (``id``, ``name``)
``api_error``     the agent's model call failed (``text``)
``compaction``    the agent compacted its context
``turn_end``      the agent ended its turn (``durationMs``)
``other``         a record the parser did not understand (``recordType``, ``raw``)
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

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


class Event(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    type: EventType
    ts: str | None = None
    """ISO-8601 UTC timestamp, when the transcript gives one."""
    id: str | None = None
    name: str | None = None
    kind: ToolKind | None = None
    input: dict[str, Any] | None = None
    files: list[str] | None = None
    text: str | None = None
    output: str | None = None
    is_error: bool | None = None
    denied: bool | None = None
    model: str | None = None
    options: list[str] | None = None
    policy: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    hook_event: str | None = None
    command: str | None = None
    exit_code: int | None = None
    duration_ms: float | None = None
    sidechain: bool | None = None
    record_type: str | None = None
    raw: Any = None


class ModelUsage(BaseModel):
    """Tokens of one model, summed over its responses (each response counted once)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    responses: int = 0

    def add(self, other: ModelUsage) -> None:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cache_read_tokens += other.cache_read_tokens
        self.cache_write_tokens += other.cache_write_tokens
        self.responses += other.responses

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
    unknown_record_types: dict[str, int] = Field(default_factory=dict)
    unparsed_lines: int = 0


class Trajectory(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    format: str
    events: list[Event] = Field(default_factory=list)
    usage: dict[str, ModelUsage] = Field(default_factory=dict)
    coverage: ParseCoverage = Field(default_factory=ParseCoverage)
    session_id: str | None = None
    agent_version: str | None = None

    def tool_calls(self) -> list[Event]:
        return [e for e in self.events if e.type == "tool_call"]
