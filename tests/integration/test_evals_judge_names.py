"""Two judges of one kind in an eval are two findings, named by their criteria, whichever
order the test calls them in (they shared the name ``judge.closed_qa`` and a place-numbered
``#2``, so a reordering resolved one's finding by the other's pass); and the test's
``t.metric`` values are rolled up as the evaluators' metrics are, in ``trial.json`` and
``suite.json`` (they were in ``eval.json`` alone)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from starlette.testclient import TestClient

from proctor.view import ViewSettings, build_app
from tests.conftest import Run
from tests.integration.test_evals_cli import project, run_json

TWO_JUDGES = """
    from proctor.evals import define_eval
    FIXED = {"json": {"score": 90, "confidenceLevel": 80, "rationale": "says the fix"}}
    RAN = {"json": {"score": 20, "confidenceLevel": 80, "rationale": "no test run"}}
    PLAN = {"turns": [{"say": "fixed mean()"}], "roles": {"judge": JUDGES}}
    async def fixed(t):
        (await t.judge.closed_qa("Does the reply say what was fixed?")).gate(0.7)
    async def ran(t):
        (await t.judge.closed_qa("Does the reply say the tests ran?")).gate(0.7)
    async def test(t):
        (await t.send("fix it")).expect_ok()
        for judge in ORDER:
            await judge(t)
        t.metric("calls", 2)
    eval = define_eval(judge="scripted/judge", plan=PLAN, test=test)
"""


def _two(first: str, second: str) -> str:
    return TWO_JUDGES.replace("JUDGES", f"[{first.upper()}, {second.upper()}]").replace(
        "ORDER", f"[{first}, {second}]"
    )


def test_two_judges_of_a_kind_keep_their_findings_when_their_order_changes(
    proctor: Run, tmp_path: Path
) -> None:
    root = project(tmp_path, {"two.eval.py": _two("fixed", "ran")})
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 1, result.err
    (case,) = out["results"]
    assert [a["name"] for a in case["assertions"][1:]] == [
        "judge.closed_qa('Does the reply say what was fixed?')",
        "judge.closed_qa('Does the reply say the tests ran?')",
    ]
    (root / "evals" / "two.eval.py").write_text(
        (root / "evals" / "two.eval.py")
        .read_text()
        .replace("[fixed, ran]", "[ran, fixed]")
        .replace("[FIXED, RAN]", "[RAN, FIXED]")
    )
    result, _ = run_json(proctor, root, tmp_path)
    assert result.code == 1, result.err
    ledger = json.loads((tmp_path / "out" / "findings.json").read_text())
    findings = [(f["check"], f["state"], f["failures"]) for f in ledger["findings"]]
    assert findings == [("eval: judge.closed_qa('Does the reply say the tests ran?')", "open", 2)]


def test_t_metric_values_are_rolled_up_as_the_evaluators_metrics(
    proctor: Run, tmp_path: Path
) -> None:
    root = project(tmp_path, {"two.eval.py": _two("fixed", "fixed")})
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 0, result.err
    run = Path(out["runDir"])
    trial = json.loads(
        (run / "trials" / "two" / "scripted" / "default" / "1" / "trial.json").read_text()
    )
    (carried,) = [e for e in trial["evaluators"] if e["metrics"]]
    assert carried["use"] == "eval-metrics" and not carried["counted"] and not carried["gate"]
    assert carried["metrics"] == {"eval.calls": 2.0}
    # The score is the assertions' mean still, (100 + 90 + 90) / 3: the metrics are no assertion.
    assert trial["score"] == round(280 / 3, 4) and trial["status"] == "passed"
    suite = json.loads((run / "suite.json").read_text())
    (group,) = suite["groups"]
    assert group["metrics"]["eval.calls"]["median"] == 2.0
    assert suite["totals"]["metrics"]["eval.calls"]["n"] == 1


def _evaluators(page: str) -> list[str]:
    table = page[page.index("<h2>Evaluators</h2>") : page.index("<h2>Time and usage</h2>")]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)
    return [re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", r))).strip() for r in rows]


def test_the_trial_page_shows_an_eval_s_assertions_as_evaluators_read(
    proctor: Run, tmp_path: Path
) -> None:
    root = project(tmp_path, {"two.eval.py": _two("fixed", "ran")})
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 1, result.err
    run = Path(out["runDir"]).name
    with TestClient(build_app(ViewSettings(results=tmp_path / "out"))) as client:
        page = client.get(f"/runs/{run}/trials/two/scripted/default/1")
    assert page.status_code == 200
    file = root / "evals" / "two.eval.py"
    rows = _evaluators(page.text)
    assert rows[1:] == [
        f"eval yes 100.0 gate – turn 1: expect_ok() turn 1; at {file}:11",
        "eval yes 90.0 gate – judge.closed_qa('Does the reply say what was fixed?'): says the "
        f"fix bar 0.7; at {file}:7",
        "eval no 20.0 gate – judge.closed_qa('Does the reply say the tests ran?'): no test run; "
        f"score 0.20 < 0.7 bar 0.7; at {file}:9",
        "eval-metrics yes 100.0 – t.metric: eval.calls 2 (not scored)",
    ], rows
    assert '"why"' not in page.text  # no details blob
