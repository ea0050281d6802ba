"""Step counts, checks and their outcomes, orientation, verification and rework."""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Sequence
from datetime import datetime
from itertools import pairwise

from proctor.metrics.config import check_commands
from proctor.metrics.shell import ShellCommand, split_commands
from proctor.metrics.summaries import summary_outcome
from proctor.metrics.trace import (
    EDIT_KINDS,
    LOOKING_KINDS,
    READ_KINDS,
    SEARCH_KINDS,
    Step,
    changes_code,
    is_code_edit,
    normalise_command,
    seconds_since,
    shell_command,
)
from proctor.models.process import CheckOutcome, CheckRun, MetricsConfig, Orientation, StepCounts
from proctor.models.trajectory import OUTPUT_CAP


def check_outcome(step: Step, command: str, config: MetricsConfig) -> CheckOutcome | None:
    """The outcome of a check, or None when the shell command runs no check.

    The result's status, unless the line's status need not be the check's (it is *masked*):
    the check pipes into another command (``pytest | tail -3``) without ``pipefail``, or
    another command runs after it whatever it returned (``pytest; echo done``, ``pytest ||
    true``), or a ``!`` turns its status round, or its runner leaves it running on its own
    (``docker exec -d``). Then, as where the result does not say its status, the check's
    runner's closing summary in the output says how it went (see
    :func:`summary_from_output`), and without one it is ``unknown``. ``cd app &&
    pytest`` and ``pytest && echo ok`` keep the check's outcome. ``unknown`` too when it was
    started in the background (Claude Code's ``run_in_background``, Gemini CLI's
    ``is_background``: the call returns as soon as it started) and the session never
    recorded how it ended (a later result of the call, such as Claude Code's task
    notification: see :attr:`~proctor.metrics.trace.Step.settled`).
    """
    checks = check_commands(config, command)
    if not checks:
        return None
    given = step.call.input or {}
    if not step.settled and (
        given.get("run_in_background") is True or given.get("is_background") is True
    ):
        return "unknown"
    if any(c.masked for c in checks) or step.outcome == "unknown":
        # Its status is hidden, or the transcript does not say it (a result without one).
        return summary_from_output(step, command, checks)
    return step.outcome


def summary_from_output(step: Step, command: str, checks: Sequence[ShellCommand]) -> CheckOutcome:
    """The outcome the closing summary of a masked check's runner states in the call's output
    (see :func:`~proctor.metrics.summaries.summary_outcome`): only for a line with one check
    whose call ran and gave an output. A pass is read only where the output's end is the end
    of the whole run (see :func:`_end_shown`: no ``| head`` or ``| grep``, which may leave out
    a later part's failure) and the trajectory kept the whole output."""
    result = step.result
    if len(checks) != 1 or result is None or result.denied or not result.output:
        return "unknown"
    output = result.output
    end_shown = len(output) < OUTPUT_CAP and _end_shown(command, checks[0])
    return summary_outcome(output, end_shown=end_shown) or "unknown"


_SHOW_THE_END = frozenset({"tail", "tee", "cat"})
"""Commands that pass on the end of what they are given (``tail -n 20`` shows the last lines)."""
_REPEATS = frozenset({"for", "while", "until", "do", "xargs", "parallel"})
"""Commands that run a check more than once: the end shown is the last run's only."""
_TO_A_FILE = re.compile(r"(?:^|\s)[1&]?>>?(?!&)")
"""A redirection of a command's output to a file (``> log``, ``&> log``; not ``2>&1``)."""


@functools.lru_cache(maxsize=1024)
def _end_shown(line: str, check: ShellCommand) -> bool:
    """Whether the end of the check's output is the end of the call's output, all of it: the
    line pipes nothing anywhere into a command other than ``tail``, ``tee`` or ``cat`` (the
    check may be inside what is piped: ``{ make test; } | head``, ``bash -c 'pytest' |
    head``), substitutes no process (``head <(pytest)``), sends no check's output to a file
    (``pytest > log; head log``), and runs nothing in a loop or through ``xargs`` (the end is
    the last run's: ``for t in …; do pytest $t; done | tail``)."""
    if "<(" in line or ">(" in line or _TO_A_FILE.search(check.text):
        return False
    commands = split_commands(line)
    for before, command in pairwise(commands):
        if not command.words:
            return False
        if before.then in ("|", "|&") and posixpath.basename(command.words[0]) not in _SHOW_THE_END:
            return False
    return not any(command.words and command.words[0] in _REPEATS for command in commands)


def find_checks(steps: Sequence[Step], config: MetricsConfig) -> list[CheckRun]:
    """Shell calls whose command matches a check pattern, with their outcomes. Empty: ``[]``."""
    checks: list[CheckRun] = []
    for step in steps:
        command = shell_command(step)
        if command is None:
            continue
        found = check_outcome(step, command, config)
        if found is not None:
            checks.append(
                CheckRun(step=step.index, command=normalise_command(command), outcome=found)
            )
    return checks


def count_steps(steps: Sequence[Step], checks: Sequence[CheckRun]) -> StepCounts:
    """Tool calls in total and by kind, reads, searches, edits and checks. Empty: all zero."""
    kinds: dict[str, int] = {}
    for step in steps:  # a plain loop: a Counter costs more than a short session's steps
        kinds[step.kind] = kinds.get(step.kind, 0) + 1
    return StepCounts(
        tool_calls=len(steps),
        by_kind=kinds,
        reads=sum(kinds.get(k, 0) for k in READ_KINDS),
        searches=sum(kinds.get(k, 0) for k in SEARCH_KINDS),
        edits=sum(kinds.get(k, 0) for k in EDIT_KINDS),
        checks=len(checks),
    )


def first_edit(steps: Sequence[Step]) -> Step | None:
    """The first attempt at an edit or write of code (see :func:`is_code_edit`), whether it
    succeeded or not: where orientation ends. None when none."""
    return next((s for s in steps if is_code_edit(s)), None)


def last_edit(steps: Sequence[Step]) -> Step | None:
    """The last edit or write that changed code (see :func:`changes_code`): neither rejected
    nor failed. None when none."""
    return next((s for s in reversed(steps) if changes_code(s)), None)


def orientation(steps: Sequence[Step], start: datetime | None) -> Orientation:
    """Reads and searches, tool calls and seconds before the first attempt at a code edit.

    Editing notes first is still orientation; an attempt that was rejected or failed ends it
    all the same (the agent had decided where to change code). All None when no edit changed
    code (not a task); the seconds are None when that edit or every event lacks a timestamp.
    """
    edit = first_edit(steps)
    if edit is None or last_edit(steps) is None:
        return Orientation()
    before = steps[: edit.index]
    return Orientation(
        reads_before_first_edit=sum(s.kind in LOOKING_KINDS for s in before),
        steps_before_first_edit=len(before),
        seconds_to_first_edit=seconds_since(start, edit.call.ts),
    )


def verified(steps: Sequence[Step], checks: Sequence[CheckRun]) -> bool | None:
    """True when a check with outcome ``pass`` ran after the last edit that changed code.

    Editing documentation afterwards, or an edit that was rejected or failed, needs no new
    check. None when no edit changed code (not applicable). An ``unknown`` outcome is never a
    pass.
    """
    edit = last_edit(steps)
    if edit is None:
        return None
    return any(c.step > edit.index and c.outcome == "pass" for c in checks)


def rework(checks: Sequence[CheckRun]) -> int:
    """Number of checks with outcome ``fail``. Empty: 0."""
    return sum(c.outcome == "fail" for c in checks)
