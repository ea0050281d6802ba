"""A value given on the command line or in the environment is quoted in a message as JSON
writes it, as a value from a config file is (``got "2"``): always in double quotes, a quote in
it escaped, a byte of a name that is not UTF-8 as ``\\xff`` as the rest of the output shows
it. Python's repr quoted it in single quotes or double ones by what it held (``'e'``,
``"it's"``, ``'it\\'s "x"'``) and wrote that byte as ``\\udcff``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import Run

FF = os.fsdecode(b"\xff")  # the byte 0xff of a name, as Python reads it
GIVEN = f'it\'s "new"{FF}'
SHOWN = '"it\'s \\"new\\"\\xff"'


def test_a_results_folder_given_twice_is_quoted_as_given(proctor: Run, tmp_path: Path) -> None:
    said = proctor("findings", GIVEN, "dismiss", "abc", "--reason", "x", "--dir", str(tmp_path))
    assert said.code == 2
    assert f"the results directory is given twice: {SHOWN} before `dismiss`" in said.err


def test_a_malformed_trial_is_quoted_as_given(proctor: Run, tmp_path: Path) -> None:
    said = proctor("annotate", str(tmp_path), GIVEN, "--verdict", "failed", "--note", "n")
    assert said.code == 2 and f"TRIAL {SHOWN}: expected case/agent/condition/repeat" in said.err


@pytest.mark.parametrize("option", ["--agent-model", "--agent-effort"])
def test_an_id_value_pair_without_its_equals_sign_is_quoted_as_given(
    proctor: Run, tmp_path: Path, option: str
) -> None:
    said = proctor("validate", "--source", str(tmp_path), option, GIVEN)
    assert said.code == 2 and f"{option} {SHOWN}: expected ID=VALUE" in said.err


def test_an_output_file_with_no_name_is_quoted_as_given(proctor: Run, tmp_path: Path) -> None:
    labels = tmp_path / "labels.json"
    labels.write_text("{}")
    said = proctor("plan-repeats", "--goal-labels", str(labels), "--output", " ")
    assert said.code == 2 and '--output " ": give the path of a file to write' in said.err


def test_a_heartbeat_that_is_no_number_is_quoted_as_given() -> None:
    from proctor.cli.display import heartbeat_interval
    from proctor.errors import ConfigError

    with pytest.raises(ConfigError) as info:
        heartbeat_interval({"PROCTOR_HEARTBEAT_SEC": "soon"})
    assert str(info.value).startswith('PROCTOR_HEARTBEAT_SEC="soon": expected the seconds')


def test_a_long_value_the_message_is_about_is_shown_whole(proctor: Run, tmp_path: Path) -> None:
    """What is wrong is often at its end (a trial's name without its repeat): it is not cut
    at the 60 characters a value quoted in passing is."""
    trial = "refactor-the-payment-service-module/claude-code/with-skills-and-hooks"
    said = proctor("annotate", str(tmp_path), trial, "--verdict", "failed", "--note", "n")
    assert said.code == 2 and f'TRIAL "{trial}": expected' in said.err, said.err
    pair = "claude-code:claude-opus-4-8-20260101-with-a-long-model-name-and-more"
    said = proctor("validate", "--source", str(tmp_path), "--agent-model", pair)
    assert said.code == 2 and f'--agent-model "{pair}": expected ID=VALUE' in said.err
