"""The turns a plan plays (its steps split by ``endTurn``), and the warnings for a
conversation that sent fewer messages than the plan has turns (steps that never played) or
more (turns that found no step left to play).

Like :mod:`proctor.scripted.plan`, this module uses the standard library and proctor.util
only."""

from __future__ import annotations

from typing import Any

from proctor.scripted.plan import (
    ACTIONS,
    NOTHING_LEFT,
    _field,
    plan_for_condition,
    steps_for_repeat,
)
from proctor.util.text import plural

ASKED = ", some answering a question the agent asked as plain text (which ended its turn)"


def plan_turns(data: dict[str, Any], condition: str, repeat: int) -> list[list[int]]:
    """The indices of the steps of each turn repeat ``repeat`` plays (split by ``endTurn``;
    a plan that ends with ``endTurn`` has no turn after it)."""
    plan = plan_for_condition(data, condition) or {"turns": []}
    turns: list[list[int]] = [[]]
    for i, step in enumerate(steps_for_repeat(plan, repeat)):
        if "endTurn" in step:
            turns.append([])
        else:
            turns[-1].append(i)
    while turns and not turns[-1]:
        turns.pop()
    return turns


def overplayed(
    data: dict[str, Any], condition: str, repeat: int, sent: int, sender: str, idle: list[int]
) -> str | None:
    """A warning naming the turns (1-based) that found no step of the plan left to play, the
    agent replying only :data:`NOTHING_LEFT`: ``sender`` sent more messages than the plan has
    turns, and those turns did nothing the eval meant them to (the symmetric case of
    :func:`unplayed`). None when there is no such turn."""
    if not idle:
        return None
    turns = plan_turns(data, condition, repeat)
    named = ", ".join(f"turn {i}" for i in idle[:5])
    more = f" and {len(idle) - 5} more" if len(idle) > 5 else ""
    return (
        f"the plan has {plural(len(turns), 'turn')} (split by endTurn) and {sender} sent "
        f"{plural(sent, 'message')}, so these turns found no step left to play (the agent "
        f"replied {NOTHING_LEFT!r}): {named}{more}"
    )


def says_nothing_left(plan: Any) -> bool:
    """Whether a step of ``plan`` (any turn, variant or condition) says :data:`NOTHING_LEFT`
    itself: then such a reply may be the plan's own, and is no sign it ran out."""
    if isinstance(plan, dict):
        return plan.get("say") == NOTHING_LEFT or any(says_nothing_left(v) for v in plan.values())
    if isinstance(plan, list):
        return any(says_nothing_left(v) for v in plan)
    return False


def unplayed(
    data: dict[str, Any],
    condition: str,
    repeat: int,
    sent: int,
    sender: str,
    played: set[int] | None = None,
) -> str | None:
    """A warning naming the steps no message reached, when ``sent`` messages (each a turn the
    agent completed) left turns to spare in the plan (an ``endTurn`` no message followed):
    those steps never ran, and nothing else would say so. ``sender`` says who sent them
    (``the test``). Counted by ``endTurn``, so a turn an ``ask`` split in two is one turn here
    (no false warning; a miss at worst). Each step is named by its JSON path in the plan file
    (``conditions.baseline.variants[1][2]``, as validate names it) and its action. ``played``,
    the steps the scripted model's request log says it played, counts exactly instead (an
    ``ask`` a CLI asked as plain text ended a turn, and its answer was a message)."""
    plan = plan_for_condition(data, condition) or {"turns": []}
    steps = steps_for_repeat(plan, repeat)
    turns = plan_turns(data, condition, repeat)
    left = [i for turn in turns[sent:] for i in turn]
    if played is not None:
        left = [i for turn in turns for i in turn if i not in played]
    if not left:
        return None
    at = _field("conditions", condition) if "conditions" in data else ""
    if "variants" in plan:  # the variant this repeat plays, as validate names its steps
        at = _field(_field(at, "variants"), (repeat - 1) % len(plan["variants"]))
    else:
        at = _field(at, "turns")
    named = ", ".join(
        f"{_field(at, i)} ({next(k for k in steps[i] if k in ACTIONS)})" for i in left[:5]
    )
    more = f" and {len(left) - 5} more" if len(left) > 5 else ""
    return (
        f"the plan has {plural(len(turns), 'turn')} (split by endTurn) and {sender} sent "
        f"{plural(sent, 'message')}{ASKED if played is not None and sent >= len(turns) else ''}"
        f", so these steps never played: {named}{more}"
    )
