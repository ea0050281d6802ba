"""Each trial records the agent's session id, and the JSON report its final answer ends with
when the case asks for one (selfReport)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import MakeCase, Run, load_trial, run_cases, single_run_dir

REPORTING = {"turns": [{"say": 'All done.\n```json\n{"fixed": true, "confidence": 0.8}\n```'}]}


def test_the_final_json_report_is_kept_next_to_what_proctor_measured(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("asks", config={"selfReport": True}, plan=REPORTING)
    make_case("silent", config={"selfReport": True}, plan={"turns": [{"say": "All done."}]})
    make_case("control", plan=REPORTING)  # does not ask: nothing is kept
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 0, result.err
    run_dir = single_run_dir(out)
    asks = load_trial(run_dir, "asks")
    assert asks["selfReport"] == {"fixed": True, "confidence": 0.8}
    assert asks["sessionId"]
    silent = load_trial(run_dir, "silent")
    assert silent["selfReport"] is None
    assert silent["selfReportMissing"] == "its final answer holds no JSON object"
    assert load_trial(run_dir, "control")["selfReport"] is None
