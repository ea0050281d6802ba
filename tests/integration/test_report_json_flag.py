"""`proctor report --json`: the JSON report, as `--reporter json` prints it and as `run --json`
reads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import MakeCase, Run


def two_runs(proctor: Run, make_case: MakeCase, tmp_path: Path) -> list[Path]:
    """Two runs of one case of two repeats, each in a results folder of its own."""
    make_case("fix", config={"repeats": 2}, plan={"turns": [{"say": "hi"}]})
    runs = []
    for name in ("first", "second"):
        out = tmp_path / name
        assert proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out)).code == 0
        (run,) = out.glob("run-*")
        runs.append(run)
    return runs


def test_json_prints_the_json_report_as_reporter_json_does(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    run = str(two_runs(proctor, make_case, tmp_path)[0])
    named = proctor("report", run, "--reporter", "json")
    flag = proctor("report", run, "--json")
    assert flag.code == named.code == 0, flag.err
    assert flag.out == named.out and json.loads(flag.out)["totals"]["n"] == 2
    # As `run --json`: the JSON report is printed, the other reporters named are written.
    both = proctor("report", run, "--json", "--reporter", "markdown")
    assert both.code == 0 and json.loads(both.out)["runId"] == Path(run).name
    assert "printed the json report only; --write writes markdown into the run folder" in both.err
    (Path(run) / "suite.md").unlink()
    written = proctor("report", run, "--json", "--reporter", "markdown", "--write")
    assert written.code == 0 and json.loads(written.out)["totals"]["n"] == 2
    assert (Path(run) / "suite.md").read_text().startswith("# proctor run ")
    # The repeated-run table belongs to the Markdown report, which --json does not print.
    refused = proctor("report", run, "--json", "--reporter", "markdown", "--repeated")
    assert refused.code == 2 and refused.out == ""
    assert "--repeated adds a Markdown table to the Markdown report: --json prints" in refused.err


def test_a_key_is_masked_in_the_report_printed_without_write(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: Any
) -> None:
    """A key of the environment that is in a stored record (one written before the key was
    set, or by hand) is masked in what `report` prints, as in the files `--write` writes."""
    first, second = two_runs(proctor, make_case, tmp_path)
    key = "sk-proj-PLANTEDreportCCCC3333"
    for run in (first, second):
        path = run / "trials/fix/scripted/default/1/trial.json"
        record = json.loads(path.read_text())
        record.update(status="failed", passed=False, reason=f"gate failed: {key} in its output")
        path.write_text(json.dumps(record))
    control = proctor("report", str(first))
    assert f"gate failed: {key} in its output" in control.out  # no key set: nothing to mask
    monkeypatch.setenv("OPENAI_API_KEY", key)
    for args in ([str(first)], [str(first), str(second)], [str(first), "--repeated"]):
        printed = proctor("report", *args)
        assert printed.code == 1, printed.err
        assert key not in printed.out + printed.err and "gate failed: *** in its output" in (
            printed.out
        ), printed.out


def test_min_samples_alone_shows_the_repeated_run_view_it_filters(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """As --goal-shape does: a filter given is never silently left unused."""
    run = str(two_runs(proctor, make_case, tmp_path)[0])
    plain = proctor("report", run)
    assert "## Repeated runs" not in plain.out  # the control: no view asked for
    shown = proctor("report", run, "--min-samples", "2")
    assert shown.code == 0 and "## Repeated runs" in shown.out
    assert "| fix | scripted | default | - | 2 | 2/2 |" in shown.out
    fewer = proctor("report", run, "--min-samples", "3")
    assert "(no case has enough samples)" in fewer.out
    refused = proctor("report", run, "--min-samples", "2", "--reporter", "json")
    assert refused.code == 2 and refused.out == ""
    assert "--min-samples filters a Markdown table of the Markdown report: give --reporter " in (
        refused.err
    )
