"""User configuration is read strictly: a value of the wrong JSON type is refused, never coerced
(``true`` is not 1 second, ``"3"`` is not 3 repeats), and durations have a maximum. Proctor's
own records that embed user configuration are still read leniently."""

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from proctor.errors import ConfigError
from proctor.models.base import MAX_TIMEOUT_SEC
from proctor.models.config import CaseConfig, CliOverrides, TopConfig
from proctor.models.errors_format import describe_validation_error
from proctor.models.findings import FindingsLedger
from proctor.models.io import read_record
from proctor.models.loading import load_top_config
from proctor.models.process import MetricsConfig
from proctor.models.run import ConfigRecord


def case_error(config: dict[str, Any]) -> str:
    with pytest.raises(ValidationError) as info:
        CaseConfig.model_validate(config)
    return describe_validation_error("case/config.json", info.value, CaseConfig)


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({"timeoutSec": True}, "field 'timeoutSec': expected a number, got true"),
        ({"timeoutSec": "60"}, "field 'timeoutSec': expected a number, got the string \"60\""),
        ({"repeats": "3"}, "field 'repeats': expected an integer, got the string \"3\""),
        ({"repeats": True}, "field 'repeats': expected an integer, got true"),
        ({"repeats": 3.0}, "field 'repeats': expected an integer, got 3.0"),
        ({"maxTurns": False}, "field 'maxTurns': expected an integer, got false"),
        ({"maxToolCalls": "5"}, "field 'maxToolCalls': expected an integer, got the string \"5\""),
        ({"passThreshold": "60"}, "field 'passThreshold': expected a number, got the string"),
        ({"selfReport": 1}, "field 'selfReport': expected true or false, got 1"),
        (
            {"serialRepeats": "false"},
            "field 'serialRepeats': expected true or false, got the string \"false\"",
        ),
        (
            {"conditions": {"on": {"maxTurns": "2"}}},
            "field 'conditions.on.maxTurns': expected an integer, got the string \"2\"",
        ),
        ({"tags": [1]}, "field 'tags[0]': expected a string, got 1"),
        ({"agents": "scripted"}, "field 'agents': expected a list, got the string \"scripted\""),
    ],
)
def test_a_case_config_value_of_the_wrong_type_is_refused_in_one_sentence(
    config: dict[str, Any], expected: str
) -> None:
    message = case_error(config)
    assert message.startswith("case/config.json: ")
    assert expected in message
    assert "\n" not in message


def write_top(tmp_path: Path, config: dict[str, Any]) -> Path:
    path = tmp_path / "proctor.json"
    path.write_text(json.dumps(config))
    return path


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({"timeoutSec": True}, "field 'timeoutSec': expected a number, got true"),
        ({"repeats": "3"}, "field 'repeats': expected an integer, got the string \"3\""),
        ({"concurrency": 2.0}, "field 'concurrency': expected an integer, got 2.0"),
        ({"budgetUsd": True}, "field 'budgetUsd': expected a number, got true"),
        ({"gate": {"minPassRate": "0.9"}}, "field 'gate.minPassRate': expected a number, got"),
        (
            {"gate": {"ab": {"treatment": "a", "baseline": "b", "maxPassRateDrop": False}}},
            "field 'gate.ab.maxPassRateDrop': expected a number, got false",
        ),
        (
            {"limits": {"anthropic": {"concurrency": True}}},
            "field 'limits.anthropic.concurrency': expected an integer, got true",
        ),
        (
            {"limits": {"anthropic": {"startSpacingSec": "1"}}},
            "field 'limits.anthropic.startSpacingSec': expected a number, got the string \"1\"",
        ),
        (
            {"limits": {"anthropic": {"startSpacingSec": 1e308}}},
            "field 'limits.anthropic.startSpacingSec': expected at most 86400 seconds (a day)",
        ),
        (
            {"limits": {"openai": {"backoffMaxSec": 86401}}},
            "field 'limits.openai.backoffMaxSec': expected at most 86400 seconds (a day)",
        ),
        (
            {"pricing": {"anthropic/x": {"inputPer1M": "3"}}},
            "field 'pricing.anthropic/x.inputPer1M': expected a number, got the string",
        ),
        ({"metrics": {"loopRepeat": "3"}}, "field 'metrics.loopRepeat': expected an integer"),
        ({"metrics": {"reworkMax": True}}, "field 'metrics.reworkMax': expected an integer"),
        ({"metrics": {"checkPatterns": [3]}}, "field 'metrics.checkPatterns[0]': expected a"),
        (
            {"codingagents": {"mine": {"args": ["-v", 2]}}},
            "field 'codingagents.mine.args[1]': expected a string, got 2",
        ),
    ],
)
def test_a_top_config_value_of_the_wrong_type_is_refused_naming_file_and_field(
    tmp_path: Path, config: dict[str, Any], expected: str
) -> None:
    path = write_top(tmp_path, config)
    with pytest.raises(ConfigError) as info:
        load_top_config(path, tmp_path)
    message = str(info.value)
    assert message.startswith(f"{path}: ")
    assert expected in message
    assert "\n" not in message


