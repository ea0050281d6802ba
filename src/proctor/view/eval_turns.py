"""What an eval's ``eval.json`` adds to its Trial page: each message the test sent with how
its turn ended and the tool calls made in it, the test's ``t.log`` lines and ``t.metric``
values. A trial of a case folder has no such file, and the page shows nothing of it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from proctor.errors import ConfigError, SchemaVersionError
from proctor.models.io import read_record
from proctor.models.trial import EvalResultRecord


@dataclass(frozen=True)
class EvalTurn:
    """One turn of an eval's conversation: the message sent, how the turn ended, and its
    calls (each ``name (kind)``)."""

    index: int
    message: str
    outcome: str
    calls: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class EvalView:
    """An eval's turns, logs and metrics as the Trial page shows them; ``unturned`` counts
    calls a record written before proctor kept each call's turn has (shown apart)."""

    turns: list[EvalTurn]
    logs: list[str]
    metrics: dict[str, float]
    unturned: list[str]


def eval_of(path: Path) -> EvalView | str | None:
    """The view of the ``eval.json`` at ``path``; None when there is none (a case folder's
    trial, or an eval still running); a sentence when it does not read."""
    if not path.is_file():
        return None
    try:
        record = read_record(path, EvalResultRecord)
    except (ConfigError, SchemaVersionError, OSError) as exc:
        return f"{path.name} does not read ({exc})"
    count = max(len(record.inputs), len(record.turn_outcomes))
    turns = [
        EvalTurn(
            index=i + 1,
            message=record.inputs[i] if i < len(record.inputs) else "",
            outcome=record.turn_outcomes[i] if i < len(record.turn_outcomes) else "",
        )
        for i in range(count)
    ]
    unturned = []
    for call in record.tool_calls:
        shown = f"{call.tool_name} ({call.kind})" if call.kind else call.tool_name
        shown += " failed" if call.is_error else ""
        if call.turn is not None and 1 <= call.turn <= count:
            turns[call.turn - 1].calls.append(shown)
        else:
            unturned.append(shown)
    return EvalView(turns, record.logs, record.metrics, unturned)
