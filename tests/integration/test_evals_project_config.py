"""``proctor eval`` and ``proctor.json``: the project's file (beside its ``evals/`` folder, or
``--config FILE``) is read, not the current folder's, and its ``out`` and ``budgetUsd`` act as
in ``proctor run``; ``--timeout SECONDS`` (run's spelling) and ``--timeout-ms`` are over an
eval's own ``timeout_ms``, as run's ``--timeout`` is over a case's ``timeoutSec``; and
``--agent-model scripted=…`` is warned of only when a case runs on the scripted agent."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

from proctor.cli.main import cli
from tests.integration.test_evals_cli import project, run_json

Run = Any

EVAL = """
    from proctor.evals import define_eval
    async def test(t):
        (await t.send("hi")).expect_ok()
    eval = define_eval(test=test, timeout_ms=120000, plan={"turns": [{"say": "hello"}]})
"""


def test_the_project_s_proctor_json_is_read_not_the_current_folder_s(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path, {"a.eval.py": EVAL})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "proctor.json").write_text('{"bogus": 1}')  # another project's, or none
    (root / "proctor.json").write_text(json.dumps({"out": str(tmp_path / "from-json")}))
    monkeypatch.chdir(elsewhere)
    result = proctor("eval", "--dir", str(root), "--json", "--no-stream")
    assert result.code == 0, result.err
    assert json.loads(result.out)["runDir"].startswith(str(tmp_path / "from-json" / "run-"))
    # --out is over proctor.json's out, as in proctor run.
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 0 and out["runDir"].startswith(str(tmp_path / "out")), result.err
    # --config FILE is read in its place; a missing one is refused, exit 2.
    result, _ = run_json(proctor, root, tmp_path, "--config", "proctor.json")
    assert result.code == 2 and "proctor.json: unknown key 'bogus'" in result.err, result.err
    result, _ = run_json(proctor, root, tmp_path, "--config", "nope.json")
    assert result.code == 2 and "--config nope.json: no such file" in result.err, result.err


def test_a_relative_out_of_proctor_json_is_read_from_the_current_folder(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path, {"a.eval.py": EVAL})
    (root / "proctor.json").write_text('{"out": "results"}')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    result = proctor("eval", "--dir", str(root), "--json", "--no-stream")
    assert result.code == 0, result.err
    assert json.loads(result.out)["runDir"].startswith(str(elsewhere / "results" / "run-"))


def test_a_project_without_proctor_json_never_reads_the_current_folder_s(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no proctor.json of its own, the project's run read the current folder's (its
    unknown keys refused the run, its setup lines ran before each case)."""
    root = project(tmp_path, {"a.eval.py": EVAL})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "proctor.json").write_text('{"bogus": 1}')
    monkeypatch.chdir(elsewhere)
    result = proctor("eval", "--dir", str(root), "--json", "--no-stream", "--out", "out")
    assert result.code == 0, result.err
    run_dir = Path(json.loads(result.out)["runDir"])
    assert json.loads((run_dir / "config.json").read_text())["configFile"] is None


def test_budget_usd_of_proctor_json_is_the_budget_without_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import proctor.session.evals as evals
    from proctor.cli.display import CostWarnings

    seen: list[Any] = []

    def ran(request: Any, subscribers: Any, *_: Any) -> SimpleNamespace:
        seen.extend(s for s in subscribers if isinstance(s, CostWarnings))
        summary = {"interrupted": False, "results": [], "runDir": "x"}
        summary.update(passed=0, failed=0, skipped=0, errored=0)
        return SimpleNamespace(summary=summary, exit_code=0)

    monkeypatch.setattr(evals, "run_evals", ran)
    (tmp_path / "proctor.json").write_text('{"budgetUsd": 2.5}')
    args = ["eval", "--dir", str(tmp_path)]
    for given, budget in [([], 2.5), (["--budget-usd", "0.5"], 0.5)]:
        result = CliRunner().invoke(cli, [*args, *given], standalone_mode=False)
        assert result.return_value == 0, result.output
        assert seen.pop().budget == budget


def _timeout_sec(tmp_path: Path) -> float:
    (config,) = (tmp_path / "out").glob("evals-src/*/*/config.json")
    seconds: float = json.loads(config.read_text())["timeoutSec"]
    return seconds


@pytest.mark.parametrize(
    ("given", "seconds"),
    [((), 120.0), (("--timeout", "30"), 30.0), (("--timeout-ms", "2500"), 2.5)],
)
def test_the_command_line_s_timeout_is_over_the_eval_s(
    proctor: Run, tmp_path: Path, given: tuple[str, ...], seconds: float
) -> None:
    root = project(tmp_path, {"a.eval.py": EVAL})
    result, out = run_json(proctor, root, tmp_path, *given)
    assert result.code == 0 and out["passed"] == 1, result.err
    assert _timeout_sec(tmp_path) == seconds