def test_legitimate_configurations_still_load(tmp_path: Path) -> None:
    case = CaseConfig.model_validate(
        {
            "agents": ["scripted"],
            "timeoutSec": 60,  # an integer is a number
            "repeats": 2,
            "passThreshold": 60,
            "maxTurns": 5,
            "selfReport": True,
            "serialRepeats": False,
            "conditions": {"baseline": {}, "on": {"maxToolCalls": 9, "env": {"A": "b"}}},
            "goalShape": "single_goal",
            "mode": "headless",
            "expectedTraces": [{"from": "a.py", "to": "b.py"}],
            "evaluators": [{"use": "command", "run": "true", "timeoutSec": 30}],
        }
    )
    assert case.timeout_sec == 60.0 and isinstance(case.timeout_sec, float)
    assert case.repeats == 2 and case.self_report is True
    top, _ = load_top_config(
        write_top(
            tmp_path,
            {
                "codingagents": {"scripted": {"args": [], "env": {}, "credentials": "none"}},
                "gate": {"minScore": 70, "minPassRate": 1, "maxStddev": 15.5},
                "concurrency": 4,
                "pricing": {"anthropic/x": {"inputPer1M": 3, "outputPer1M": 15.0}},
                "limits": {
                    "anthropic": {"concurrency": 2, "startSpacingSec": 1, "backoffMaxSec": 60},
                    "openai": {"startSpacingSec": MAX_TIMEOUT_SEC, "backoffMaxSec": 86400},
                },
                "timeoutSec": 120,
                "repeats": 3,
                "budgetUsd": 5,
                "metrics": {"checkPatterns": ["pytest"], "loopRepeat": 3},
            },
        ),
        tmp_path,
    )
    assert top.limits["anthropic"].start_spacing_sec == 1.0
    assert top.limits["openai"].start_spacing_sec == MAX_TIMEOUT_SEC
    assert top.metrics is not None and top.metrics.check_patterns == ("pytest",)


def test_metrics_settings_are_strict_but_take_their_patterns_as_a_list() -> None:
    assert MetricsConfig.model_validate({"checkPatterns": ["make test"]}).check_patterns == (
        "make test",
    )
    with pytest.raises(ValidationError):
        MetricsConfig.model_validate({"loopRepeat": 3.0})


def test_command_line_overrides_stay_lenient_for_python_callers() -> None:
    """Not a file a user writes: click typed each option, and the API may pass tuples."""
    cli = CliOverrides.model_validate({"agents": ("scripted",), "repeats": 2})
    assert cli.agents == ["scripted"] and cli.repeats == 2


def test_proctor_s_own_records_embedding_user_configuration_are_read_leniently(
    tmp_path: Path,
) -> None:
    """``config.json`` is proctor's output, not the user's file: schema 1 kept the
    configuration as the user wrote it, which a proctor of its day accepted, coerced."""
    path = tmp_path / "config.json"
    path.write_text(
        json.dumps(
            {
                "schemaVersion": 1,
                "config": {
                    "repeats": "3",
                    "timeoutSec": 30,
                    "metrics": {"checkPatterns": ["pytest"]},
                    "gate": {"minPassRate": 1},
                },
                "cli": {"repeats": 2},
            }
        )
    )
    record = read_record(path, ConfigRecord)
    assert record.config.repeats == 3 and record.config.metrics is not None
    with pytest.raises(ValidationError):  # the same value in a user's file is refused
        TopConfig.model_validate({"repeats": "3"})


def test_a_record_that_is_strict_itself_stays_strict(tmp_path: Path) -> None:
    finding = {
        "id": "a",
        "case": "c",
        "agent": "a",
        "condition": "d",
        "check": "x",
        "firstSeenRun": "r",
        "lastSeenRun": "r",
        "failures": True,
    }
    path = tmp_path / "findings.json"
    path.write_text(json.dumps({"schemaVersion": 2, "findings": [finding]}))
    with pytest.raises(ConfigError, match="failures"):
        read_record(path, FindingsLedger)


