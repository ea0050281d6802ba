"""The digests ``resolved.json`` keeps of a case for ``--resume``: its files outside the fixture
(with the skill and plugin folders it provisions from elsewhere) and its whole configuration,
environment values included but never written down."""

from __future__ import annotations

from pathlib import Path

from proctor.models.case import Case
from proctor.models.config import CaseConfig, CliOverrides, TopConfig
from proctor.plan.records import config_digest, files_digest
from proctor.plan.resolve import resolve_case


def a_case(tmp_path: Path, **config: object) -> Case:
    folder = tmp_path / "cases" / "c"
    (folder / "src").mkdir(parents=True, exist_ok=True)
    (folder / "prompt.md").write_text("p")
    return Case(
        name="c",
        path=folder,
        prompt="p",
        config=CaseConfig.model_validate(config),
        fixture=folder / "src",
        fixture_kind="dir",
    )


def digests(case: Case, top: TopConfig | None = None) -> tuple[str, str | None]:
    top = top or TopConfig()
    rc = resolve_case(case, top, CliOverrides())
    return config_digest(rc, top.codingagents), files_digest(rc)


def test_a_skill_provisioned_from_outside_the_case_folder_is_covered(tmp_path: Path) -> None:
    skill = tmp_path / "skills" / "review"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("v1")
    provision = {"skills": [{"name": "review", "path": "../../skills/review"}]}
    case = a_case(tmp_path, conditions={"with": {"provision": provision}, "without": {}})
    _, before = digests(case)
    (skill / "SKILL.md").write_text("v2")
    assert digests(case)[1] != before


def test_the_fixture_is_left_to_its_own_digest(tmp_path: Path) -> None:
    case = a_case(tmp_path)
    _, before = digests(case)
    (case.path / "src" / "app.py").write_text("x")
    assert digests(case)[1] == before
    (case.path / "score.py").write_text("x")
    assert digests(case)[1] != before


def test_an_environment_value_changes_the_configuration_digest(tmp_path: Path) -> None:
    case = a_case(tmp_path)
    before, _ = digests(case, TopConfig(env={"TOKEN": "one"}))
    assert digests(case, TopConfig(env={"TOKEN": "one"}))[0] == before
    assert digests(case, TopConfig(env={"TOKEN": "two"}))[0] != before
    profiles = {"codingagents": {"scripted": {"env": {"MODEL_URL": "http://a"}}}}
    assert digests(case, TopConfig.model_validate(profiles))[0] != before


def test_caches_leftovers_and_results_in_a_case_folder_change_nothing(tmp_path: Path) -> None:
    case = a_case(tmp_path)
    (case.path / "score.py").write_text("print(100)")
    (case.path / ".claude").mkdir()
    (case.path / ".claude" / "settings.json").write_text("{}")
    _, before = digests(case)
    (case.path / ".DS_Store").write_bytes(b"\0")
    (case.path / "__pycache__").mkdir()
    (case.path / "__pycache__" / "score.cpython-311.pyc").write_bytes(b"\0")
    (case.path / "score.py~").write_text("old")
    (case.path / ".cache").mkdir()  # what a scorer run from the case folder writes
    (case.path / ".cache" / "last-run.txt").write_text("1")
    run = case.path / "proctor-results" / "run-1"
    (run / "trials").mkdir(parents=True)
    (run / "run.json").write_text("{}")
    assert digests(case)[1] == before
    (case.path / ".claude" / "settings.json").write_text('{"hooks": {}}')  # part of the case
    assert digests(case)[1] != before
    (case.path / ".claude" / "settings.json").write_text("{}")
    (case.path / "score.py").write_text("print(50)")  # control: the scorer changed
    assert digests(case)[1] != before
