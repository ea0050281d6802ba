"""Which agent, and which model, each eval case runs on: ``--agent``, then the case's or the
file's ``agent``, then the config's, then ``scripted``; ``--model``, then the config's. The
same rule decides the agent written into the case's generated ``config.json``, the cases the
``--model`` warning names as run on the scripted agent, the agents ``--model`` is given to,
and where an unknown agent is said to be given."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from proctor.errors import ConfigError
from proctor.session import evals as session_evals
from proctor.session.evals import EvalRequest, run_evals

FILES = {
    "plain.eval.py": """
        from proctor.evals import define_eval
        async def test(t):
            pass
        eval = define_eval(test=test)
    """,
    "own.eval.py": """
        from proctor.evals import define_eval
        async def test(t):
            pass
        eval = define_eval(test=test, agent="codex")
    """,
    "mixed.eval.py": """
        from proctor.evals import case, define_eval
        async def test(t):
            pass
        eval = define_eval(
            agent="gemini-cli",
            cases=[case(id="mine", test=test, agent="claude-code"), case(id="file", test=test)],
        )
    """,
}


class Stop(Exception):
    """Raised by the stand-in for run_session once it has seen what the run was given."""


def _project(tmp_path: Path, config: str = "") -> Path:
    root = tmp_path / "proj"
    for rel, text in FILES.items():
        path = root / "evals" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    (root / "evals" / "evals.config.py").write_text(
        "from proctor.evals import define_eval_config\n"
        f"config = define_eval_config(max_concurrency=2{config})\n"
    )
    return root


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: EvalRequest) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    def stand_in(run: Any, subscribers: Any) -> Any:
        seen["agents"] = {
            case.name: json.loads((case / "config.json").read_text())["agents"]
            for case in sorted(run.source.iterdir())
        }
        seen["agent_models"] = dict(run.overrides.agent_models)
        seen["model"] = run.overrides.model
        raise Stop

    warnings: list[str] = []
    monkeypatch.setattr(session_evals, "run_session", stand_in)
    monkeypatch.setattr(session_evals, "warn", warnings.append)
    with pytest.raises(Stop):
        run_evals(request)
    seen["warnings"] = warnings
    return seen


def _request(root: Path, tmp_path: Path, **given: Any) -> EvalRequest:
    return EvalRequest(dir=root, out=tmp_path / "out", **given)


def test_each_case_runs_on_the_nearest_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path)
    seen = _run(tmp_path, monkeypatch, _request(root, tmp_path))
    assert seen["agents"] == {
        "mixed.file": ["gemini-cli"],
        "mixed.mine": ["claude-code"],
        "own": ["codex"],
        "plain": ["scripted"],
    }
    assert seen["warnings"] == [] and seen["agent_models"] == {} and seen["model"] is None


def test_the_config_s_agent_comes_after_the_eval_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path, ", agent='codex'")
    seen = _run(tmp_path, monkeypatch, _request(root, tmp_path))
    assert seen["agents"]["plain"] == ["codex"]
    assert seen["agents"]["mixed.mine"] == ["claude-code"]


def test_agent_flag_comes_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _project(tmp_path, ", agent='codex'")
    seen = _run(tmp_path, monkeypatch, _request(root, tmp_path, agent="gemini-cli"))
    assert set(map(tuple, seen["agents"].values())) == {("gemini-cli",)}


def test_the_model_goes_to_each_agent_a_case_runs_on_and_names_the_scripted_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path)
    seen = _run(tmp_path, monkeypatch, _request(root, tmp_path, model="opus"))
    assert seen["agent_models"] == {
        "scripted": "opus",
        "codex": "opus",
        "gemini-cli": "opus",
        "claude-code": "opus",
    }
    assert seen["model"] is None
    [warning] = seen["warnings"]
    assert warning.startswith('--model "opus": 1 of 4 cases (plain) run on the scripted agent')


def test_the_config_s_model_when_no_flag_gives_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path, ", model='sonnet', agent='scripted'")
    seen = _run(tmp_path, monkeypatch, _request(root, tmp_path))
    assert seen["agent_models"] == {
        a: "sonnet" for a in ("scripted", "codex", "claude-code", "gemini-cli")
    }
    [warning] = seen["warnings"]
    assert warning.endswith(
        'evals.config.py:2: model "sonnet": 1 of 4 cases (plain) run on the '
        "scripted agent, which plays its eval's plan whatever the model (it only writes the "
        "model's name into its transcript); --agent names an agent that runs the model, and "
        "--model scripted runs a real CLI on proctor's scripted model"
    )
    # --model scripted runs every agent on the scripted model: no agent is given a model.
    seen = _run(tmp_path, monkeypatch, _request(root, tmp_path, model="scripted"))
    assert seen["agent_models"] == {} and seen["model"] == "scripted"
    assert seen["warnings"] == []


@pytest.mark.parametrize(
    ("config", "given", "said"),
    [
        ("", {"agent": "nope"}, "--agent nope: unknown agent 'nope'"),
        (", agent='nope'", {}, "evals.config.py:2: agent: unknown agent 'nope'"),
        # The flag is named first: it decides the agent.
        (", agent='nope'", {"agent": "nope2"}, "--agent nope2: unknown agent 'nope2'"),
        # The CLI a person meant by its short name comes first.
        ("", {"agent": "gemini"}, "'gemini' (did you mean 'gemini-cli' or 'acp:gemini'? known"),
    ],
)
def test_an_unknown_agent_is_named_where_it_was_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str, given: dict[str, str], said: str
) -> None:
    root = _project(tmp_path, config)
    with pytest.raises(ConfigError) as caught:
        _run(tmp_path, monkeypatch, _request(root, tmp_path, **given))
    assert said in str(caught.value)


def test_an_eval_s_unknown_agent_is_named_by_its_file_and_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path, ", agent='nope'")
    (root / "evals" / "own.eval.py").write_text(
        textwrap.dedent(FILES["own.eval.py"]).replace('"codex"', '"nope3"')
    )
    with pytest.raises(ConfigError) as caught:
        _run(tmp_path, monkeypatch, _request(root, tmp_path))
    assert "own.eval.py:5: unknown agent 'nope3'" in str(caught.value), caught.value


def test_agent_model_comes_before_the_model_for_its_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The most specific wins, as in proctor run: --agent-model AGENT=…, then --model, then
    # the config's model.
    root = _project(tmp_path, ", model='haiku'")
    given = {"claude-code": "opus"}
    seen = _run(tmp_path, monkeypatch, _request(root, tmp_path, model="sonnet", agent_models=given))
    assert seen["agent_models"] == {
        "scripted": "sonnet",
        "codex": "sonnet",
        "gemini-cli": "sonnet",
        "claude-code": "opus",
    }
    seen = _run(tmp_path, monkeypatch, _request(root, tmp_path, agent_models=given))
    assert seen["agent_models"]["claude-code"] == "opus"
    assert seen["agent_models"]["codex"] == "haiku"


def test_agent_model_keeps_the_scripted_model_server_of_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As proctor run --model scripted --agent-model claude-code=opus: the CLI is asked for
    # opus, served by proctor's scripted model.
    root = _project(tmp_path)
    request = _request(root, tmp_path, model="scripted", agent_models={"claude-code": "opus"})
    seen = _run(tmp_path, monkeypatch, request)
    assert seen["model"] == "scripted" and seen["agent_models"] == {"claude-code": "opus"}


def test_the_scripted_agent_s_own_model_leaves_it_out_of_the_model_s_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its --agent-model is warned of where it is read (as proctor run does): the --model
    # warning names no case, so the scripted agent is warned of once.
    root = _project(tmp_path)
    request = _request(root, tmp_path, model="sonnet", agent_models={"scripted": "opus"})
    seen = _run(tmp_path, monkeypatch, request)
    assert seen["agent_models"]["scripted"] == "opus"
    assert seen["warnings"] == []


def test_an_agent_model_of_an_agent_no_case_runs_on_goes_to_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # proctor run checks it there (an unknown agent is refused, as its own --agent-model is).
    root = _project(tmp_path)
    seen = _run(tmp_path, monkeypatch, _request(root, tmp_path, agent_models={"acp": "x"}))
    assert seen["agent_models"] == {"acp": "x"}
