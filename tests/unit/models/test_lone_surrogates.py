"""A lone surrogate escape (``"\\ud800"``) in a file written for proctor is refused when it is
read, naming the field: JSON reads it, but no UTF-8 text holds it, and passed on to an agent (a
follow-up message, an environment value, a model's name) it failed every trial with a
misleading error (``UnicodeEncodeError``, ``FileNotFoundError``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.errors import ConfigError
from proctor.models.loading import parse_json_text
from tests.conftest import Run, write_case


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{"followUps": ["\\ud800"]}', "field 'followUps[0]'"),
        ('{"env": {"X": "a\\udfff"}}', "field 'env.X'"),
        ('{"agentModel": "\\ud800x"}', "field 'agentModel'"),
        ('{"env": {"\\ud800": "x"}}', "a key of field 'env'"),
        ('["\\ud800"]', "field '[0]'"),
    ],
)
def test_a_lone_surrogate_in_a_file_for_proctor_is_refused_naming_its_field(
    text: str, where: str
) -> None:
    with pytest.raises(ConfigError) as info:
        parse_json_text(text, Path("c/config.json"), unique=True)
    assert str(info.value).startswith(f"c/config.json: {where} holds a lone surrogate escape")
    str(info.value).encode("utf-8")  # the sentence itself can be printed


def test_a_surrogate_pair_is_a_character_and_reads() -> None:
    data = parse_json_text('{"x": "\\ud83d\\ude00"}', Path("c.json"), unique=True)
    assert data == {"x": "\U0001f600"}


def test_a_file_another_program_reads_is_read_as_that_program_does() -> None:
    assert parse_json_text('{"x": "\\ud800"}', Path("settings.json")) == {"x": "\ud800"}


def test_validate_and_run_refuse_a_lone_surrogate_before_any_trial(
    proctor: Run, tmp_path: Path
) -> None:
    write_case(tmp_path / "cases", "s", config='{"followUps": ["\\ud800"]}')
    top = tmp_path / "proctor.json"
    top.write_text('{"env": {"KEY": "\\udc00"}}')
    result = proctor("validate", "--source", str(tmp_path / "cases"))
    assert result.code == 2 and "field 'followUps[0]' holds a lone surrogate" in result.err
    result = proctor("run", "--source", str(tmp_path / "cases"), "--out", str(tmp_path / "o"))
    assert result.code == 2 and "field 'followUps[0]'" in result.err
    assert not (tmp_path / "o").exists()
    result = proctor("validate", "--source", str(tmp_path / "cases"), "--config", str(top))
    assert result.code == 2 and f"{top}: field 'env.KEY' holds a lone surrogate" in result.err
