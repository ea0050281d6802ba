"""A case as proctor works with it, whatever it was written as."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from proctor.models.config import CaseConfig

if TYPE_CHECKING:
    from proctor.drive.answering import QnaRule
    from proctor.evaluators.base import EvaluatorSpec


@dataclass
class Case:
    name: str
    path: Path
    prompt: str
    config: CaseConfig
    evaluators: list[EvaluatorSpec]
    fixture: Path | None = None
    fixture_kind: Literal["zip", "dir"] | None = None
    qna_text: str | None = None
    qna_rules: list[QnaRule] = field(default_factory=list)
    rubric: Path | None = None
    plan: dict[str, Any] | None = None

    @property
    def tags(self) -> list[str]:
        return self.config.tags


@dataclass(frozen=True)
class SkippedCase:
    name: str
    path: Path
    reason: str
