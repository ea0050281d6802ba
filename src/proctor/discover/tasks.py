"""Task JSON files: a list of tasks (or one task) that each become a case.

A task names its fixture by a ``repository`` label resolved under a read-only ``--source-root``
(with an optional ``subpath``); every trial works on a fresh copy, so the source tree is only
ever read. ``successCriteria`` holds evaluator entries, exactly like a case's ``evaluators``;
a task may use both keys (every case key keeps its meaning) and runs both lists, ``evaluators``
first, so no gate is ever dropped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError

from proctor.discover.files import Unreadable
from proctor.errors import ConfigError
from proctor.evaluators.base import parse_evaluator_specs
from proctor.models.case import Case, ConfigSource
from proctor.models.config import SAFE_NAME, SAFE_NAME_RULE, CaseConfig
from proctor.models.errors_format import describe_validation_error
from proctor.models.loading import read_json_file
from proctor.scripted.plan import PlanError, validate_plan
from proctor.util.json_shown import WHOLE, json_text


class TaskSpec(CaseConfig):
    id: str = Field(min_length=1)
    name: str | None = None
    prompt: str = Field(min_length=1)
    subpath: str | None = None
    success_criteria: list[dict[str, Any]] = []
    plan: dict[str, Any] | None = None


def _tasks_in(data: Any, where: str) -> list[Any]:
    if isinstance(data, dict) and "tasks" in data:
        data = data["tasks"]
    if isinstance(data, dict):
        return [data]
    if isinstance(data, list):
        return data
    raise ConfigError(f"{where}: expected a task object or a list of tasks")


def _relative_part(value: str, field: str, where: str) -> Path:
    """A label or subpath as a relative path; blank, absolute and ``..`` are refused because
    each would name something other than a folder below ``--source-root``."""
    if "\0" in value:
        raise ConfigError(f"{where}: field '{field}': a path cannot hold a NUL character")
    part = Path(value)
    if not value.strip() or part.is_absolute() or ".." in part.parts:
        raise ConfigError(
            f"{where}: field '{field}' must stay inside --source-root: expected a non-blank "
            f"relative path without '..', got {json_text(value, WHOLE)}"
        )
    return part


def _fixture(task: TaskSpec, where: str, source_root: Path | None) -> Path | None:
    """The resolved fixture folder of a task, refused unless it lies strictly inside the
    resolved ``--source-root``: checking the text alone would let a symlink lead outside."""
    if task.repository is None:
        if task.subpath is not None:
            raise ConfigError(f"{where}: field 'subpath' needs a 'repository'")
        return None
    if source_root is None:
        raise ConfigError(
            f"{where}: field 'repository' ('{task.repository}') needs --source-root DIR"
        )
    rel = _relative_part(task.repository, "repository", where)
    if task.subpath is not None:
        rel = rel / _relative_part(task.subpath, "subpath", where)
    root = source_root.resolve()
    fixture = (root / rel).resolve()
    if fixture == root or not fixture.is_relative_to(root):
        raise ConfigError(
            f"{where}: field 'repository': {rel} resolves to {fixture}, which must stay inside "
            f"--source-root {root}"
        )
    if not fixture.is_dir():
        raise ConfigError(
            f"{where}: field 'repository': {rel} is not a directory under --source-root "
            f"{source_root}"
        )
    return fixture


TASK_KEYS = ("tasks", "id", "prompt", "successCriteria")
"""A JSON object with none of these is no task file (a ``package.json`` beside the cases)."""

MANIFEST_KEYS = ("tasks", "pairs", "runs")
"""A JSON object with all of these is a repeat manifest, which no task file can be (a task
file's object takes no ``pairs`` or ``runs``)."""


def load_task_file(
    path: Path, source_root: Path | None, *, beside_cases: bool = False
) -> list[Case]:
    """The tasks of a task file as cases. With ``beside_cases`` (a JSON file found among a
    suite's case folders), a file that is not shaped as tasks at all raises
    :class:`~proctor.discover.files.Unreadable`, and the file is skipped with that reason."""
    # Read as JSON keeps it first: a file beside the cases that is not a task file (a
    # package.json, which npm reads keeping a key's last value) is skipped, however it is
    # written; only a task file must give each key once.
    data = read_json_file(path)
    if beside_cases and isinstance(data, dict) and all(k in data for k in MANIFEST_KEYS):
        # `proctor plan-repeats --output repeats.json` writes it where the cases are, and
        # `proctor run --manifest repeats.json` reads that folder: its `tasks` are names.
        raise Unreadable("a repeat manifest (proctor plan-repeats), not a task file")
    if beside_cases and isinstance(data, dict) and not any(k in data for k in TASK_KEYS):
        raise Unreadable(
            "not a task file (a JSON object with none of the keys "
            + ", ".join(f"'{k}'" for k in TASK_KEYS)
            + ")"
        )
    data = read_json_file(path, unique=True)
    cases = []
    seen: set[str] = set()
    for i, raw in enumerate(_tasks_in(data, str(path))):
        where = f"{path}: tasks[{i}]"
        if not isinstance(raw, dict):
            raise ConfigError(f"{where}: expected an object")
        try:
            task = TaskSpec.model_validate(raw)
        except ValidationError as exc:
            raise ConfigError(describe_validation_error(where, exc, TaskSpec)) from exc
        if not SAFE_NAME.fullmatch(task.id):
            raise ConfigError(
                f"{where}: field 'id': {json_text(task.id, WHOLE)} must be {SAFE_NAME_RULE}"
            )
        if task.id in seen:
            raise ConfigError(f"{where}: field 'id': duplicate task id '{task.id}'")
        seen.add(task.id)
        if task.plan is not None:
            try:
                validate_plan(task.plan, where, "plan")
            except PlanError as exc:
                raise ConfigError(str(exc)) from exc
        evaluators = parse_evaluator_specs(task.evaluators, where, path.parent)
        evaluators += parse_evaluator_specs(
            task.success_criteria,
            where,
            path.parent,
            start=len(evaluators),
            earlier=task.evaluators,
            key="successCriteria",
        )
        fields = set(CaseConfig.model_fields)
        config = CaseConfig.model_validate(
            {
                **{k: v for k, v in task.model_dump().items() if k in fields},
                "evaluators": [*task.evaluators, *task.success_criteria],
                "description": task.name or task.description,
            }
        )
        fixture = _fixture(task, where, source_root)
        cases.append(
            Case(
                name=task.id,
                path=path.parent,
                prompt=task.prompt,
                config=config,
                evaluators=evaluators,
                fixture=fixture,
                fixture_kind="dir" if fixture else None,
                plan=task.plan,
                source=ConfigSource(file=path, prefix=f"tasks[{i}]"),
            )
        )
    return cases
