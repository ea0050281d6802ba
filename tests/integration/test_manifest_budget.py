"""`proctor run --manifest`: the budget (``--budget-usd``, else ``budgetUsd`` of the
configuration) is the command's, warned at once the pairs it runs, and those it kept from an
earlier run of it, spent more than it, as a run and its resume count it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import MakeCase, Run

AB = {"conditions": {"baseline": {}, "treatment": {}}}
PLAN = {"model": "pricey", "turns": [{"say": "hello"}, {"shell": "echo hi"}]}
PRICING = {"pricey": {"inputPer1M": 1e5, "outputPer1M": 1e5}}


def manifest_of(proctor: Run, tmp_path: Path, pairs: int) -> Path:
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,single_goal\n")
    manifest = tmp_path / "repeats.json"
    planned = proctor(
        "plan-repeats",
        *("--goal-labels", str(labels), "--pairs", str(pairs), "--output", str(manifest)),
    )
    assert planned.code == 0, planned.err
    return manifest


def trial_cost(proctor: Run, tmp_path: Path, config: Path) -> float:
    """What one trial of the case costs (a run of it alone, in another results folder)."""
    out = tmp_path / "priced"
    cases = tmp_path / "cases"
    argv = ("run", "--source", str(cases), "--config", str(config), "--out", str(out))
    assert proctor(*argv, "--condition", "baseline").code == 0
    record = json.loads(next(out.glob("run-*/trials/t1/*/baseline/1/trial.json")).read_text())
    cost = record["cost"]["totalUsd"]
    assert cost and cost > 0
    return float(cost)


def test_the_budget_of_proctor_json_is_the_whole_manifest_s(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("t1", config=AB, plan=PLAN)
    manifest = manifest_of(proctor, tmp_path, pairs=2)
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"pricing": PRICING}))
    each = trial_cost(proctor, tmp_path, config)
    # Each pair runs two trials: neither passes the budget alone, the two together do.
    config.write_text(json.dumps({"pricing": PRICING, "budgetUsd": round(2.5 * each, 6)}))
    argv = ("run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"))
    ran = proctor(*argv, "--config", str(config), "--out", str(tmp_path / "out"))
    assert ran.code == 0, ran.err
    assert ran.err.count("passed the budget") == 1, ran.err


def test_a_manifest_run_again_counts_the_pairs_it_kept_against_its_budget(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("t1", config=AB, plan=PLAN)
    manifest = manifest_of(proctor, tmp_path, pairs=2)
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"pricing": PRICING}))
    each = trial_cost(proctor, tmp_path, config)
    out = tmp_path / "out"
    argv = ("run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"))
    argv = (*argv, "--config", str(config), "--out", str(out))
    assert proctor(*argv).code == 0
    # Pair 2 left as an interrupt leaves it: one of its trials without its record.
    (second,) = (out / "pair-2").glob("run-*")
    record = json.loads((second / "run.json").read_text())
    (second / "run.json").write_text(json.dumps({**record, "interrupted": True}))
    (next(second.glob("trials/t1/*/treatment/1")) / "trial.json").unlink()
    # The three trials kept pass it; the one run now alone would not.
    again = proctor(*argv, "--budget-usd", f"{2.5 * each:.6f}")
    assert again.code == 0, again.err
    assert f"pair-2: resuming {second}" in again.err
    assert "passed the budget" in again.err
