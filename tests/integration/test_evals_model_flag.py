"""``proctor eval --model`` (and the config's ``model``): a model given to cases that run on
the scripted agent, which plays its eval's plan whatever the model and only writes the model's
name into its transcript, is warned of on stderr, once (not its missing price besides, as
``proctor run --agent-model scripted=…`` warns of it); a value no agent's model can be is refused before anything
runs (exit 2), named where it was given."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_evals_cli import CONFIG, project, run_json

Run = Any

EVAL = """
    from proctor.evals import define_eval
    async def test(t):
        (await t.send("hi")).expect_ok()
    eval = define_eval(test=test, plan={"turns": [{"say": "hello"}]})
"""


def test_a_model_given_to_the_scripted_agent_is_warned_of(proctor: Run, tmp_path: Path) -> None:
    root = project(tmp_path, {"a.eval.py": EVAL, "b.eval.py": EVAL})
    result, out = run_json(proctor, root, tmp_path, "--model", "nope/x")
    assert result.code == 0 and out["passed"] == 2, result.err  # stdout is the JSON still
    assert (
        'proctor: warning: --model "nope/x": every case runs on the scripted agent, which '
        "plays its eval's plan whatever the model (it only writes the model's name into its "
        "transcript); --agent names an agent that runs the model"
    ) in result.err
    # One warning: the model's missing price is no news for an agent that only names it.
    assert result.err.count("warning") == 1 and "no price" not in result.err, result.err
    result, _ = run_json(proctor, root, tmp_path, "--model", "scripted")  # the control
    assert result.code == 0 and "warning" not in result.err, result.err


def test_the_warning_names_the_cases_on_the_scripted_agent_when_not_all_are() -> None:
    from proctor.session.eval_settings import scripted_agent_model

    said = scripted_agent_model("opus", "--model", ["a", "b", "c", "d"], 6)
    assert said.startswith(
        '--model "opus": 4 of 6 cases (a, b, c and 1 more) run on the scripted agent, which '
    )


@pytest.mark.parametrize(
    ("model", "said"),
    [
        ("", '--model "": expected the agent\'s model (such as opus) or scripted'),
        ("  ", '--model "  ": expected the agent\'s model (such as opus) or scripted'),
        ("claude opus", '--model "claude opus": a model\'s name holds no space or control'),
        ("opus\n", '--model "opus\\n": a model\'s name holds no space or control'),
        ("Scripted", '--model "Scripted": did you mean scripted (proctor\'s scripted model)?'),
        ("provider", '--model "provider": the agent\'s provider is the default'),
    ],
)
def test_a_model_no_agent_can_have_is_refused(
    proctor: Run, tmp_path: Path, model: str, said: str
) -> None:
    root = project(tmp_path, {"a.eval.py": EVAL})
    result, _ = run_json(proctor, root, tmp_path, "--model", model)
    assert result.code == 2, result.err
    assert result.err.startswith(f"proctor: error: {said}"), result.err
    assert not (tmp_path / "out" / "evals-src").exists()  # nothing ran


def test_the_config_s_model_is_named_where_it_was_given(proctor: Run, tmp_path: Path) -> None:
    config = CONFIG.replace("max_concurrency=2", "max_concurrency=2, model='Scripted'")
    root = project(tmp_path, {"a.eval.py": EVAL}, config=config)
    result, _ = run_json(proctor, root, tmp_path)
    assert result.code == 2
    assert 'evals.config.py:2: model "Scripted": did you mean scripted' in result.err, result.err
    config = CONFIG.replace("max_concurrency=2", "max_concurrency=2, model='nope/x'")
    root = project(tmp_path, {"a.eval.py": EVAL}, config=config)
    result, _ = run_json(proctor, root, tmp_path)
    assert result.code == 0
    assert 'evals.config.py:2: model "nope/x": every case runs on the scripted agent' in result.err


def test_proctor_run_warns_of_a_model_given_to_the_scripted_agent_once(
    proctor: Run, tmp_path: Path
) -> None:
    cases = tmp_path / "cases" / "a"
    cases.mkdir(parents=True)
    (cases / "prompt.md").write_text("Say hello.\n")
    (cases / "plan.json").write_text('{"turns": [{"say": "hello"}]}')
    (cases / "config.json").write_text('{"agents": ["scripted"]}')
    out = str(tmp_path / "out")
    source = str(tmp_path / "cases")
    result = proctor("run", "--source", source, "--out", out, "--agent-model", "scripted=nope/x")
    assert result.code == 0, result.err
    assert (
        'proctor: warning: --agent-model "scripted=nope/x": the scripted agent plays its '
        "case's plan whatever the model (it only writes the model's name into its transcript)"
    ) in result.err
    assert result.err.count("warning") == 1 and "no price" not in result.err, result.err


def test_agent_model_reads_as_proctor_run_reads_it(proctor: Run, tmp_path: Path) -> None:
    root = project(tmp_path, {"a.eval.py": EVAL})
    result, out = run_json(proctor, root, tmp_path, "--agent-model", "claude-code=opus")
    assert result.code == 0 and out["passed"] == 1, result.err  # claude-code runs no case here
    for given, said in [
        ("claude-code", '--agent-model "claude-code": expected ID=VALUE, e.g. claude-code=opus'),
        ("claude-cod=opus", "--agent-model claude-cod=…: unknown agent 'claude-cod' (did you"),
    ]:
        result, _ = run_json(proctor, root, tmp_path, "--agent-model", given)
        assert result.code == 2 and f"proctor: error: {said}" in result.err, result.err


def test_agent_model_of_the_scripted_agent_is_warned_of_once(proctor: Run, tmp_path: Path) -> None:
    root = project(tmp_path, {"a.eval.py": EVAL})
    args = ("--agent-model", "scripted=nope/x", "--model", "other/y")
    result, out = run_json(proctor, root, tmp_path, *args)
    assert result.code == 0 and out["passed"] == 1, result.err
    assert (
        'proctor: warning: --agent-model "scripted=nope/x": the scripted agent plays its '
        "case's plan whatever the model (it only writes the model's name into its transcript)"
    ) in result.err
    # --model reaches no case: said once, as the one other warning.
    assert '--model "other/y" applies to no selected case' in result.err, result.err
    assert result.err.count("warning") == 2 and "no price" not in result.err, result.err
    trial = next((tmp_path / "out").glob("run-*/trials/a/scripted/default/1/trial.json"))
    assert '"agentModel": "nope/x"' in trial.read_text()  # the nearest: --agent-model


def test_a_profile_of_the_scripted_agent_is_the_scripted_agent_for_its_model(
    proctor: Run, tmp_path: Path
) -> None:
    """A ``codingagents`` profile of the scripted agent (its trials keep the profile's id) is
    warned of as the scripted agent is, and its model's missing price is not warned of."""
    root = project(tmp_path, {"a.eval.py": EVAL})
    (root / "proctor.json").write_text('{"codingagents": {"mine": {"agent": "scripted"}}}')
    for given in [("--model", "opus"), ("--agent-model", "mine=opus")]:
        result, out = run_json(proctor, root, tmp_path, "--agent", "mine", *given)
        assert result.code == 0 and out["passed"] == 1, result.err
        assert result.err.count("warning") == 1 and "no price" not in result.err, result.err
    assert (
        'proctor: warning: --agent-model "mine=opus" (mine is a profile of the scripted '
        "agent): the scripted agent plays its case's plan whatever the model"
    ) in result.err
    # proctor run with that profile, as with the scripted agent.
    case = tmp_path / "cases" / "c"
    case.mkdir(parents=True)
    (case / "prompt.md").write_text("Say hello.\n")
    (case / "plan.json").write_text('{"turns": [{"say": "hello"}]}')
    (case / "config.json").write_text("{}")
    result = proctor(
        "run", "--source", str(case.parent), "--config", str(root / "proctor.json"),
        "--agent", "mine", "--agent-model", "mine=opus", "--out", str(tmp_path / "run-out"),
    )  # fmt: skip
    assert result.code == 0, result.err
    assert result.err.count("warning") == 1 and "no price" not in result.err, result.err
    assert '--agent-model "mine=opus" (mine is a profile of the scripted agent)' in result.err


def test_a_model_that_reaches_no_case_is_warned_of_once(proctor: Run, tmp_path: Path) -> None:
    """``--model`` under an ``--agent-model`` for every selected case's agent applies to none:
    said once, with the pairs that come before it."""
    on_claude = EVAL.replace("define_eval(", 'define_eval(agent="claude-code", ')
    root = project(tmp_path, {"a.eval.py": EVAL, "b.eval.py": on_claude})
    pairs = ("--agent-model", "scripted=x", "--agent-model", "claude-code=opus")
    result = proctor("eval", "--dir", str(root), "--dry-run", "--model", "bar", *pairs)
    said = (
        'proctor: warning: --model "bar" applies to no selected case: every case runs on an '
        "agent --agent-model gives its model (claude-code=opus, scripted=x), which comes before "
        "--model\n"
    )
    assert result.code == 0 and result.err.count(said) == 1, result.err
    result, out = run_json(proctor, root, tmp_path, "a", "--model", "bar", *pairs)
    assert result.code == 0 and out["passed"] == 1, result.err
    assert '--model "bar" applies to no selected case' in result.err and "(scripted=x)" in (
        result.err
    ), result.err
    # A case it reaches, or the scripted model (every agent's server): no such warning.
    for model in ("bar", "scripted"):
        result = proctor("eval", "--dir", str(root), "--dry-run", "--model", model, *pairs[:2])
        assert result.code == 0 and "applies to no selected case" not in result.err, result.err
