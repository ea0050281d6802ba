"""An ``llm-judge`` rubric is read when the case is loaded, as every trial's judge reads it: one
that is not UTF-8 text, cannot be read, or is a folder is a configuration error naming it (it
passed validate, then made every trial an eval-error)."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.errors import ConfigError
from proctor.evaluators.base import parse_evaluator_specs
from proctor.evaluators.llm_judge import JudgeParams


def problem(case_dir: Path, rubric: str = "evaluation.md") -> str | None:
    found = JudgeParams.model_validate({"rubric": rubric}).case_problem(case_dir)
    if found is None:
        return None
    assert found.field == "rubric"  # given: the message names the field
    return found.text


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


def test_a_missing_rubric_names_its_field_or_the_default(tmp_path: Path) -> None:
    """A rubric given and not there is said of 'rubric'; the default left out and not written
    is said of the entry, naming the default and the field that would name another file."""
    given = [{"use": "llm-judge", "rubric": "gone.md"}]
    with pytest.raises(ConfigError) as caught:
        parse_evaluator_specs(given, "config.json", tmp_path)
    assert str(caught.value) == (
        f"config.json: field 'evaluators[0].rubric': the rubric gone.md is not in the case "
        f"folder {tmp_path}"
    )
    with pytest.raises(ConfigError) as caught:
        parse_evaluator_specs([{"use": "file-exists", "must": ["a"]}, {"use": "llm-judge"}],
                              "config.json", tmp_path)  # fmt: skip
    assert str(caught.value) == (
        "config.json: field 'evaluators[1]': the rubric evaluation.md (the default, as "
        f"'rubric' is not given) is not in the case folder {tmp_path}: write it there, or "
        "name the rubric's file in 'rubric'"
    )
    (tmp_path / "evaluation.md").write_text("Score it.")  # the control
    assert len(parse_evaluator_specs([{"use": "llm-judge"}], "config.json", tmp_path)) == 1
