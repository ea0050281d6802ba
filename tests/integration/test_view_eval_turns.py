"""The Trial page of an eval shows what its ``eval.json`` holds: each message the test sent,
how its turn ended and the calls made in it, the ``t.log`` lines and the ``t.metric`` values
(the page showed none of them: an eval's logs and metrics were in ``--json`` and a file
alone)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from starlette.testclient import TestClient

from proctor.models.io import write_record
from proctor.models.trial import EvalResultRecord, EvalToolCall
from proctor.report.eval_turns import eval_of
from proctor.view import ViewSettings, build_app
from tests.conftest import Run
from tests.integration.test_evals_cli import project, run_json

TWO_TURNS = """
    from proctor.evals import define_eval
    PLAN = {"turns": [
        {"read": "a.txt"},
        {"say": "read it"},
        {"endTurn": True},
        {"shell": "cat a.txt"},
        {"say": "ran it"},
    ]}
    async def test(t):
        (await t.send("read a.txt", workspace_files={"a.txt": "one\\n"})).expect_ok()
        t.log("first turn done")
        (await t.send("now run cat")).expect_ok()
        t.metric("answers", 2)
    eval = define_eval(plan=PLAN, test=test)
"""


def _text(page: str) -> str:
    section = page[page.index('<section id="eval">') : page.index('<section id="trajectory">')]
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", section))).strip()


def test_the_trial_page_shows_each_turn_and_the_test_s_logs_and_metrics(
    proctor: Run, tmp_path: Path
) -> None:
    root = project(tmp_path, {"two.eval.py": TWO_TURNS})
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 0, result.err
    run = Path(out["runDir"]).name
    with TestClient(build_app(ViewSettings(results=tmp_path / "out"))) as client:
        page = client.get(f"/runs/{run}/trials/two/scripted/default/1")
    assert page.status_code == 200
    shown = _text(page.text)
    assert "1 read a.txt turn-end Read (read)" in shown, shown
    assert "2 now run cat turn-end Bash (shell)" in shown, shown
    assert "Log (t.log) first turn done" in shown, shown
    assert "Metrics (t.metric) name value answers 2.0" in shown, shown


def test_an_older_record_keeps_its_calls_apart_and_a_broken_one_is_said(tmp_path: Path) -> None:
    """A record written before each call's turn was kept shows its calls under the turns;
    one that does not read is said, not taken for no eval."""
    path = tmp_path / "eval.json"
    old = EvalResultRecord(
        id="a",
        iteration=1,
        inputs=["go"],
        turn_outcomes=["turn-end"],
        tool_calls=[EvalToolCall(tool_name="Bash", is_error=True)],
    )
    write_record(path, old)
    view = eval_of(path)
    assert not isinstance(view, str) and view is not None
    assert [(t.message, t.outcome, t.calls) for t in view.turns] == [("go", "turn-end", [])]
    assert view.unturned == ["Bash failed"]
    path.write_text(json.dumps({"schemaVersion": 2, "id": 5}))
    said = eval_of(path)
    assert isinstance(said, str) and said.startswith("eval.json does not read ("), said
    assert eval_of(tmp_path / "none.json") is None


def test_the_trial_page_shows_an_eval_s_log_cut_as_the_html_report_does(
    proctor: Run, tmp_path: Path
) -> None:
    """A test that logged a large file made the page as large as the file: the page shows the
    first log lines and says what it left out, as the HTML report does."""
    root = project(tmp_path, {"two.eval.py": TWO_TURNS})
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 0, result.err
    run_dir = Path(out["runDir"])
    path = run_dir / "trials/two/scripted/default/1/eval.json"
    record = json.loads(path.read_text())
    record["logs"] = [f"line {i}" for i in range(1, 501)]
    path.write_text(json.dumps(record))
    with TestClient(build_app(ViewSettings(results=tmp_path / "out"))) as client:
        page = client.get(f"/runs/{run_dir.name}/trials/two/scripted/default/1")
    shown = _text(page.text)
    assert "line 200" in shown and "line 201" not in shown, shown[-400:]
    assert "Cut: 300 more log lines; all of it is eval.json in the trial's folder." in shown
