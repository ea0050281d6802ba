"""The HTML report of an eval shows what its ``eval.json`` holds, as the viewer's Trial page
does: each message the test sent, how its turn ended and the calls made in it, the ``t.log``
lines and the ``t.metric`` values, escaped and bounded (the report showed none of them)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from proctor.models.io import write_record
from proctor.models.trial import EvalResultRecord, EvalToolCall
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
        t.log("first turn done <script>alert(1)</script>")
        (await t.send("now run cat")).expect_ok()
        t.metric("answers", 2)
        t.require(1, 2)  # fails on purpose
    eval = define_eval(plan=PLAN, test=test)
"""


def _eval_section(page: str) -> str:
    start = page.index("<h2>Eval</h2>")
    return page[start : page.index("</details>", start) + len("</details>")]


def _text(section: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", section))).strip()


def test_the_html_report_shows_an_eval_s_turns_logs_and_metrics(
    proctor: Run, tmp_path: Path
) -> None:
    root = project(tmp_path, {"two.eval.py": TWO_TURNS})
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 1, result.err  # the check fails on purpose
    run_dir = Path(out["runDir"])
    report = proctor("report", str(run_dir), "--reporter", "html")
    assert report.code == 1, report.err  # as the run: its gate failed
    page = report.out
    section = _eval_section(page)
    assert '<details class="eval" open>' in section  # the trial failed: shown unfolded
    shown = _text(section)
    assert "2 turns, 1 log line, 1 metric" in shown, shown
    assert "1 read a.txt turn-end Read (read)" in shown, shown
    assert "2 now run cat turn-end Bash (shell)" in shown, shown
    assert "Log (t.log) first turn done <script>alert(1)</script>" in shown, shown
    assert "Metrics (t.metric) name value answers 2.0" in shown, shown
    assert "<script>alert(1)" not in section and "&lt;script&gt;alert(1)" in section


def test_a_huge_eval_json_is_shown_bounded_and_said_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from proctor.report import eval_turns
    from proctor.report.eval_turns import BoundedEval, bounded_eval

    path = tmp_path / "eval.json"
    calls = [EvalToolCall(tool_name="Bash", kind="shell", turn=1) for _ in range(60)]
    record = EvalResultRecord(
        id="a",
        iteration=1,
        inputs=["x" * 5000] + [f"message {i}" for i in range(149)],
        turn_outcomes=["turn-end"] * 150,
        tool_calls=calls,
        logs=[f"line {i}" for i in range(250)],
        metrics={f"m{i:03}": float(i) for i in range(210)},
    )
    write_record(path, record)
    shown = bounded_eval(path)
    assert isinstance(shown, BoundedEval) and shown.view is not None
    assert (shown.turns, shown.logs, shown.metrics) == (150, 250, 210)
    view = shown.view
    assert len(view.turns) == 100 and len(view.logs) == 200 and len(view.metrics) == 200
    assert view.turns[0].message.endswith("… (5000 characters)")
    assert len(view.turns[0].message) < 2100
    assert view.turns[0].calls[-1] == "and 10 more" and len(view.turns[0].calls) == 51
    assert shown.cut == (
        "Cut: 50 more turns, 50 more log lines, 10 more metrics, 1 long text cut short, calls "
        "past the first 50 of a turn; all of it is eval.json in the trial's folder."
    )
    small = tmp_path / "small" / "eval.json"
    small.parent.mkdir()
    write_record(small, EvalResultRecord(id="b", iteration=1, inputs=["hi"]))
    whole = bounded_eval(small)
    assert isinstance(whole, BoundedEval) and whole.cut is None
    monkeypatch.setattr(eval_turns, "MAX_EVAL_FILE", 1000)
    big = bounded_eval(path)
    assert isinstance(big, BoundedEval) and big.view is None
    assert big.cut is not None and big.cut.startswith("eval.json is ")
    assert big.cut.endswith(
        "bytes, more than the 1,000 read to show it: see it in the trial's folder"
    )
    assert bounded_eval(tmp_path / "none.json") is None


def test_long_names_are_cut_too_and_a_record_that_does_not_read_is_named_by_its_file(
    tmp_path: Path,
) -> None:
    """A metric's name, a call's name and a turn's outcome went through whole (a 6.9 MB
    section for one trial, said cut nowhere); a record that does not read was said with the
    reader's own folder, in a report made to be shared."""
    from proctor.report.eval_turns import BoundedEval, bounded_eval

    path = tmp_path / "eval.json"
    record = EvalResultRecord(
        id="a",
        iteration=1,
        inputs=["go"],
        turn_outcomes=["x" * 5000],
        tool_calls=[EvalToolCall(tool_name="T" * 3000, turn=1)],
        metrics={"m" * 3000: 1.0},
    )
    write_record(path, record)
    shown = bounded_eval(path)
    assert isinstance(shown, BoundedEval) and shown.view is not None
    (turn,) = shown.view.turns
    assert len(turn.outcome) < 300 and turn.outcome.endswith("… (5000 characters)")
    assert len(turn.calls[0]) < 300 and turn.calls[0].endswith("… (3000 characters)")
    assert [len(name) < 300 for name in shown.view.metrics] == [True]
    assert shown.cut == "Cut: 3 long texts cut short; all of it is eval.json in the trial's folder."
    path.write_bytes(b"\xff not json")
    said = bounded_eval(path)
    assert isinstance(said, str) and str(tmp_path) not in said, said
    assert said.startswith("eval.json does not read ("), said
