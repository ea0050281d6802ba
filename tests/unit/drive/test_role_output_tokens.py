"""Each harness role's reply limit: 5 tokens for the classifier (``fast``) and 400 for the
answering model (``workhorse``) unless its configuration sets ``maxOutputTokens``: a reasoning
model in either role spends more than that thinking, and failed every call."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from proctor.cli.display import ClassifierWarning, CostWarnings
from proctor.drive.policy import AnswerPolicy, classify_turn_end
from proctor.errors import ConfigError
from proctor.execute.events import TrialFinished
from proctor.llm.client import Completion
from proctor.llm.refs import ModelRef
from proctor.llm.roles import RoleSet, role_output_tokens, roles_from
from proctor.models.config import TopConfig
from proctor.models.loading import load_top_config
from proctor.models.plan import RoleModels
from proctor.models.trial import HarnessCall, TrialRecord

AMBIGUOUS = "I wondered whether x? Anyway, it works now"


class _Client:
    """A model client that records the limit of each call."""

    def __init__(self, ref: ModelRef, reply: str) -> None:
        self.ref, self.reply, self.limits = ref, reply, []
        self.deadline: float | None = None

    def complete(self, system: str, user: str, *, max_tokens: int = 1024, **_: Any) -> Completion:
        self.limits.append(max_tokens)
        return Completion(self.reply, str(self.ref))


def _roles(role: str, reply: str, limits: dict[str, int]) -> tuple[RoleSet, _Client]:
    ref = ModelRef("openai", "o4-mini")
    roles = RoleSet(refs={role: ref}, output_tokens=limits)
    client = _Client(ref, reply)
    roles._clients[f"{role}:{ref}"] = client  # type: ignore[assignment]
    return roles, client


@pytest.mark.parametrize(("limits", "sent"), [({}, 5), ({"fast": 2000}, 2000)])
def test_the_classifier_replies_within_its_role_s_limit(limits: dict[str, int], sent: int) -> None:
    roles, client = _roles("fast", "question", limits)
    assert classify_turn_end(AMBIGUOUS, roles) == (True, "fast")
    assert client.limits == [sent]


@pytest.mark.parametrize(("limits", "sent"), [({}, 400), ({"workhorse": 8000}, 8000)])
def test_the_answering_model_replies_within_its_role_s_limit(
    limits: dict[str, int], sent: int
) -> None:
    roles, client = _roles("workhorse", '{"action": "answer", "answer": "yes"}', limits)
    policy = AnswerPolicy(rules=[], prose=None, task="t", roles=roles)
    assert policy.answer("Go on?", []).answer.text == "yes"
    assert client.limits == [sent]


def test_the_limit_set_in_proctor_json_reaches_the_trial() -> None:
    top = TopConfig.model_validate(
        {
            "models": {
                "fast": {"model": "openai/o4-mini", "maxOutputTokens": 2000},
                "workhorse": "openai/gpt-x",
            }
        }
    )
    layers = [("proctor.json", top.models), ("--<role>-model", {"fast": "openai/o3"})]
    assert role_output_tokens(layers) == {"fast": 2000}  # a later layer's model keeps it
    carried = RoleModels(refs={"fast": "openai/o3"}, max_output_tokens={"fast": 2000})
    assert roles_from(carried, {}, {}).max_output_tokens("fast", 5) == 2000
    assert (
        roles_from(RoleModels(refs={"fast": "openai/o3"}), {}, {}).max_output_tokens("fast", 5) == 5
    )


def test_the_judge_role_takes_no_limit_of_its_own() -> None:
    top = TopConfig.model_validate(
        {"models": {"judge": {"model": "openai/o4-mini", "maxOutputTokens": 2000}}}
    )
    with pytest.raises(ConfigError) as caught:
        role_output_tokens([("proctor.json", top.models)])
    assert str(caught.value).startswith(
        "proctor.json: field 'models.judge.maxOutputTokens': the judge's token limit is set on "
        "each llm-judge evaluator"
    )


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ({"model": "openai/o4-mini", "maxOutputTokens": 0}, "field 'models.fast.maxOutputTokens'"),
        ({"model": "openai/o4-mini", "maxOutputTokens": 1_000_001}, "less than or equal to"),
        ({"model": "openai/o4-mini", "maxOutputTokens": "900"}, "expected an integer"),
        ({"model": "openai/o4-mini", "maxOutputTokens": 9.5}, "expected an integer"),
        ({"model": "openai/o4-mini", "maxTokens": 9}, "did you mean 'maxOutputTokens'?"),
        ({"maxOutputTokens": 9}, "field 'models.fast.model' is required"),
        (5, "field 'models.fast': expected a string"),
    ],
)
def test_a_bad_limit_is_one_sentence_naming_its_field(
    tmp_path: Path, entry: object, said: str
) -> None:
    import json

    path = tmp_path / "proctor.json"
    path.write_text(json.dumps({"models": {"fast": entry}}))
    with pytest.raises(ConfigError) as caught:
        load_top_config(path, tmp_path)
    assert said in str(caught.value) and "\n" not in str(caught.value)


def _finished(*calls: HarnessCall) -> TrialFinished:
    return TrialFinished(
        TrialRecord(case="c", agent="a", repeat=1, status="passed", harness_calls=list(calls))
    )


def test_a_failing_classifier_is_said_once_per_run() -> None:
    failed = HarnessCall(
        role="fast", model="openai/o4-mini", ok=False, error="reached its token limit (5)"
    )
    answered = HarnessCall(role="workhorse", model="openai/gpt-x", ok=False, error="quota")
    stream = io.StringIO()
    warnings = CostWarnings(None, stream)
    warnings(_finished(answered, HarnessCall(role="fast", model="openai/o4-mini")))
    assert stream.getvalue() == ""
    for _ in range(3):
        warnings(_finished(failed, failed))
    (line,) = stream.getvalue().splitlines()
    assert line == (
        "proctor: warning: the fast role's model openai/o4-mini failed: reached its token "
        "limit (5); a turn end it was to classify is taken as no question (each failed call "
        "is in harnessCalls)"
    )
    alone = io.StringIO()
    ClassifierWarning(alone)(_finished(failed))
    assert alone.getvalue() == stream.getvalue()


def test_a_case_s_limit_is_planned_into_its_trials(tmp_path: Path) -> None:
    """The limits of proctor.json and of a case's config.json reach each trial's roles."""
    import json
    import shutil

    from proctor.models.config import CliOverrides
    from proctor.plan.resolve import load_run_plan

    examples = Path(__file__).resolve().parents[3] / "examples" / "cases" / "ask-a-question"
    case = tmp_path / "suite" / "ask"
    shutil.copytree(examples, case)
    config = json.loads((case / "config.json").read_text())
    config["models"] = {"workhorse": {"model": "scripted/w", "maxOutputTokens": 900}}
    (case / "config.json").write_text(json.dumps(config))
    top = tmp_path / "proctor.json"
    top.write_text(json.dumps({"models": {"fast": {"model": "scripted/f", "maxOutputTokens": 64}}}))
    plan = load_run_plan(tmp_path / "suite", top, CliOverrides(), tmp_path)
    (spec, *_) = plan.trials
    assert spec.roles.max_output_tokens == {"fast": 64, "workhorse": 900}
