"""A case as proctor works with it, whatever it was written as (a case folder, a task file):
plain, frozen data that crosses process boundaries as JSON."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from proctor.models.config import CaseConfig


class FrozenModel(BaseModel):
    """Plain data in memory (snake_case; not written as a record of its own)."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class QnaRule(FrozenModel):
    """One ``PATTERN => ANSWER`` line of a ``qna.md`` rules block."""

    pattern: str
    answer: str
    line: int

    def matches(self, question: str) -> bool:
        return re.search(self.pattern, question) is not None


class EvaluatorSpec(FrozenModel):
    """One evaluator entry of a case, checked against its evaluator's parameter model when the
    case was loaded. ``params`` holds those parameters as JSON (camelCase, as written); the
    evaluator reads them back through its own model."""

    use: str
    params: dict[str, Any] = {}
    gate: bool = False
    weight: float = 1.0
    index: int = 0
    """Its number among all the case's evaluators (its log's name): a task's
    ``successCriteria`` continue the numbers of its ``evaluators``."""
    field: str = ""
    """Its place in the file it was written in (``evaluators[0]``, ``successCriteria[1]``),
    as its messages name it; empty: ``evaluators[index]``."""
    label: str | None = None
    conditions: list[str] = []
    """The conditions whose trials run this evaluator (``hook-transcript-check`` under
    ``with-plugin`` alone); empty: every condition. Elsewhere its result is not counted."""

    @property
    def loc(self) -> str:
        """Its field path, as a message names it: ``evaluators[0]``."""
        return self.field or f"evaluators[{self.index}]"


class ConfigSource(FrozenModel):
    """Where a case's configuration was written: the file, and the configuration's place in
    it (``tasks[0]`` in a task file; empty for a case folder's ``config.json``)."""

    file: Path
    prefix: str = ""

    @property
    def where(self) -> str:
        """How a message about one of its fields starts: ``t/tasks.json: tasks[0]``."""
        return f"{self.file}: {self.prefix}" if self.prefix else str(self.file)


class Case(FrozenModel):
    name: str
    path: Path
    prompt: str
    config: CaseConfig
    evaluators: list[EvaluatorSpec] = []
    fixture: Path | None = None
    fixture_kind: Literal["zip", "dir"] | None = None
    qna_text: str | None = None
    qna_rules: list[QnaRule] = []
    rubric: Path | None = None
    plan: dict[str, Any] | None = None
    """The scripted plan (``plan.json``), checked by :mod:`proctor.scripted.plan`."""
    source: ConfigSource | None = None
    """Where its configuration was written; None: the case folder's ``config.json``."""

    @property
    def config_where(self) -> str:
        """How a message about a field of its configuration starts (``cases/x/config.json``,
        ``t/tasks.json: tasks[0]``)."""
        return self.source.where if self.source else str(self.path / "config.json")

    def plan_field(self, field: str) -> str:
        """How a message about a field of its scripted plan starts: ``cases/x/plan.json:
        field 'conditions'``, or in a task file ``t/tasks.json: tasks[0]: field
        'plan.conditions'``."""
        if self.source is not None and self.source.prefix:
            return f"{self.source.where}: field 'plan.{field}'"
        return f"{self.path / 'plan.json'}: field '{field}'"

    @property
    def tags(self) -> list[str]:
        return self.config.tags


class SkippedCase(FrozenModel):
    name: str
    path: Path
    reason: str
