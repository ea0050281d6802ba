"""Label files (``--buckets``, ``--goal-labels``): task id → label, read from a JSON object or
from ``id,label`` lines, and laid over the records' own labels at report time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from proctor.errors import ConfigError
from proctor.models.trial import TrialRecord


def read_label_file(path: Path, option: str) -> dict[str, str]:
    """Task id → label, from a JSON object or from lines ``id,label`` (or tab-separated;
    blank lines and ``#`` comments skipped)."""
    try:
        # utf-8-sig: a spreadsheet's "CSV UTF-8" starts with a byte order mark, which would
        # otherwise become part of the first task id.
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{option} {path}: cannot be read ({exc})") from exc
    if text.lstrip().startswith("["):
        raise ConfigError(
            f"{option} {path}: a JSON list; expected a JSON object (task id → label) or "
            "'id,label' lines"
        )
    if text.lstrip().startswith("{"):
        import json

        def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
            found: dict[str, Any] = {}
            for key, value in items:
                if key in found and found[key] != value:
                    raise ConfigError(
                        f"{option} {path}: task id {key!r} is given twice, as "
                        f"{found[key]!r} and as {value!r}; keep one"
                    )
                found[key] = value
            return found

        try:
            data = json.loads(text, object_pairs_hook=pairs)
        except ValueError as exc:
            raise ConfigError(f"{option} {path}: not valid JSON ({exc})") from exc
        bad = [k for k, v in data.items() if not isinstance(v, str)]
        if bad:
            raise ConfigError(f"{option} {path}: field '{bad[0]}': expected a string label")
        return dict(data)
    labels: dict[str, str] = {}
    lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = [p.strip() for p in line.replace("\t", ",").split(",")]
        if len(parts) != 2 or not all(parts):
            raise ConfigError(f"{option} {path}:{number}: expected 'task id,label', got {line!r}")
        task, label = parts
        if task in labels and labels[task] != label:
            raise ConfigError(
                f"{option} {path}:{number}: task id {task!r} is labelled {label!r} here and "
                f"{labels[task]!r} on line {lines[task]}; keep one"
            )
        labels[task] = label
        lines.setdefault(task, number)
    return labels


def relabel(
    records: list[TrialRecord],
    buckets: dict[str, str] | None = None,
    goal_shapes: dict[str, str] | None = None,
) -> list[TrialRecord]:
    """The records with the label files' bucket and goal shape over the tasks' own."""
    out = []
    for record in records:
        update: dict[str, str] = {}
        if buckets and record.case in buckets:
            update["bucket"] = buckets[record.case]
        if goal_shapes and record.case in goal_shapes:
            update["goal_shape"] = goal_shapes[record.case]
        labels = record.labels.model_copy(update=update) if update else record.labels
        out.append(record.model_copy(update={"labels": labels}) if update else record)
    return out


def left_out_by_manifest(runs: list[Path], goal_labels: dict[str, str] | None) -> set[str]:
    """The task ids of ``goal_labels`` that a repeat manifest planned with ``--goal-shape``
    left out of every run of ``runs`` on purpose: each run is a pair of such a manifest (its
    ``run.json`` labelled ``<goal shape>-pair-<n>``, as ``plan-repeats`` labels them, its
    ``config.json`` listing the manifest's tasks), and the id, which none of them lists, has
    another goal shape in ``goal_labels``. Empty when a run is no such pair or its records do
    not read: then no one knows what was left out on purpose."""
    import re

    from proctor.errors import ProctorError
    from proctor.models.config import GOAL_SHAPES
    from proctor.models.io import read_record
    from proctor.models.run import ConfigRecord, RunManifest
    from proctor.paths import RunPaths

    if not goal_labels or not runs:
        return set()
    left: set[str] | None = None
    for run in runs:
        paths = RunPaths(run)
        try:
            label = read_record(paths.run_json, RunManifest).session_label or ""
            tasks = set(read_record(paths.config_json, ConfigRecord).cli.cases)
        except (ProctorError, OSError):
            return set()
        shape = re.fullmatch(r"(.+)-pair-\d+", label)
        if shape is None or shape[1] not in GOAL_SHAPES or not tasks:
            return set()
        out = {t for t, s in goal_labels.items() if s != shape[1] and t not in tasks}
        left = out if left is None else left & out
    return left or set()
