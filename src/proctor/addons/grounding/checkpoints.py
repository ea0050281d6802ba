"""Checkpoints: moments of an agent session with their signals, read from a user's file, and
the choice of which ones an advisor gets.

A checkpoints file is JSON (a list of checkpoints, or an object with ``checkpoints`` and
optional ``wasteThresholds``) or JSON lines (one checkpoint per line)::

    {"id": "cp-1", "signals": {"tokensSoFar": 48210, "redundantReads": 14}, "waste": true}

``signals`` is any JSON object; it is exactly what the advisor reads on stdin. ``waste`` says
whether the moment shows waste; when it is left out, the checkpoint has a waste signal if one of
the signals named in the thresholds (top-level keys) reaches its threshold.

A checkpoint is *eligible* when its signals hold at least one figure (a number, or a number
inside a string): advice about signals without figures cannot be checked for invented ones.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pydantic import ConfigDict, Field, JsonValue, ValidationError

from proctor.errors import ConfigError
from proctor.models.base import UserModel
from proctor.models.errors_format import describe_validation_error, json_error
from proctor.models.loading import TOO_LONG_NUMBER, parse_json_text

from .figures import signal_figures

#: Signals that mark waste once they reach these values, unless the file says otherwise.
DEFAULT_WASTE_THRESHOLDS: dict[str, float] = {
    "redundantReads": 3,
    "repeatedFailures": 2,
    "wastedTokens": 1000,
    "loops": 1,
}


class Checkpoint(UserModel):
    """One moment of a session: an id, the signals the advisor reads, and the waste flag."""

    # Signals are measured data, not settings: a ratio written as NaN is a value to pass on.
    model_config = ConfigDict(allow_inf_nan=True)

    id: str = Field(min_length=1)
    signals: dict[str, JsonValue]
    waste: bool | None = None
    note: str = ""


class CheckpointFile(UserModel):
    """The object form of a checkpoints file."""

    checkpoints: list[Checkpoint]
    waste_thresholds: dict[str, float] = Field(
        default_factory=lambda: dict(DEFAULT_WASTE_THRESHOLDS)
    )


def load_checkpoints(path: Path) -> CheckpointFile:
    """Read and validate a checkpoints file; anything wrong is one ConfigError sentence."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read as UTF-8 text ({exc})") from exc
    if path.suffix == ".jsonl":
        lines = _lines(text)
        file = CheckpointFile(checkpoints=[_line(path, n, line) for n, line in lines])
        places = [f"line {n}" for n, _ in lines]
    else:
        file = _document(path, parse_json_text(text, path))
        places = [f"checkpoints[{i}]" for i in range(len(file.checkpoints))]
    _check_unique(path, file.checkpoints, places)
    return file


def _lines(text: str) -> list[tuple[int, str]]:
    return [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]


def _line(path: Path, number: int, line: str) -> Checkpoint:
    where = f"{path}, line {number}"
    try:
        return Checkpoint.model_validate(json.loads(line))
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{where}: malformed JSON at column {exc.colno}: {json_error(exc)}"
        ) from exc
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(where, exc, Checkpoint)) from exc
    except RecursionError:
        raise ConfigError(f"{where}: JSON nested too deeply to read") from None
    except ValueError as exc:  # int(): "Exceeds the limit (4300 digits)"
        raise ConfigError(f"{where}: {TOO_LONG_NUMBER}") from exc


def _document(path: Path, data: object) -> CheckpointFile:
    if isinstance(data, list):
        data = {"checkpoints": data}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a list of checkpoints or an object, got {data!r:.40}")
    try:
        return CheckpointFile.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_describe(path, data, exc)) from exc


def _describe(path: Path, data: dict[str, object], exc: ValidationError) -> str:
    """Name the checkpoint by its id when the error is inside one."""
    loc = exc.errors()[0]["loc"]
    items = data.get("checkpoints")
    if loc[:1] == ("checkpoints",) and len(loc) > 2 and isinstance(items, list):
        index = int(loc[1])
        item = items[index]
        name = item.get("id") if isinstance(item, dict) else None
        where = f"{path}, checkpoint {name!r}" if isinstance(name, str) else f"{path}"
        # The file's model: an unknown key is named with the nearest known one, at any depth.
        return describe_validation_error(where, exc, CheckpointFile)
    return describe_validation_error(str(path), exc, CheckpointFile)


def _check_unique(path: Path, checkpoints: list[Checkpoint], places: list[str]) -> None:
    """Each id once; a second one names where both are (``places``: each checkpoint's line of
    a ``.jsonl`` file, or its place in the list)."""
    seen: dict[str, str] = {}
    for checkpoint, place in zip(checkpoints, places, strict=True):
        if checkpoint.id in seen:
            raise ConfigError(
                f"{path}: checkpoint id {checkpoint.id!r} appears twice "
                f"({seen[checkpoint.id]} and {place})"
            )
        seen[checkpoint.id] = place


def has_waste(checkpoint: Checkpoint, thresholds: Mapping[str, float]) -> bool:
    """The ``waste`` flag, or else whether a named waste signal reaches its threshold."""
    if checkpoint.waste is not None:
        return checkpoint.waste
    for name, threshold in thresholds.items():
        value = checkpoint.signals.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= threshold:
            return True
    return False


def is_eligible(checkpoint: Checkpoint) -> bool:
    """Whether the signals hold at least one figure."""
    return bool(signal_figures(dict(checkpoint.signals)).values)


@dataclass(frozen=True)
class Selection:
    """The checkpoints chosen to run, in file order, and sentences about how they were chosen."""

    checkpoints: list[Checkpoint]
    notes: list[str]


def select_live(file: CheckpointFile, count: int, seed: int) -> Selection:
    """Up to ``count`` eligible checkpoints, half with a waste signal and half without.

    The waste side gets the extra one when ``count`` is odd. When a side has too few, all of it
    is taken and the other side fills the remaining places. The draw within each side is random
    with ``seed``, so the same file, count and seed always give the same checkpoints.
    """
    eligible = [c for c in file.checkpoints if is_eligible(c)]
    wasteful = [c for c in eligible if has_waste(c, file.waste_thresholds)]
    clean = [c for c in eligible if not has_waste(c, file.waste_thresholds)]
    want_waste = min(len(wasteful), (count + 1) // 2)
    want_clean = min(len(clean), count - want_waste)
    want_waste = min(len(wasteful), count - want_clean)
    notes = [f"{len(eligible)} of {len(file.checkpoints)} checkpoints are eligible"]
    if want_waste < (count + 1) // 2 or want_clean < count // 2:
        notes.append(
            f"asked for {count} (half with a waste signal), found {len(wasteful)} eligible with "
            f"and {len(clean)} without: took {want_waste} with and {want_clean} without"
        )
    rng = random.Random(seed)
    chosen = {id(c) for c in rng.sample(wasteful, want_waste) + rng.sample(clean, want_clean)}
    return Selection([c for c in file.checkpoints if id(c) in chosen], notes)


def select_all(file: CheckpointFile) -> Selection:
    """Every checkpoint, eligible or not (a figure cited about an ineligible one fails)."""
    return Selection(list(file.checkpoints), [])