def test_a_trial_time_limit_past_a_day_is_refused_everywhere_it_is_written() -> None:
    assert "field 'timeoutSec'" in case_error({"timeoutSec": 1e308})
    assert "expected at most 86400 seconds (a day)" in case_error(
        {"timeoutSec": MAX_TIMEOUT_SEC + 1}
    )
    assert CaseConfig.model_validate({"timeoutSec": MAX_TIMEOUT_SEC}).timeout_sec == 86400
    with pytest.raises(ValidationError):
        TopConfig.model_validate({"timeoutSec": 1e9})
    with pytest.raises(ValidationError):
        CliOverrides.model_validate({"timeoutSec": 1e9})


@pytest.mark.parametrize(
    ("model", "config", "expected"),
    [
        (
            TopConfig,
            {"limits": {"anthropic": {"concurency": 2}}},
            "unknown key 'limits.anthropic.concurency' (did you mean 'concurrency'? known keys: "
            "backoffMaxSec, concurrency, startSpacingSec)",
        ),
        (
            TopConfig,
            {"codingagents": {"claude-code": {"binray": "claude"}}},
            "unknown key 'codingagents.claude-code.binray' (did you mean 'binary'? known keys: ",
        ),
        (
            TopConfig,
            {"conditions": {"with-skill": {"provison": {}}}},
            "unknown key 'conditions.with-skill.provison' (did you mean 'provision'?",
        ),
        (CaseConfig, {"zzz": 1}, "unknown key 'zzz' (known keys: agentEffort, "),  # no near one
    ],
)
def test_an_unknown_nested_key_lists_its_neighbours_and_the_nearest_one(
    model: Any, config: dict[str, Any], expected: str
) -> None:
    with pytest.raises(ValidationError) as info:
        model.model_validate(config)
    assert expected in describe_validation_error("proctor.json", info.value, model)


def test_a_run_an_earlier_proctor_wrote_with_limits_past_a_day_still_reads(
    tmp_path: Path,
) -> None:
    """``--timeout 100000`` was accepted before the cap: that run's ``config.json`` must still
    read (to resume it), while the same values written by a user now are refused."""
    path = tmp_path / "config.json"
    path.write_text(
        json.dumps(
            {
                "schemaVersion": 2,
                "config": {"timeoutSec": 200000, "limits": {"x": {"startSpacingSec": 90000}}},
                "cli": {"timeoutSec": 100000},
            }
        )
    )
    record = read_record(path, ConfigRecord)
    assert record.cli.timeout_sec == 100000 and record.config.timeout_sec == 200000
    with pytest.raises(ValidationError):
        CliOverrides.model_validate({"timeoutSec": 100000})


@pytest.mark.parametrize(
    ("model", "config", "expected"),
    [
        (CaseConfig, {"setup": ["echo a\0b"]}, "field 'setup[0]': cannot hold a NUL character"),
        (CaseConfig, {"teardown": ["x\0"]}, "field 'teardown[0]': cannot hold a NUL character"),
        (
            TopConfig,
            {"codingagents": {"claude-code": {"args": ["--x\0"]}}},
            "field 'codingagents.claude-code.args[0]': cannot hold a NUL character",
        ),
        (
            TopConfig,
            {"codingagents": {"mine": {"transport": "acp", "command": ["a\0"]}}},
            "field 'codingagents.mine.command[0]': cannot hold a NUL character",
        ),
    ],
)
def test_a_nul_in_a_line_or_argument_a_program_gets_is_refused(
    model: Any, config: dict[str, Any], expected: str
) -> None:
    with pytest.raises(ValidationError) as info:
        model.model_validate(config)
    assert expected in describe_validation_error("f.json", info.value, model)


def test_a_number_of_thousands_of_digits_is_one_sentence() -> None:
    from proctor.models.loading import parse_json_text

    with pytest.raises(ConfigError, match=r"c.json: a number has more than 4300 digits"):
        parse_json_text('{"repeats": ' + "9" * 5000 + "}", Path("c.json"))


def test_a_required_key_given_under_a_near_name_is_said_to_be_the_slip() -> None:
    """``{"checkpoint": []}`` where ``checkpoints`` is required: the message points at the key
    given, not only at the one missing."""
    from proctor.addons.grounding.checkpoints import CheckpointFile

    with pytest.raises(ValidationError) as info:
        CheckpointFile.model_validate({"checkpoint": []})
    assert describe_validation_error("cp.json", info.value, CheckpointFile) == (
        "cp.json: field 'checkpoints' is required but missing ('checkpoint' is given: did you "
        "mean 'checkpoints'?)"
    )
    with pytest.raises(ValidationError) as info:
        CheckpointFile.model_validate({"other": []})
    message = describe_validation_error("cp.json", info.value, CheckpointFile)
    assert message == "cp.json: field 'checkpoints' is required but missing"


