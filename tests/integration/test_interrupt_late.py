"""A Ctrl-C or SIGTERM that lands as the executor returns (after its own stop could take it)
leaves the run interrupted with its aggregate written, read back from the trials' records."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

import proctor
from proctor.execute import executor
from tests.conftest import MakeCase, Run


def test_a_stop_as_the_executor_returns_reads_the_records_back(
    make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stop_handlers: None
) -> None:
    make_case("one", plan={"turns": [{"say": "hi"}]})
    make_case("two", plan={"turns": [{"say": "hi"}]})
    ran = executor.LocalExecutor.run

    def stopped_on_return(self: Any, *args: Any, **kwargs: Any) -> Any:
        ran(self, *args, **kwargs)
        raise KeyboardInterrupt  # as a signal landing after the executor's stop

    monkeypatch.setattr(executor.LocalExecutor, "run", stopped_on_return)
    result = proctor.run(tmp_path / "cases", out=tmp_path / "out", reporters=["json"])
    assert result.exit_code == 130
    assert result.suite.interrupted
    assert sorted(r.case for r in result.records) == ["one", "two"]
    assert all(r.status == "passed" for r in result.records)
    suite = json.loads((result.paths.root / "suite.json").read_text())
    assert suite["totals"]["n"] == 2 and suite["exitCode"] == 130
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # given back


def _two_cases(make_case: MakeCase) -> None:
    make_case("one", plan={"turns": [{"say": "hi"}]})
    make_case("two", plan={"turns": [{"say": "hi"}]})


def _stop_after(target: Any, name: str, monkeypatch: pytest.MonkeyPatch, number: int) -> None:
    """``target.name`` sends this process ``number`` once it has done its work (a real signal,
    landing at that moment), and waits a moment for it."""
    real = getattr(target, name)

    def then_stopped(*args: Any, **kwargs: Any) -> Any:
        value = real(*args, **kwargs)
        os.kill(os.getpid(), number)
        time.sleep(0.2)  # a handler that raises does so here
        return value

    monkeypatch.setattr(target, name, then_stopped)


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_as_the_run_folder_is_made_ends_the_run_with_its_aggregate(
    proctor: Run,
    make_case: MakeCase,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    stop_handlers: None,
    number: int,
) -> None:
    """Before, the run stopped with "proctor: error: interrupted" and a folder without
    suite.json or an end, which `proctor report` did not take for a run."""
    from proctor.session import run as session_run

    _two_cases(make_case)
    _stop_after(session_run, "write_start_records", monkeypatch, number)
    out = tmp_path / "out"
    result = proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out))
    assert result.code == 130, result.err
    (run_dir,) = out.glob("run-*")
    assert "error: interrupted" not in result.err
    assert f"results in {run_dir}" in result.err
    assert f"`proctor run --resume {run_dir}` finishes it" in result.err
    suite = json.loads((run_dir / "suite.json").read_text())
    assert suite["interrupted"] and suite["exitCode"] == 130 and suite["totals"]["n"] == 0
    manifest = json.loads((run_dir / "run.json").read_text())
    assert manifest["interrupted"] and manifest["finishedAt"]
    assert not list(run_dir.glob("trials/*"))  # no trial started
    monkeypatch.undo()
    resumed = proctor("run", "--resume", str(run_dir))
    assert resumed.code == 0 and "0 kept, 2 run now" in resumed.err, resumed.err


def test_a_stop_while_a_resume_clears_its_trials_ends_it_with_its_aggregate(
    proctor: Run,
    make_case: MakeCase,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    stop_handlers: None,
) -> None:
    from proctor.session import resume

    _two_cases(make_case)
    out = tmp_path / "out"
    assert proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out)).code == 0
    (run_dir,) = out.glob("run-*")
    (run_dir / "trials/two/scripted/default/1/trial.json").unlink()  # as a kill leaves it
    _stop_after(resume, "clear_for_rerun", monkeypatch, signal.SIGINT)
    result = proctor("run", "--resume", str(run_dir))
    assert result.code == 130, result.err
    assert "1 kept, 0 run now, 1 left for another --resume" in result.err
    suite = json.loads((run_dir / "suite.json").read_text())
    assert suite["interrupted"] and suite["exitCode"] == 130 and suite["totals"]["n"] == 1
    assert json.loads((run_dir / "run.json").read_text())["interrupted"]


def test_a_stop_while_the_findings_ledger_is_updated_leaves_the_run_as_written(
    proctor: Run,
    make_case: MakeCase,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    stop_handlers: None,
) -> None:
    """Every trial ended and the aggregate is written: the stop cuts the ledger's update
    short (the next run applies it), and the run ends as its files say. Before, it exited 130
    with suite.json saying 0, nothing printed, the reports without their findings."""
    from proctor.report import findings

    _two_cases(make_case)
    real = findings.update_after_run

    def stopped_waiting(*args: Any, **kwargs: Any) -> Any:
        os.kill(os.getpid(), signal.SIGINT)  # as while it waits for another's lock
        time.sleep(0.2)
        return real(*args, **kwargs)

    monkeypatch.setattr(findings, "update_after_run", stopped_waiting)
    out = tmp_path / "out"
    result = proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out))
    assert result.code == 0, result.err
    (run_dir,) = out.glob("run-*")
    assert result.out.startswith("# proctor run") and f"results in {run_dir}" in result.err
    assert "findings ledger's update was cut short" in result.err
    suite = json.loads((run_dir / "suite.json").read_text())
    assert suite["exitCode"] == 0 and not suite["interrupted"]
    assert not json.loads((run_dir / "run.json").read_text())["interrupted"]
    monkeypatch.undo()
    assert proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out)).code == 0
    ledger = json.loads((out / "findings.json").read_text())
    assert run_dir.name in ledger["runs"]  # applied by the next run


def test_a_stop_while_the_reports_show_the_findings_leaves_the_run_as_written(
    proctor: Run,
    make_case: MakeCase,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    stop_handlers: None,
) -> None:
    from proctor.session import reports

    _two_cases(make_case)
    _stop_after(reports, "_report_findings", monkeypatch, signal.SIGINT)
    out = tmp_path / "out"
    result = proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out))
    assert result.code == 0, result.err
    (run_dir,) = out.glob("run-*")
    assert f"results in {run_dir}" in result.err
    assert json.loads((run_dir / "suite.json").read_text())["exitCode"] == 0


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("resumed", [False, True])
def test_a_stop_once_the_run_is_written_and_printed_leaves_its_exit_code(
    proctor: Run,
    make_case: MakeCase,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    stop_handlers: None,
    number: int,
    resumed: bool,
) -> None:
    """A stop landing as the command prints the report (or as the process exits) changes
    nothing: the run ends with the code its files record. Before, it exited 130 ("proctor:
    error: interrupted"), or died of the signal, with suite.json saying 0."""
    from proctor.cli import run as cli_run

    _two_cases(make_case)
    out = tmp_path / "out"
    args = ["run", "--source", str(tmp_path / "cases"), "--out", str(out)]
    if resumed:
        assert proctor(*args).code == 0
        (run_dir,) = out.glob("run-*")
        (run_dir / "trials/two/scripted/default/1/trial.json").unlink()  # as a kill leaves it
        args = ["run", "--resume", str(run_dir)]
    _stop_after(cli_run, "echo_unless_gone", monkeypatch, number)
    result = proctor(*args)
    assert result.code == 0, result.err
    assert "interrupted" not in result.err
    (run_dir,) = out.glob("run-*")
    assert json.loads((run_dir / "suite.json").read_text())["exitCode"] == 0
    assert "proctor: exit 0" in result.err  # printed whole
