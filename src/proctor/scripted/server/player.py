"""The plan player: which steps a request plays, derived from the request alone.

The plan's steps are cut into *segments* at ``endTurn`` steps (and after an ``ask`` that has to
be asked as plain text, since that ends the turn too); user prompt N plays segment N. Within a
segment, each response plays any leading ``say`` steps as text plus at most one tool step; the
response index is the number of model responses with tool calls since the last prompt. When the
segment has no tool step left, the response is its trailing text (or "Done.") and ends the turn.
``sleep`` steps delay the response they belong to; ``exit`` steps are ignored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from proctor.scripted.plan import NOTHING_LEFT
from proctor.scripted.server.exchange import ModelRequest, Reply, Turn
from proctor.scripted.server.tools import (
    ASK_TOOL,
    Context,
    action_of,
    ask_text,
    search_for,
    tool_call,
)
from proctor.scripted.server.workspace import workspace_cwd

DONE = "Done."


@dataclass(frozen=True)
class Chunk:
    """What one response plays: texts, at most one tool step, a delay; ``steps`` are indices."""

    texts: tuple[str, ...]
    step: dict[str, Any] | None
    steps: tuple[int, ...]
    delay: float = 0.0


def segments(steps: Sequence[dict[str, Any]], ask_tool: bool) -> list[list[int]]:
    """Step indices per segment; ``endTurn`` ends one, so does a text ``ask`` (included)."""
    cuts: list[list[int]] = [[]]
    for index, step in enumerate(steps):
        if "endTurn" in step:
            cuts.append([])
            continue
        cuts[-1].append(index)
        if "ask" in step and not ask_tool:
            cuts.append([])
    return cuts


def chunks(steps: Sequence[dict[str, Any]], segment: list[int], ask_tool: bool) -> list[Chunk]:
    """The responses a segment plays; the last one ends the turn."""
    out: list[Chunk] = []
    texts: list[str] = []
    used: list[int] = []
    delay = 0.0
    for index in segment:
        step = steps[index]
        used.append(index)
        if "say" in step:
            texts.append(step["say"])
        elif "sleep" in step:
            delay += float(step["sleep"])
        elif "ask" in step and not ask_tool:
            texts.append(ask_text(step))
        elif action_of(step) is not None:
            out.append(Chunk(tuple(texts), step, tuple(used), delay))
            texts, used, delay = [], [], 0.0
    out.append(Chunk(tuple(texts) or (DONE,), None, tuple(used), delay))
    return out


def position(turns: Sequence[Turn]) -> tuple[int, int]:
    """(prompts so far, responses with tool calls since the last prompt)."""
    prompts = calls = 0
    for turn in turns:
        if turn.role == "user" and turn.prompt:
            prompts, calls = prompts + 1, 0
        elif turn.role == "assistant" and turn.calls:
            calls += 1
    return prompts, calls


def searched_last(turns: Sequence[Turn]) -> bool:
    """Whether the latest model response since the last prompt was a tool search (so the next
    one is never another: a tool the search did not bring is called anyway, and the CLI says it
    is unknown)."""
    for turn in reversed(turns):
        if turn.role == "user" and turn.prompt:
            return False
        if turn.role == "assistant":
            return turn.searches > 0 and turn.calls == 0
    return False


class PlanRole:
    """Plays a plan's steps as the agent's model; holds nothing that changes between requests."""

    def __init__(self, steps: Sequence[dict[str, Any]]) -> None:
        self.steps = tuple(steps)

    def respond(self, request: ModelRequest) -> Reply:
        ask_tool = ASK_TOOL in request.tools
        prompts, calls = position(request.turns)
        segment = max(prompts, 1) - 1
        cuts = segments(self.steps, ask_tool)
        if segment >= len(cuts):
            return Reply((NOTHING_LEFT,), played={"segment": segment + 1, "exhausted": True})
        options = chunks(self.steps, cuts[segment], ask_tool)
        chunk = options[min(calls, len(options) - 1)]
        ctx = Context(request.tools, workspace_cwd(request.texts), request.results)
        call = None if chunk.step is None else tool_call(chunk.step, ctx)
        search = None if searched_last(request.turns) else search_for(call, request.tools)
        if search is not None and call is not None:
            played_search = {
                "segment": segment + 1,
                "response": calls + 1,
                "steps": list(chunk.steps),
                "tool": search.name,
                "searchFor": call.name,
                "endTurn": False,
            }
            return Reply((), search, 0.0, played_search)  # the step's own reply keeps its delay
        played: dict[str, Any] = {
            "segment": segment + 1,
            "response": calls + 1,
            "steps": list(chunk.steps),
            "tool": call.name if call else None,
            "endTurn": call is None,
        }
        return Reply(chunk.texts, call, chunk.delay, played)