@pytest.mark.parametrize(
    ("model", "config", "expected"),
    [
        (
            TopConfig,
            {"codingagents": {"claude-code": {"credentials": None}}},
            "field 'codingagents.claude-code.credentials': expected 'forward' or 'none', got null",
        ),
        (
            CaseConfig,
            {"mode": True},
            "field 'mode': expected 'headless' or 'interactive', got true",
        ),
        (CaseConfig, {"agents": []}, "field 'agents': expected at least one item, got none"),
        (
            CaseConfig,
            {"mode": "x"},
            "field 'mode': expected 'headless' or 'interactive', got \"x\"",
        ),
        (
            TopConfig,
            {"gate": {"ab": {"treatment": "", "baseline": "b"}}},
            "field 'gate.ab.treatment': expected a non-empty string, got an empty one",
        ),
        (
            TopConfig,
            {"out": "a\0b"},
            "field 'out': a path cannot hold a NUL character, got \"a\\u0000b\"",
        ),
    ],
)
def test_a_message_spells_values_as_json_in_proctors_words(
    model: Any, config: dict[str, Any], expected: str
) -> None:
    """``got null``, not ``got None``; pydantic's "List should have at least 1 item after
    validation, not 0" and "String should have at least 1 character" said as proctor says."""
    with pytest.raises(ValidationError) as info:
        model.model_validate(config)
    message = describe_validation_error("f.json", info.value, model)
    assert message == f"f.json: {expected}"


def test_a_long_value_holding_a_key_is_masked_before_it_is_cut(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A value shown cut to its first characters is masked first: cut, the key's first 55
    characters were no longer the key the output masks, and were printed (and appended to a
    CI's job summary) in the clear."""
    from proctor.util import masking

    key = "sk-ant-api03-" + "k" * 80
    monkeypatch.setattr(masking, "_SECRETS", {key})
    for value in (key, key + " and more"):
        message = case_error({"timeoutSec": value})
        assert "kkkkk" not in message
        assert 'got the string "***' in message
        assert "kkkkk" not in case_error({"repeats": [value]})
    from proctor.models.errors_format import json_text

    assert json_text(key) == '"***"'


@pytest.mark.parametrize(("document", "got"), [([1], "a list"), ("x", 'the string "x"')])
def test_a_document_that_is_not_an_object_names_no_empty_field(document: Any, got: str) -> None:
    with pytest.raises(ValidationError) as info:
        MetricsConfig.model_validate(document)
    said = describe_validation_error("d.json", info.value, MetricsConfig)
    assert said == f"d.json: expected an object, got {got}"


@pytest.mark.parametrize(
    ("model", "config", "expected"),
    [
        (
            CaseConfig,
            {"timeoutSec": 60, "timeout_sec": 5},
            "case/config.json: keys 'timeoutSec' and 'timeout_sec' both set field 'timeoutSec' "
            "('timeout_sec' is its Python name); keep 'timeoutSec' alone",
        ),
        (
            TopConfig,
            {"codingagents": {"cc": {"agent": "codex", "agentModel": "a", "agent_model": "b"}}},
            "case/config.json: keys 'agentModel' and 'agent_model' both set field "
            "'codingagents.cc.agentModel' ('agent_model' is its Python name); keep 'agentModel' "
            "alone",
        ),
    ],
)
def test_a_field_given_by_its_key_and_its_python_name_is_said_set_twice(
    model: Any, config: dict[str, Any], expected: str
) -> None:
    """Not "unknown key 'timeout_sec' (did you mean 'timeoutSec'?)": given alone, that name is
    taken, so the sentence says the field is set twice."""
    alone = json.loads(
        json.dumps(config).replace('"timeoutSec": 60, ', "").replace('"agentModel": "a", ', "")
    )
    assert model.model_validate(alone)  # control: the Python name alone is taken
    with pytest.raises(ValidationError) as info:
        model.model_validate(config)
    assert describe_validation_error("case/config.json", info.value, model) == expected


def test_a_python_name_a_model_does_not_take_stays_an_unknown_key() -> None:
    from proctor.addons.install_expect import InstallExpectation

    with pytest.raises(ValidationError) as info:
        InstallExpectation.model_validate({"claude-code": {}, "claude_code": {}})
    message = describe_validation_error("expect.json", info.value, InstallExpectation)
    assert message.startswith("expect.json: unknown key 'claude_code' (did you mean")
