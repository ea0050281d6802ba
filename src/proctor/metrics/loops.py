"""Loops: one failing command, or one identical edit, repeated."""

from __future__ import annotations

import json
from collections.abc import Sequence

import orjson

from proctor.metrics.trace import EDIT_KINDS, Step, normalise_command, shell_command
from proctor.models.process import LoopInstance

_FLAT = frozenset({str, bool, type(None)})
"""Value types whose JSON orjson writes as the standard library does, up to spacing: an input
of only these (an edit's path, old and new text) has the faster key, and two inputs have the
same key exactly when they are equal either way."""


def edit_key(step: Step) -> tuple[tuple[str, ...], str | bytes]:
    """What makes two edit or write calls the same edit: their files and their input."""
    tool_input = step.call.input or {}
    if _FLAT.issuperset(map(type, tool_input.values())):  # (in C: no frame per value)
        try:
            return step.files, orjson.dumps(tool_input, option=orjson.OPT_SORT_KEYS)
        except TypeError:  # a key that is not a string
            pass
    return step.files, json.dumps(tool_input, sort_keys=True, default=str)


def find_loops(steps: Sequence[Step], loop_repeat: int) -> list[LoopInstance]:
    """Loop instances, ordered by their first step. Empty input: ``[]``.

    A command loop is one normalised shell command whose outcome is ``fail`` at least
    ``loop_repeat`` times anywhere in the trial. An edit loop is one edit or write call (same
    files, same input) made at least ``loop_repeat`` times, whatever its outcome.
    """
    failing: dict[str, list[int]] = {}
    edits: dict[tuple[tuple[str, ...], str | bytes], list[int]] = {}
    for step in steps:
        command = shell_command(step)
        if command is not None and step.outcome == "fail" and normalise_command(command):
            failing.setdefault(normalise_command(command), []).append(step.index)
        elif step.kind in EDIT_KINDS:
            edits.setdefault(edit_key(step), []).append(step.index)
    found = [
        LoopInstance(kind="command", key=command, count=len(at), steps=at)
        for command, at in failing.items()
        if len(at) >= loop_repeat
    ]
    found += [
        LoopInstance(kind="edit", key=", ".join(files) or "(no file)", count=len(at), steps=at)
        for (files, _), at in edits.items()
        if len(at) >= loop_repeat
    ]
    return sorted(found, key=lambda loop: loop.steps[0])
