"""A trial's ``questions.jsonl`` for its page: each question, the answer given and by which
rule or model (at most a few hundred; a line that is not a record is shown as unreadable)."""

from __future__ import annotations

import io
from pathlib import Path

from pydantic import ValidationError

from proctor.models.trial import QuestionRecord
from proctor.util.files import open_regular

MAX_QUESTIONS = 500


def questions_of(path: Path) -> list[QuestionRecord | str]:
    out: list[QuestionRecord | str] = []
    try:
        with io.TextIOWrapper(open_regular(path), encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if len(out) >= MAX_QUESTIONS:
                    break
                if not line.strip():
                    continue
                try:
                    out.append(QuestionRecord.model_validate_json(line))
                except ValidationError:
                    out.append(line.strip())
    except OSError:
        return []
    return out
