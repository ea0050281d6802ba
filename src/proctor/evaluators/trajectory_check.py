"""``trajectory-check``: did the agent call the tools we expect (e.g. did our plugin run)?

``toolPattern`` is one regular expression, or a map from agent id to one. It is matched in full
against each tool call's name and its normalised kind, so ``"Bash|shell"`` matches Claude
Code's ``Bash`` and any agent's shell tool but not ``BashOutput``. ``inputPattern`` optionally
narrows the match to calls whose input (as JSON) contains a match of that expression.

A search of the agent's own tool list (Claude Code's ``ToolSearch``, Codex CLI's
``tool_search``: :func:`~proctor.models.trajectory.is_harness_call`) is the CLI looking up its
deferred tools, no step of the agent's work, and no tool call of the trial's ``toolCalls``: a
pattern matches it only when it writes that name out (``ToolSearch``, ``Bash|tool_search``),
never through a wildcard (``.*``) or its kind ``other``.
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from pydantic import Field, field_validator, model_validator

from proctor.evaluators.base import (
    EvaluationContext,
    EvaluatorParams,
    register,
    scored_result,
)
from proctor.models.case import EvaluatorSpec
from proctor.models.trajectory import HARNESS_TOOLS, ToolCall, is_harness_call
from proctor.models.trial import EvaluatorResult
from proctor.util.text import plural


def _check_regex(value: str) -> str:
    try:
        re.compile(value)
    except re.error as exc:
        raise ValueError(f"not a valid regular expression ({exc})") from exc
    return value


class TrajectoryCheckParams(EvaluatorParams):
    tool_pattern: str | dict[str, str]
    input_pattern: str | None = None
    min: int = Field(default=1, ge=0)
    max: int | None = Field(default=None, ge=0)

    @field_validator("tool_pattern")
    @classmethod
    def _valid_tool_pattern(cls, value: str | dict[str, str]) -> str | dict[str, str]:
        for pattern in [value] if isinstance(value, str) else value.values():
            _check_regex(pattern)
        return value

    @field_validator("input_pattern")
    @classmethod
    def _valid_input_pattern(cls, value: str | None) -> str | None:
        return None if value is None else _check_regex(value)

    @model_validator(mode="after")
    def _bounds_and_patterns(self) -> TrajectoryCheckParams:
        if isinstance(self.tool_pattern, dict) and not self.tool_pattern:
            raise ValueError("toolPattern: give a regex, or a map with at least one agent")
        if self.max is not None and self.max < self.min:
            raise ValueError(f"max ({self.max}) is below min ({self.min}): no count can pass")
        return self

    def pattern_for(self, agent: str) -> str | None:
        """The pattern of ``agent``'s tool calls: the one pattern, else its entry in the
        map, else the map's ``*``; None when the map has neither."""
        if isinstance(self.tool_pattern, str):
            return self.tool_pattern
        return self.tool_pattern.get(agent, self.tool_pattern.get("*"))

    def agent_problem(self, agent: str) -> str | None:
        if self.pattern_for(agent) is not None:
            return None
        named = ", ".join(sorted(self.tool_pattern))
        return (
            f"toolPattern gives no pattern for agent '{agent}', which the run plans (it names "
            f"{named}): every trial of it would fail; add an entry for '{agent}', or one for '*'"
        )


def input_texts(tool_input: dict[str, Any] | None) -> list[str]:
    """What ``inputPattern`` is searched in: every string value of the input (at any depth, as
    written, so ``café`` and ``grep "x y"`` match), then the whole input as JSON."""
    texts: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(tool_input or {})
    texts.append(json.dumps(tool_input or {}, sort_keys=True, ensure_ascii=False))
    return texts


ESCAPED_SIGN = re.compile(r"\\([^A-Za-z0-9])")
"""An escaped sign (``\\_``, ``\\-``): that sign, literally."""


def names_tool(pattern: str, tool: str) -> bool:
    """``pattern`` writes ``tool``'s name out, in any case (``(?i)toolsearch``), a sign in it
    maybe escaped (``tool\\_search``); a class (``Tool\\Search``) does not write it."""
    return tool.casefold() in ESCAPED_SIGN.sub(r"\1", pattern).casefold()


def harness_named(pattern: str) -> frozenset[str]:
    """The harness tools (:data:`~proctor.models.trajectory.HARNESS_TOOLS`) ``pattern`` names
    (:func:`names_tool`): the only ones whose calls it can match."""
    return frozenset(t for t in HARNESS_TOOLS if names_tool(pattern, t))


def call_matches(call: ToolCall, tool_re: re.Pattern[str]) -> bool:
    """``tool_re`` fully matches the call's name or its normalised kind."""
    return any(tool_re.fullmatch(n) for n in (call.name or "", call.kind or "") if n)


def counts_search(call: ToolCall, tool_re: re.Pattern[str], named: frozenset[str]) -> bool:
    """A search of the tool list counts only for a pattern that names its tool (``named``)
    and matches that name: not through its kind ``other``."""
    return call.name in named and tool_re.fullmatch(call.name) is not None


@register
class TrajectoryCheck:
    name: ClassVar[str] = "trajectory-check"
    Params: ClassVar[type[EvaluatorParams]] = TrajectoryCheckParams

    def evaluate(self, spec: EvaluatorSpec, ctx: EvaluationContext) -> EvaluatorResult:
        params = TrajectoryCheckParams.of(spec)
        pattern = params.pattern_for(ctx.agent)
        if pattern is None:
            return scored_result(
                spec,
                passed=False,
                message=f"no toolPattern given for agent '{ctx.agent}'",
            )
        tool_re = re.compile(pattern)
        input_re = re.compile(params.input_pattern) if params.input_pattern else None
        named = harness_named(pattern)
        matched = []
        left_out = 0
        for call in ctx.trajectory.tool_calls():
            if not call_matches(call, tool_re):
                continue
            if input_re and not any(input_re.search(text) for text in input_texts(call.input)):
                continue
            if is_harness_call(call.name, call.kind) and not counts_search(call, tool_re, named):
                left_out += 1
                continue
            matched.append(call.name or "")
        count = len(matched)
        ok = count >= params.min and (params.max is None or count <= params.max)
        bounds = f">= {params.min}" + (f" and <= {params.max}" if params.max is not None else "")
        where = f" with input /{params.input_pattern}/" if params.input_pattern else ""
        message = f"{plural(count, 'tool call')} matched /{pattern}/{where} (expected {bounds})"
        if left_out:
            message += (
                f"; {left_out} search(es) of the agent's own tool list left out (name the "
                "tool, e.g. ToolSearch or tool_search, to count them)"
            )
        return scored_result(
            spec,
            passed=ok,
            message=message,
            metrics={"matched_calls": float(count)},
            pattern=pattern,
            matched=matched[:50],
        )
