"""What an eval's ``eval.json`` adds to a trial's page, the viewer's Trial page and the HTML
report's trial alike: each message the test sent with how its turn ended and the tool calls
made in it, the test's ``t.log`` lines and ``t.metric`` values. A trial of a case folder has no
such file, and the page shows nothing of it. The report shows it bounded
(:func:`bounded_eval`), so one report stays small whatever an eval's test sent and logged."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from proctor.errors import ConfigError, SchemaVersionError
from proctor.models.io import read_record
from proctor.models.trial import EvalResultRecord
from proctor.util.cutting import clear_cut
from proctor.util.text import plural

MAX_EVAL_FILE = 8 * 1024 * 1024
"""Bytes of an ``eval.json`` the HTML report reads; a larger one is named, not read."""
MAX_TURNS = 100
"""Turns the report shows per trial; the rest are counted."""
MAX_CALLS = 50
"""Tool calls the report names per turn (and apart, for calls of no turn)."""
MAX_LOGS = 200
"""``t.log`` lines the report shows per trial."""
MAX_METRICS = 200
"""``t.metric`` values the report shows per trial."""
MAX_TEXT = 2000
"""Characters of one message sent or one log line the report shows."""
MAX_NAME = 200
"""Characters of one name the report shows: a call's, a metric's, a turn's outcome."""


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
        # (named by its file's name: a report is shared, its folders are the reader's own)
        return f"{path.name} does not read ({str(exc).removeprefix(f'{path}: ')})"
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


@dataclass(frozen=True)
class BoundedEval:
    """An eval's view as the HTML report shows it: ``view`` cut to the report's bounds (None
    when the file was not read), the counts it had before the cut, and ``cut``, one sentence
    saying what was left out (None when nothing was)."""

    view: EvalView | None
    turns: int = 0
    logs: int = 0
    metrics: int = 0
    cut: str | None = None


def _cut(text: str, most: int) -> tuple[str, bool]:
    """``text`` cut to ``most`` characters (never through a registered secret), saying its
    length, and whether it was cut."""
    if len(text) <= most:
        return text, False
    return text[: clear_cut(text, most)] + f"… ({len(text)} characters)", True


def _text(text: str) -> tuple[str, bool]:
    return _cut(text, MAX_TEXT)


def _name(text: str) -> tuple[str, bool]:
    return _cut(text, MAX_NAME)


def _calls(calls: list[str]) -> list[str]:
    named = [_name(call)[0] for call in calls[:MAX_CALLS]]
    if len(calls) <= MAX_CALLS:
        return named
    return [*named, f"and {len(calls) - MAX_CALLS} more"]


def bounded_eval(path: Path) -> BoundedEval | str | None:
    """The ``eval.json`` at ``path`` as the HTML report and the viewer show it: at most
    :data:`MAX_TURNS` turns, :data:`MAX_CALLS` calls named per turn, :data:`MAX_LOGS` log lines and
    :data:`MAX_METRICS` metrics, each message and log line cut at :data:`MAX_TEXT` characters
    (never through a registered secret), each name (a call's, a metric's, an outcome) at
    :data:`MAX_NAME`; a file over :data:`MAX_EVAL_FILE` bytes is not read.
    None and a sentence as :func:`eval_of` gives them."""
    try:
        size = path.stat().st_size if path.is_file() else None
    except OSError:
        size = None
    if size is not None and size > MAX_EVAL_FILE:
        return BoundedEval(
            None,
            cut=f"{path.name} is {size:,} bytes, more than the {MAX_EVAL_FILE:,} read to show "
            "it: see it in the trial's folder",
        )
    view = eval_of(path)
    if view is None or isinstance(view, str):
        return view
    left: list[str] = []
    turns, long = [], 0
    for turn in view.turns[:MAX_TURNS]:
        message, was_cut = _text(turn.message)
        outcome, outcome_cut = _name(turn.outcome)
        long += was_cut + outcome_cut + sum(_name(call)[1] for call in turn.calls[:MAX_CALLS])
        turns.append(replace(turn, message=message, outcome=outcome, calls=_calls(turn.calls)))
    if len(view.turns) > MAX_TURNS:
        left.append(plural(len(view.turns) - MAX_TURNS, "more turn"))
    logs = []
    for line in view.logs[:MAX_LOGS]:
        text, was_cut = _text(line)
        long += was_cut
        logs.append(text)
    if len(view.logs) > MAX_LOGS:
        left.append(plural(len(view.logs) - MAX_LOGS, "more log line"))
    names = sorted(view.metrics)
    if len(names) > MAX_METRICS:
        left.append(plural(len(names) - MAX_METRICS, "more metric"))
    metrics = {}
    for name in names[:MAX_METRICS]:
        shown_name, was_cut = _name(name)
        long += was_cut
        metrics[shown_name] = view.metrics[name]
    long += sum(_name(call)[1] for call in view.unturned[:MAX_CALLS])
    if long:
        left.append(f"{plural(long, 'long text')} cut short")
    if any(len(t.calls) > MAX_CALLS for t in view.turns) or len(view.unturned) > MAX_CALLS:
        left.append(f"calls past the first {MAX_CALLS} of a turn")
    shown = EvalView(turns, logs, metrics, _calls(view.unturned))
    cut = (
        f"Cut: {', '.join(left)}; all of it is {path.name} in the trial's folder." if left else None
    )
    return BoundedEval(shown, len(view.turns), len(view.logs), len(view.metrics), cut)