def test_timeout_in_seconds_and_milliseconds_both_are_refused(proctor: Run, tmp_path: Path) -> None:
    root = project(tmp_path, {"a.eval.py": EVAL})
    result, _ = run_json(proctor, root, tmp_path, "--timeout", "60", "--timeout-ms", "5")
    assert result.code == 2 and "--timeout 60 and --timeout-ms 5 both give" in result.err


WARNED = '--agent-model "scripted=opus": the scripted agent plays'


def test_agent_model_scripted_is_not_warned_of_when_no_case_runs_on_it(
    proctor: Run,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import proctor.session.evals as evals

    on_claude = EVAL.replace("timeout_ms=120000", 'agent="claude-code"')
    root = project(tmp_path, {"a.eval.py": on_claude, "b.eval.py": EVAL})

    def stopped(*_: Any, **__: Any) -> None:
        raise RuntimeError("stopped before any case runs")

    monkeypatch.setattr(evals, "run_session", stopped)
    # The warning is a record of the proctor logger (the command line prints it on stderr).
    for ids, warned in [(("a",), False), (("b",), True)]:
        caplog.clear()
        request = evals.EvalRequest(
            dir=root, ids=ids, out=tmp_path / "out", agent_models={"scripted": "opus"}
        )
        with pytest.raises(RuntimeError):
            evals.run_evals(request)
        assert (WARNED in caplog.text) is warned


def test_run_warns_of_agent_model_scripted_only_for_a_trial_on_it(
    proctor: Run, tmp_path: Path
) -> None:
    cases = tmp_path / "cases"
    for name, agent in [("a", "claude-code"), ("b", "scripted")]:
        (cases / name).mkdir(parents=True)
        (cases / name / "prompt.md").write_text("Say hello.\n")
        (cases / name / "config.json").write_text(json.dumps({"agents": [agent]}))
    args = ("run", "--source", str(cases), "--agent-model", "scripted=opus", "--dry-run")
    result = proctor(*args, "--case", "a")
    assert result.code == 0 and "warning" not in result.err, result.err
    result = proctor(*args, "--case", "b")
    assert result.code == 0 and WARNED in result.err, result.err


def test_an_out_of_proctor_json_that_cannot_be_made_names_the_file(
    proctor: Run, tmp_path: Path
) -> None:
    root = project(tmp_path, {"a.eval.py": EVAL})
    (tmp_path / "blocker").write_text("")
    (root / "proctor.json").write_text(json.dumps({"out": str(tmp_path / "blocker" / "x")}))
    result = proctor("eval", "--dir", str(root), "--no-stream")
    said = f"{root / 'proctor.json'}: field 'out': {tmp_path / 'blocker' / 'x'} cannot be made"
    assert result.code == 2 and said in result.err, result.err


def test_an_agent_profile_of_proctor_json_is_an_agent_eval_runs_on(
    proctor: Run, tmp_path: Path
) -> None:
    root = project(tmp_path, {"a.eval.py": EVAL})
    (root / "proctor.json").write_text('{"codingagents": {"mine": {"agent": "scripted"}}}')
    result, out = run_json(proctor, root, tmp_path, "--agent", "mine")
    assert result.code == 0 and out["passed"] == 1, result.err
    assert list((tmp_path / "out").glob("run-*/trials/a/mine/default/1/trial.json"))
    # A profile of the scripted agent is the scripted agent: a model given it is warned of.
    result, _ = run_json(proctor, root, tmp_path, "--agent", "mine", "--model", "opus")
    assert result.code == 0 and '--model "opus": every case runs on the scripted agent' in (
        result.err
    ), result.err


FAILS_SECOND = """
    from proctor.evals import define_eval
    async def test(t):
        (await t.send("hi")).expect_ok()
        t.require(t.iteration == 1, "iteration 1 only")
    eval = define_eval(test=test, iterations=2, plan={"turns": [{"say": "hello"}]})
"""


def test_proctor_json_s_conditions_and_gate_are_proctor_run_s(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path, {"a.eval.py": FAILS_SECOND})
    config = {"conditions": {"x": {}, "y": {}}, "gate": {"minPassRate": 0.5}}
    (root / "proctor.json").write_text(json.dumps(config))
    monkeypatch.chdir(root)  # ./proctor.json, which eval read before it read DIR's
    result, out = run_json(proctor, root, tmp_path)
    # Each case once (not once per condition, under the same id), and the run's aggregate
    # says the exit code eval gives (not a gate of its own that 1 failure in 2 passes).
    assert result.code == 1 and [r["id"] for r in out["results"]] == ["a/1", "a/2"], result.err
    suite = json.loads((Path(out["runDir"]) / "suite.json").read_text())
    assert suite["exitCode"] == 1
