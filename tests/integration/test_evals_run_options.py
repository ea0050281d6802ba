"""The options ``proctor eval`` shares with ``proctor run`` read and act as run's do:
``--agent-effort ID=EFFORT``, ``--keep-workspace`` and ``--budget-usd``."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

from proctor.cli.main import cli
from tests.conftest import write_case
from tests.integration.test_evals_cli import project, run_json

Run = Any

EVAL = """
    from proctor.evals import define_eval
    async def test(t):
        (await t.send("hi")).expect_ok()
    eval = define_eval(test=test, plan={"turns": [{"say": "hello"}]})
"""


def _trial(tmp_path: Path) -> Path:
    return next((tmp_path / "out").glob("run-*/trials/a/scripted/default/1"))


def test_agent_effort_reads_as_proctor_run_reads_it(proctor: Run, tmp_path: Path) -> None:
    root = project(tmp_path, {"a.eval.py": EVAL})
    result, out = run_json(proctor, root, tmp_path, "--agent-effort", "scripted=high")
    assert result.code == 0 and out["passed"] == 1, result.err
    record = json.loads((_trial(tmp_path) / "trial.json").read_text())
    assert record["agentEffort"] == "high"
    for given, said in [
        ("scripted", '--agent-effort "scripted": expected ID=VALUE, e.g. claude-code=opus'),
        ("nope=high", "--agent-effort nope=…: unknown agent 'nope'"),
    ]:
        result, _ = run_json(proctor, root, tmp_path, "--agent-effort", given)
        assert result.code == 2 and f"proctor: error: {said}" in result.err, result.err


def test_an_effort_the_agent_does_not_take_is_said_alike_by_run_and_eval(
    proctor: Run, tmp_path: Path
) -> None:
    # Claude Code takes a fixed list: another level is refused before anything runs (its
    # CLI would refuse every trial); the scripted agent takes any, and is warned of it.
    root = project(tmp_path, {"a.eval.py": EVAL})
    write_case(tmp_path / "cases", "c", plan={"turns": [{"say": "hello"}]})
    commands = {
        "eval": ("eval", "--dir", str(root)),
        "run": ("run", "--source", str(tmp_path / "cases")),
    }
    for name, command in commands.items():
        result = proctor(*command, "--dry-run", "--agent-effort", "claude-code=ultra")
        assert result.code == 2, (name, result.err)
        assert result.err == (
            "proctor: error: --agent-effort claude-code=ultra: claude-code takes the effort "
            "low, medium, high, xhigh or max\n"
        ), (name, result.err)
        result = proctor(*command, "--dry-run", "--agent-effort", "scripted=ultra")
        assert result.code == 0, (name, result.err)
        assert (
            'proctor: warning: --agent-effort "scripted=ultra": the scripted agent plays its '
            "case's plan whatever the effort (it is only recorded in trial.json)"
        ) in result.err, (name, result.err)
        ok = proctor(*command, "--dry-run", "--agent-effort", "claude-code=max")
        assert ok.code == 0 and "effort" not in ok.err, (name, ok.err)


def test_an_effort_given_an_agent_that_takes_none_is_warned_of_by_run_and_eval(
    proctor: Run, tmp_path: Path
) -> None:
    """Gemini CLI (its pinned CLI has no effort flag) and ACP agents are given no effort:
    ``--agent-effort`` for one was dropped unsaid; it is warned of as the scripted agent's is,
    and the run goes on."""
    root = project(tmp_path, {"a.eval.py": EVAL})
    write_case(tmp_path / "cases", "c", plan={"turns": [{"say": "hello"}]})
    commands = {
        "eval": ("eval", "--dir", str(root)),
        "run": ("run", "--source", str(tmp_path / "cases")),
    }
    said = {
        "gemini-cli": "Gemini CLI takes no reasoning effort on its command line (its pinned "
        "0.61.0 has no such flag",
        "acp:gemini": "(acp:gemini is an ACP agent): proctor gives an ACP agent no reasoning "
        "effort",
    }
    for name, command in commands.items():
        for agent, why in said.items():
            effort = ("--agent", agent, "--agent-effort", f"{agent}=high")
            result = proctor(*command, "--dry-run", *effort)
            assert result.code == 0, (name, result.err)
            assert f'proctor: warning: --agent-effort "{agent}=high"' in result.err, result.err
            assert why in result.err and "so the run goes on without it" in result.err
            # An effort for an agent no trial runs on is not warned of.
            other = proctor(*command, "--dry-run", "--agent-effort", f"{agent}=high")
            assert other.code == 0 and "effort" not in other.err, (name, other.err)


def test_keep_workspace_keeps_a_passing_case_s_workspace(proctor: Run, tmp_path: Path) -> None:
    root = project(tmp_path, {"a.eval.py": EVAL})
    result, _ = run_json(proctor, root, tmp_path)
    assert result.code == 0 and not (_trial(tmp_path) / "workspace").exists(), result.err
    result, _ = run_json(
        proctor, root, tmp_path, "--out", str(tmp_path / "kept"), "--keep-workspace"
    )
    assert result.code == 0, result.err
    (kept,) = (tmp_path / "kept").glob("run-*/trials/a/scripted/default/1/workspace")
    assert kept.is_dir()


def test_budget_usd_warns_as_in_proctor_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import proctor.session.evals as evals
    from proctor.cli.display import CostWarnings

    seen: list[Any] = []

    def ran(request: Any, subscribers: Any, *_: Any) -> SimpleNamespace:
        seen.extend(subscribers)
        summary = {"interrupted": False, "results": [], "runDir": "x"}
        summary.update(passed=0, failed=0, skipped=0, errored=0)
        return SimpleNamespace(summary=summary, exit_code=0)

    monkeypatch.setattr(evals, "run_evals", ran)
    monkeypatch.chdir(tmp_path)
    args = ["eval", "--dir", str(tmp_path), "--budget-usd", "0.5"]
    result = CliRunner().invoke(cli, args, standalone_mode=False)
    assert result.return_value == 0, result.output
    (warnings,) = [s for s in seen if isinstance(s, CostWarnings)]
    assert warnings.budget == 0.5
    result = CliRunner().invoke(cli, [*args[:3], "--budget-usd", "0"], standalone_mode=False)
    assert result.exit_code != 0  # refused as run refuses it


def test_agent_given_twice_is_refused(proctor: Run, tmp_path: Path) -> None:
    """proctor run runs each case on every --agent given; proctor eval ran the last alone."""
    root = project(tmp_path, {"a.eval.py": EVAL})
    result, _ = run_json(proctor, root, tmp_path, "--agent", "claude-code", "--agent", "scripted")
    assert result.code == 2, result.err
    said = "proctor: error: --agent given 2 times (claude-code, scripted): proctor eval runs"
    assert said in result.err and not (tmp_path / "out").exists(), result.err
    result, out = run_json(proctor, root, tmp_path, "--agent", "scripted")  # once is fine
    assert result.code == 0 and out["passed"] == 1, result.err
