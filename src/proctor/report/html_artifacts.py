"""What a trial's page shows beyond ``trial.json``, for the self-contained HTML report: the
first steps of its trajectory (each tool call beside its result), its workspace diff and its
terminal, and an eval's turns, ``t.log`` lines and ``t.metric`` values (its ``eval.json``),
each read with a bound so one report stays small whatever the trials hold. Only
files inside the trial's own folder are read (a link leading out is left alone)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proctor.models.io import unescape_bytes
from proctor.models.trial import TrialRecord
from proctor.paths import RunPaths
from proctor.report.eval_turns import BoundedEval, bounded_eval
from proctor.util.cutting import clear_cut, mask_wrapped, read_head

MAX_STEPS = 200
"""Trajectory lines shown per trial; the rest are counted."""
MAX_FILE = 64 * 1024
"""Bytes of a diff or a terminal shown per trial."""
MAX_FIELD = 2000
"""Characters of one tool input or output."""


@dataclass
class Step:
    index: int
    type: str
    title: str
    body: str = ""
    result: str | None = None
    error: bool = False
    denied: bool = False
    """The call was refused (by the user, a policy or a permission mode): not an error."""


@dataclass
class Artifacts:
    steps: list[Step] = field(default_factory=list)
    more_steps: int = 0
    diff: str | None = None
    diff_cut: bool = False
    screen: str | None = None
    screen_cut: bool = False
    eval: BoundedEval | str | None = None
    """An eval's ``eval.json`` (:func:`bounded_eval`): None for a case folder's trial."""


def _own(folder: Path, name: str) -> Path | None:
    path = folder / name
    try:
        if path.is_file() and path.resolve().is_relative_to(folder.resolve()):
            return path
    except OSError:
        return None
    return None


def _head(
    path: Path | None, limit: int = MAX_FILE, *, wrapped: bool = False
) -> tuple[str | None, bool]:
    """The head of a file, never cutting a registered secret in two (its first part would
    stay in the clear once the rest is masked); ``wrapped``: a terminal's screen, where a
    line break may split a secret, which is masked so too."""
    if path is None:
        return None, False
    text, cut = read_head(path, limit, wrapped=wrapped)
    return (mask_wrapped(text) if wrapped and text is not None else text), cut


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    if len(text) <= MAX_FIELD:
        return text
    return text[: clear_cut(text, MAX_FIELD)] + f"… ({len(text)} characters)"


def _steps(path: Path | None) -> tuple[list[Step], int]:
    if path is None:
        return [], 0
    steps: list[Step] = []
    calls: dict[str, Step] = {}
    more = 0
    with path.open("rb") as fh:
        for n, line in enumerate(fh):
            if len(steps) >= MAX_STEPS:
                more += 1
                continue
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if not isinstance(event, dict):
                continue
            kind = str(event.get("type", "other"))
            if kind == "tool_result" and event.get("id") in calls:
                call = calls[event["id"]]
                call.result = _short(event.get("output") or "")
                call.error = bool(event.get("isError"))
                call.denied = bool(event.get("denied"))
                continue
            if kind == "tool_call":
                step = Step(n, kind, f"{event.get('name', '')} ({event.get('kind') or 'other'})")
                step.body = _short(event.get("input") or {})
                if event.get("id"):
                    calls[str(event["id"])] = step
            elif kind in ("usage", "turn_end"):
                continue
            else:
                step = Step(n, kind, kind.replace("_", " "), _short(event.get("text") or ""))
            steps.append(step)
    return steps, more


def trial_artifacts(run_dir: Path, record: TrialRecord) -> Artifacts:
    folder = RunPaths(run_dir).trial(record.case, record.agent, record.condition, record.repeat)
    if not folder.root.is_dir():  # a case folder named with bytes that are not UTF-8
        named = RunPaths(run_dir).trial(
            unescape_bytes(record.case), record.agent, record.condition, record.repeat
        )
        folder = named if named.root.is_dir() else folder
    return folder_artifacts(folder.root)


def folder_artifacts(root: Path) -> Artifacts:
    """The first steps, the diff, the terminal and an eval's ``eval.json`` of the trial whose
    folder is ``root``."""
    if not root.is_dir():
        return Artifacts()
    steps, more = _steps(_own(root, "trajectory.jsonl"))
    diff, diff_cut = _head(_own(root, "workspace.diff"))
    screen, screen_cut = _head(_own(root, "screen.log"), wrapped=True)
    found = _own(root, "eval.json")
    shown = bounded_eval(found) if found is not None else None
    return Artifacts(steps, more, diff, diff_cut, screen, screen_cut, shown)
