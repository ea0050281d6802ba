"""``proctor validate`` names every problem in one pass: a ``proctor.json`` entry that names
no provider or agent, and a ``--case`` or ``--condition`` that picks nothing, among the cases'
own, where each was the one problem said."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import MakeCase, Run


def test_proctor_json_entries_are_listed_with_the_cases_problems(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("good")
    make_case("broken", config="{")
    make_case("mine", config={"agents": ["mine"]})  # uses the profile that names no agent
    config = tmp_path / "proctor.json"
    config.write_text(
        json.dumps({"limits": {"antropic": {"concurrency": 1}}, "codingagents": {"mine": {}}})
    )
    checked = proctor("validate", "--source", str(tmp_path / "cases"), "--config", str(config))
    assert checked.code == 2
    assert "Traceback" not in checked.err
    errors = [line for line in checked.err.splitlines() if line.startswith("proctor: error: ")]
    assert len(errors) == 4, checked.err
    assert "broken/config.json: malformed JSON" in errors[0]
    assert errors[1].startswith(f"proctor: error: {config}: field 'limits.antropic': unknown")
    assert errors[2].startswith(f"proctor: error: {config}: field 'codingagents.mine.agent' is")
    assert errors[3] == "proctor: error: 3 configuration problems, each named above"
    assert checked.out.splitlines()[0].startswith("ok       good: ")


def test_a_case_or_condition_that_picks_nothing_is_listed_with_the_cases_problems(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("good")
    make_case("broken", config="{")
    cases = tmp_path / "cases"
    checked = proctor("validate", "--source", str(cases), "--case", "god", "--condition", "b")
    assert checked.code == 2
    errors = [line for line in checked.err.splitlines() if line.startswith("proctor: error: ")]
    assert errors == [
        "proctor: error: --case god: no case matches (did you mean 'good'? cases: good)",
        "proctor: error: --condition b: no case has that condition (conditions: none)",
        "proctor: error: 2 configuration problems, each named above",
    ], checked.err
    # The broken case --case does not choose is a warning, as run says it.
    assert "proctor: warning: case 'broken', which --case does not choose" in checked.err


def test_run_still_stops_at_the_first(proctor: Run, make_case: MakeCase, tmp_path: Path) -> None:
    make_case("good")
    ran = proctor("run", "--source", str(tmp_path / "cases"), "--case", "god", "--condition", "b")
    assert ran.code == 2
    assert ran.err.strip() == (
        "proctor: error: --case god: no case matches (did you mean 'good'? cases: good)"
    )
