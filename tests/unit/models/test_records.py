import json
import re
from pathlib import Path

import pytest

import proctor
from proctor.errors import ConfigError, SchemaVersionError
from proctor.models.base import SCHEMA_VERSION
from proctor.models.io import read_record, write_record
from proctor.models.schemas import SCHEMAS, render
from proctor.models.trial import TrialRecord

SCHEMA_DIR = Path(__file__).parents[3] / "docs" / "schemas"


def test_round_trip(tmp_path: Path) -> None:
    record = TrialRecord(case="c", agent="a", repeat=1, status="passed", passed=True, score=90)
    write_record(tmp_path / "t.json", record)
    assert read_record(tmp_path / "t.json", TrialRecord) == record
    assert json.loads((tmp_path / "t.json").read_text())["schemaVersion"] == SCHEMA_VERSION == 2


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    (tmp_path / "t.json").write_text(json.dumps({"schemaVersion": SCHEMA_VERSION + 1, "case": "c"}))
    with pytest.raises(SchemaVersionError, match="newer than this proctor understands"):
        read_record(tmp_path / "t.json", TrialRecord)


@pytest.mark.parametrize(
    ("version", "shown"), [(True, "true"), ("2", '"2"'), (None, "null"), (0, "0"), (2.5, "2.5")]
)
def test_a_schema_version_that_is_no_version_is_named_as_the_file_spells_it(
    tmp_path: Path, version: object, shown: str
) -> None:
    (tmp_path / "t.json").write_text(json.dumps({"schemaVersion": version, "case": "c"}))
    with pytest.raises(ConfigError, match=f"schemaVersion {re.escape(shown)} is not a version"):
        read_record(tmp_path / "t.json", TrialRecord)


def test_older_files_without_new_fields_still_load(tmp_path: Path) -> None:
    minimal = {"case": "c", "agent": "a", "repeat": 1, "status": "failed", "futureField": 1}
    (tmp_path / "t.json").write_text(json.dumps(minimal))
    assert read_record(tmp_path / "t.json", TrialRecord).status == "failed"


def test_unreadable_record(tmp_path: Path) -> None:
    (tmp_path / "t.json").write_text("{")
    with pytest.raises(ConfigError, match="not a readable JSON file"):
        read_record(tmp_path / "t.json", TrialRecord)


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_committed_schemas_match_the_models(name: str) -> None:
    committed = (SCHEMA_DIR / f"{name}.schema.json").read_text()
    assert committed == render(name), "run `make schemas` and commit the result"


def test_public_surface() -> None:
    assert proctor.__all__ == [
        "ABGateResult",
        "ABReport",
        "AgentProfile",
        "Case",
        "CaseConfig",
        "ConfigError",
        "ConfigRecord",
        "EvalResultRecord",
        "EvaluatorResult",
        "EvaluatorSpec",
        "Event",
        "ExitCode",
        "Gate",
        "GroupStats",
        "ModelUsage",
        "ProcessMetrics",
        "ProctorError",
        "QuestionRecord",
        "ResolvedRecord",
        "RuleResult",
        "RunManifest",
        "RunPlan",
        "RunResult",
        "SchemaVersionError",
        "StoredRun",
        "SuiteRecord",
        "TopConfig",
        "Trajectory",
        "TrialRecord",
        "TrialSpec",
        "__version__",
        "load_run",
        "parse_transcript",
        "recompute_run",
        "run",
    ]
    for name in proctor.__all__:
        assert getattr(proctor, name) is not None, name
    with pytest.raises(AttributeError):
        _ = proctor.not_a_name


def test_the_ab_record_and_the_statistics_name_the_same_case_verdicts() -> None:
    from typing import get_args

    from proctor.models.ab import CaseVerdict as Recorded
    from proctor.stats.ab import CaseVerdict as Computed

    assert get_args(Recorded) == get_args(Computed)


def test_a_run_says_how_to_finish_it_by_the_command_that_ran_it() -> None:
    from proctor.models.run import RunManifest

    ran = RunManifest(run_id="r", proctor_version="0", started_at="t", argv=["proctor", "run"])
    assert ran.finish_hint("R") == "`proctor run --resume R` finishes it" and not ran.by_eval
    evaled = ran.model_copy(update={"argv": ["proctor", "eval", "--dir", "."]})
    assert evaled.by_eval and "`proctor eval` again" in evaled.finish_hint("R")
    written = ran.model_copy(update={"argv": ["python"], "source": "/o/evals-src/2026"})
    assert written.by_eval  # its cases are an eval's, whoever started it
