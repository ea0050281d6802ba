"""Results written by proctor 0.1.0 (schema version 1) read the same today: ``proctor report``
and ``proctor compare`` give the exit codes, pass rates and A/B verdicts that release gave
(``tests/fixtures/results-v1/expected.json``), and every record upgrades to version 2."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from proctor.models.io import read_record, read_trial
from proctor.models.run import ConfigRecord, ResolvedRecord, RunManifest
from proctor.models.suite import SuiteRecord
from proctor.paths import RunPaths
from proctor.report.stored import load_run
from proctor.util.text import without_noise
from tests.conftest import CliResult

V1 = Path(__file__).parents[1] / "fixtures" / "results-v1"
EXPECTED = json.loads((V1 / "expected.json").read_text())
RUNS = {"example-suite": [], "ab-gate": ["--config", str(V1 / "ab-gate-proctor.json")]}
# What changed on purpose since that release. A pass rate's interval is a score interval now
# (Newcombe's), not a bootstrap of the pairs: three pairs that all passed on both sides give
# [-0.56, +0.56] where the bootstrap gave [0, 0], so the A/B gate allowing a drop of 0.1 no
# longer passes on them, and the run's exit code is 1.
CHANGED = {"ab-gate": {"reportExit": 1, "exitCode": 1, "abGatePassed": False}}
RESCORED = ("ciLow", "ciHigh", "note")
"""The fields of a pass-rate comparison its new interval changes (checked apart)."""
# And a measure's comparison (time, tokens, …) over fewer than 6 pairs that vary makes no
# claim now: three pairs of timing jitter were "improved" by 0.1 s (even three pairs one way
# is p = 0.25 by the sign test).
WITHDRAWN = {"verdict": "insufficient-data", "ciLow": None, "ciHigh": None, "confidence": None}
ADDED = ("exactP",)
"""The fields a comparison gained since (its exact test's p-value), absent from the old."""
# And a measure whose every pair moved by the same amount (a point interval that excludes 0)
# over fewer than 6 pairs makes no claim either, its interval kept: three pairs of 4 fewer
# tool calls were "improved", and are p = 0.25 by the sign test.


def _expected(name: str) -> dict[str, Any]:
    return {**EXPECTED[name], **CHANGED.get(name, {})}


def _noiseless(value: Any) -> Any:
    """Every float as shown today: to twelve significant digits (an interval's bound that
    release wrote as -0.10200000000000001 is -0.102 now, see ``util.text.without_noise``)."""
    if isinstance(value, float):
        return without_noise(value)
    if isinstance(value, dict):
        return {k: _noiseless(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_noiseless(v) for v in value]
    return value


def _as_then(now: dict[str, Any], then: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``now`` with only the comparisons the old release made (later ones are added, the old
    ones must not change), and ``then`` without float noise; the pass rate's interval left
    out of both."""
    then = _noiseless(then)
    if "comparisons" in now and "comparisons" in then:
        kept = {
            k: {f: x for f, x in v.items() if f not in ADDED}
            for k, v in now["comparisons"].items()
            if k in then["comparisons"]
        }
        now, then = {**now, "comparisons": kept}, {**then, "comparisons": dict(then["comparisons"])}
        for metric, old in then["comparisons"].items():
            new = now["comparisons"].get(metric, {})
            varied = old.get("ciLow") != old.get("ciHigh")
            if metric != "passRate" and varied and new.get("nTreatment", 6) < 6:
                assert {k: new.get(k) for k in WITHDRAWN} == WITHDRAWN, (metric, new)
                then["comparisons"][metric] = {**old, **WITHDRAWN, "note": new.get("note")}
            elif (
                metric != "passRate"
                and old.get("verdict") in ("improved", "regressed")
                and new.get("nTreatment", 6) < 6
            ):
                assert new.get("verdict") == "insufficient-data", (metric, new)
                assert "but the sign test of the" in new.get("note", ""), (metric, new)
                then["comparisons"][metric] = {
                    **old,
                    "verdict": "insufficient-data",
                    "note": new.get("note"),
                }
        for side in (now, then):
            rate = side["comparisons"].get("passRate")
            if rate is not None:
                side["comparisons"]["passRate"] = {
                    k: v for k, v in rate.items() if k not in RESCORED
                }
    return now, then


def _score_interval(overall: dict[str, Any]) -> None:
    """The pass rate's interval is the score interval of the pairs' counts."""
    from proctor.stats.rates import wilson_paired_delta_interval

    rate = overall["comparisons"]["passRate"]
    if overall.get("pairs") and rate.get("ciLow") is not None:
        both = min(overall["treatmentPasses"], overall["baselinePasses"])
        if overall["treatmentPasses"] in (0, overall["pairs"]) or overall["baselinePasses"] in (
            0,
            overall["pairs"],
        ):  # the counts of the pairs follow from the margins
            first = overall["treatmentPasses"] - both
            second = overall["baselinePasses"] - both
            neither = overall["pairs"] - both - first - second
            low, high = wilson_paired_delta_interval(both, first, second, neither)  # type: ignore[misc]
            assert (rate["ciLow"], rate["ciHigh"]) == pytest.approx((low, high))


@pytest.mark.parametrize("name", sorted(RUNS))
def test_report_gives_what_the_old_release_gave(
    proctor: Callable[..., CliResult], name: str
) -> None:
    expected = _expected(name)
    result = proctor("report", str(V1 / name), "--reporter", "json", *RUNS[name])
    suite = json.loads(result.out)
    assert result.code == expected["reportExit"] and suite["exitCode"] == expected["exitCode"]
    groups = {
        f"{g['case']}/{g['agent']}/{g['condition']}": {
            "passRate": g["passRate"],
            "scored": g["scored"],
            "passes": g["passes"],
            "gatePassed": g["gatePassed"],
        }
        for g in suite["groups"]
    }
    assert groups == expected["groups"]
    assert (suite["abGate"] or {}).get("passed") == expected["abGatePassed"]
    now, then = _as_then(suite["ab"]["overall"], expected["abOverall"])
    assert now == then
    _score_interval(suite["ab"]["overall"])


@pytest.mark.parametrize("name", sorted(RUNS))
def test_compare_gives_what_the_old_release_gave(
    proctor: Callable[..., CliResult], name: str
) -> None:
    expected = _expected(name)
    result = proctor("compare", str(V1 / name), "--json")
    comparison = json.loads(result.out)
    assert result.code == expected["compareExit"]
    verdicts = {f"{c['case']}/{c['agent']}": c["classification"] for c in comparison["cases"]}
    assert verdicts == expected["compareCases"]
    now, then = _as_then(comparison["overall"], expected["compareOverall"])
    assert now == then
    _score_interval(comparison["overall"])


@pytest.mark.parametrize("name", sorted(RUNS))
def test_every_version_1_record_reads_as_version_2(name: str) -> None:
    paths = RunPaths(V1 / name)
    for path, model in (
        (paths.run_json, RunManifest),
        (paths.config_json, ConfigRecord),
        (paths.resolved_json, ResolvedRecord),
        (paths.suite_json, SuiteRecord),
    ):
        assert json.loads(path.read_text())["schemaVersion"] == 1
        assert read_record(path, model).schema_version == 2
    for path in paths.trial_jsons():
        record, dropped = read_trial(path)
        assert record.schema_version == 2 and not dropped
        assert record.transcript.trajectory_schema_version == 1
    run = load_run(V1 / name)
    assert run.resolved is not None and not run.notes
    entry = run.resolved.cases[0].evaluators[0]
    assert entry.use and "use" not in entry.params, "v1's flat parameters moved under params"


def test_report_write_rewrites_the_aggregate_as_version_2(
    proctor: Callable[..., CliResult], tmp_path: Path
) -> None:
    run = tmp_path / "run"
    shutil.copytree(V1 / "example-suite", run)
    result = proctor("report", str(run), "--write")
    assert result.code == EXPECTED["example-suite"]["reportExit"]
    assert json.loads((run / "suite.json").read_text())["schemaVersion"] == 2


def test_an_unreadable_resolved_json_is_an_error_not_a_default_gate(
    proctor: Callable[..., CliResult], tmp_path: Path
) -> None:
    run = tmp_path / "run"
    shutil.copytree(V1 / "example-suite", run)
    (run / "resolved.json").write_text("{broken")
    result = proctor("report", str(run))
    assert result.code == 2
    assert "resolved.json: not a readable JSON file" in result.err
    assert "holds the run's gate" in result.err and "--config" in result.err
    given = tmp_path / "gate.json"
    given.write_text(json.dumps({"gate": {"minPassRate": 0.5}}))
    fallback: Any = proctor("report", str(run), "--config", str(given))
    assert fallback.code == 1 and "resolved.json" in fallback.err, "stated, not silent"
