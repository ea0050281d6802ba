"""Outcome rates end to end: per group in suite.json and the report, and in the A/B summary."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import MakeCase, Run, run_cases, single_run_dir

CONFIG = {
    "repeats": 2,
    "expectedFiles": ["src/app.py"],
    "conditions": {"baseline": {}, "treatment": {}},
}
PLAN = {
    "conditions": {
        "treatment": {
            "turns": [
                {"read": "src/app.py"},
                {"write": {"path": "src/app.py", "content": "x = 2\n"}},
            ]
        },
        "baseline": {"turns": [{"write": {"path": "notes/other.py", "content": "y = 1\n"}}]},
    }
}


def test_rates_per_group_and_in_the_ab_summary(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix", config=CONFIG, plan=PLAN, src={"src/app.py": "x = 1\n"})
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 0, result.err
    suite = json.loads((single_run_dir(out) / "suite.json").read_text())
    groups = {g["condition"]: g["outcomes"] for g in suite["groups"]}
    assert groups["treatment"]["fileHit"]["rate"] == 1.0
    assert groups["treatment"]["patchInArea"]["rate"] == 1.0
    assert groups["baseline"]["patchInArea"]["rate"] == 0.0
    assert groups["baseline"]["wrongContext"]["rate"] == 1.0
    assert "## Outcome rates" in result.out
    compared = json.loads(
        proctor(
            "compare",
            str(single_run_dir(out)),
            "--treatment",
            "treatment",
            "--baseline",
            "baseline",
            "--json",
        ).out
    )
    comparisons = compared["overall"]["comparisons"]
    assert comparisons["patchInAreaRate"]["treatment"] == 1.0
    assert comparisons["patchInAreaRate"]["baseline"] == 0.0
    assert comparisons["wrongContextRate"]["delta"] == -1.0
