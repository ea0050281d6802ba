"""An ``llm-judge`` rubric is read when the case is loaded, as every trial's judge reads it: one
that is not UTF-8 text, cannot be read, or is a folder is a configuration error naming it (it
passed validate, then made every trial an eval-error)."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.evaluators.llm_judge import JudgeParams


def problem(case_dir: Path, rubric: str = "evaluation.md") -> str | None:
    return JudgeParams.model_validate({"rubric": rubric}).case_problem(case_dir)


def test_a_rubric_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    (tmp_path / "evaluation.md").write_bytes(b"\xff rubric")
    assert problem(tmp_path) == (
        f"the rubric {tmp_path / 'evaluation.md'} is not UTF-8 text (invalid start byte)"
    )


def test_a_rubric_that_cannot_be_read_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rubric = tmp_path / "evaluation.md"
    rubric.write_text("Score it.")
    read = Path.read_text

    def denied(self: Path, *args: object, **kwargs: object) -> str:
        if self == rubric:
            raise PermissionError(13, "Permission denied", str(self))
        return read(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "read_text", denied)
    assert problem(tmp_path) == f"the rubric {rubric} cannot be read (Permission denied)"


def test_a_rubric_that_is_a_folder_is_said_to_be_one(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    assert problem(tmp_path, "src") == (
        f"the rubric src is a folder in the case folder {tmp_path}: name a file"
    )
    assert (
        problem(tmp_path, "gone.md") == f"the rubric gone.md is not in the case folder {tmp_path}"
    )


def test_control_a_readable_rubric_is_no_problem(tmp_path: Path) -> None:
    (tmp_path / "evaluation.md").write_text("Score it — carefully.")
    assert problem(tmp_path) is None
