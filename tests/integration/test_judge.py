"""proctor's own model roles on the scripted model server: the judge and the answering policy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from proctor.scripted.server import ScriptedModelServer
from tests.conftest import load_trial, single_run_dir, write_case

GOOD = {"json": {"score": 85, "confidenceLevel": 70, "rationale": "The notes cover the task."}}
LOW = {"json": {"score": 30, "confidenceLevel": 90, "rationale": "The notes miss the point."}}
TOP = {"models": {"judge": "scripted/judge", "workhorse": "scripted/workhorse"}}


def judged(
    tmp_path: Path,
    judge_replies: list[dict[str, Any]],
    *,
    turns: list[dict[str, Any]] | None = None,
    evaluator: dict[str, Any] | None = None,
    name: str = "judged",
) -> Path:
    cases = tmp_path / "cases"
    write_case(
        cases,
        name,
        config={
            "evaluators": [
                {
                    "use": "llm-judge",
                    "rubric": "evaluation.md",
                    "artifacts": ["*.md"],
                    **(evaluator or {}),
                }
            ]
        },
        plan={
            "turns": turns
            or [{"write": {"path": "NOTES.md", "content": "# Notes\n"}}, {"say": "Done."}],
            "roles": {"judge": judge_replies},
        },
    )
    (cases / name / "evaluation.md").write_text("Score 0-100: do the notes explain the project?\n")
    (tmp_path / "proctor.json").write_text(json.dumps(TOP))
    return cases


def run(proctor: Any, tmp_path: Path, cases: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    result = run_suite(proctor, tmp_path, cases, *extra)
    name = next(p.name for p in cases.iterdir())
    return result.code, load_trial(single_run_dir(tmp_path / "out"), name)


def run_suite(proctor: Any, tmp_path: Path, cases: Path, *extra: str) -> Any:
    """``proctor run`` of the cases into ``tmp_path/out`` with the judge's configuration."""
    return proctor(
        "run",
        "--source",
        str(cases),
        "--out",
        str(tmp_path / "out"),
        "--config",
        str(tmp_path / "proctor.json"),
        *extra,
    )


def test_judge_passes_and_records_its_verdict(proctor: Any, tmp_path: Path) -> None:
    code, trial = run(
        proctor, tmp_path, judged(tmp_path, [{**GOOD, "logprobs": [-0.1, -0.2, -0.05]}])
    )
    assert code == 0 and trial["status"] == "passed"
    judge = trial["evaluators"][0]
    assert judge["score"] == 85 and judge["metrics"]["confidenceLevel"] == 70
    assert judge["metrics"]["perplexityLevel"] == pytest.approx(
        100 * (1 - 2.718281828 ** (-0.35 / 3)), abs=0.01
    )
    assert judge["details"]["rationale"] == "The notes cover the task."
    assert trial["harnessUsage"]["judge:scripted/judge"]["responses"] == 1
    assert trial["harnessCalls"][0]["attempts"] == 1


def test_control_a_low_score_fails(proctor: Any, tmp_path: Path) -> None:
    code, trial = run(proctor, tmp_path, judged(tmp_path, [LOW]))
    assert code == 1 and trial["status"] == "failed"
    assert trial["evaluators"][0]["error"] is False


def test_each_condition_is_judged_by_its_own_scripted_replies(proctor: Any, tmp_path: Path) -> None:
    """A condition's own ``roles`` were validated and then ignored: both conditions got the
    default verdict (75), which passes, so the A/B pair could not be scripted to differ."""
    cases = judged(tmp_path, [GOOD])
    steps = [{"write": {"path": "NOTES.md", "content": "# Notes\n"}}]
    (cases / "judged" / "plan.json").write_text(
        json.dumps(
            {
                "conditions": {
                    "baseline": {"turns": steps, "roles": {"judge": [LOW]}},
                    "with-skill": {"turns": steps, "roles": {"judge": [GOOD]}},
                }
            }
        )
    )
    config = json.loads((cases / "judged" / "config.json").read_text())
    config["conditions"] = {"baseline": {}, "with-skill": {}}
    (cases / "judged" / "config.json").write_text(json.dumps(config))
    run_suite(proctor, tmp_path, cases)
    trials = single_run_dir(tmp_path / "out") / "trials" / "judged" / "scripted"
    scores = {
        c: json.loads((trials / c / "1" / "trial.json").read_text())["evaluators"][0]["score"]
        for c in ("baseline", "with-skill")
    }
    assert scores == {"baseline": 30, "with-skill": 85}


def test_rate_limit_then_success_is_retried(proctor: Any, tmp_path: Path) -> None:
    code, trial = run(
        proctor, tmp_path, judged(tmp_path, [{"status": 429, "message": "slow down"}, GOOD])
    )
    assert code == 0 and trial["status"] == "passed"
    assert trial["harnessCalls"][0]["attempts"] == 2


def test_quota_is_an_eval_error_and_exit_3(proctor: Any, tmp_path: Path) -> None:
    quota = {
        "status": 429,
        "body": {
            "error": {
                "message": "You exceeded your current quota",
                "type": "insufficient_quota",
                "code": "insufficient_quota",
            }
        },
    }
    code, trial = run(proctor, tmp_path, judged(tmp_path, [quota]))
    assert code == 3
    assert trial["status"] == "eval-error" and trial["score"] is None
    assert "quota" in trial["reason"]
    assert trial["harnessCalls"][0]["attempts"] == 1, "quota errors are not retried"


@pytest.mark.parametrize(
    ("replies", "status", "fragment"),
    [
        ([{"text": "looks fine to me"}, GOOD], "passed", None),
        (
            [{"text": "no json"}, {"text": "still none"}],
            "eval-error",
            "judge scripted/judge's reply unusable after one retry",
        ),
        (
            [{"json": {"score": 101, "confidenceLevel": 50, "rationale": "x"}}] * 2,
            "eval-error",
            "from 0 to 100",
        ),
        (
            [{"json": {"score": 90, "rationale": "x"}}] * 2,
            "eval-error",
            "'confidenceLevel' is missing",
        ),
        (
            [{"text": '{"score": %s, "confidenceLevel": 5, "rationale": "x"}' % ("9" * 400)}, GOOD],
            "passed",
            None,
        ),
    ],
)
def test_malformed_replies_are_errors_never_passes(
    proctor: Any, tmp_path: Path, replies: list[dict[str, Any]], status: str, fragment: str | None
) -> None:
    code, trial = run(proctor, tmp_path, judged(tmp_path, replies))
    assert trial["status"] == status, trial["reason"]
    if fragment:
        assert fragment in trial["reason"] and code == 3


def test_huge_trajectory_is_cut_and_the_cut_recorded(proctor: Any, tmp_path: Path) -> None:
    turns = [{"shell": f"echo step {i}; printf 'x%.0s' $(seq 1 300)"} for i in range(60)]
    turns += [{"shell": "cat missing-file"}, {"say": "Done."}]
    cases = judged(tmp_path, [GOOD], turns=turns, evaluator={"maxInputChars": 8000})
    _code, trial = run(proctor, tmp_path, cases)
    truncation = trial["evaluators"][0]["details"]["truncation"]
    assert truncation["trajectoryLinesCut"] > 0
    assert "failing step" in truncation["strategy"]
    requests = [
        json.loads(x)
        for x in (
            single_run_dir(tmp_path / "out")
            / "trials/judged/scripted/default/1/harness-requests.jsonl"
        )
        .read_text()
        .splitlines()
    ]
    assert requests[0]["requestBytes"] < 12_000


def test_a_huge_prompt_is_capped_to_the_budget(proctor: Any, tmp_path: Path) -> None:
    turns = [{"shell": "cat missing-file"}, {"say": "Done."}]
    cases = judged(tmp_path, [GOOD], turns=turns, evaluator={"maxInputChars": 10_000})
    (cases / "judged" / "prompt.md").write_text("Write notes. " + "p" * 50_000)
    _code, trial = run(proctor, tmp_path, cases)
    assert trial["status"] == "passed", trial["reason"]
    log = (
        single_run_dir(tmp_path / "out") / "trials/judged/scripted/default/1/harness-requests.jsonl"
    )
    request = json.loads(log.read_text().splitlines()[0])
    assert request["requestBytes"] < 12_000


def test_rubric_over_budget_is_a_context_overflow_error(proctor: Any, tmp_path: Path) -> None:
    cases = judged(tmp_path, [GOOD], evaluator={"maxInputChars": 1000})
    (cases / "judged" / "evaluation.md").write_text("rubric " * 400)
    _code, trial = run(proctor, tmp_path, cases)
    assert trial["status"] == "eval-error" and "context overflow" in trial["reason"]


def test_missing_logprobs_leave_perplexity_out_with_one_warning(
    proctor: Any, tmp_path: Path
) -> None:
    cases = judged(tmp_path, [GOOD])
    result = proctor(
        "run",
        "--source",
        str(cases),
        "--out",
        str(tmp_path / "out"),
        "--config",
        str(tmp_path / "proctor.json"),
        "--repeats",
        "3",
    )
    trial = load_trial(single_run_dir(tmp_path / "out"), "judged")
    assert "perplexityLevel" not in trial["evaluators"][0]["metrics"]
    assert result.err.count("returns no log-probabilities") == 1
    # The scripted judge's warning says how its plan gives them.
    assert 'the plan\'s roles.judge replies give "logprobs": [...]' in result.err


def test_question_answered_by_the_workhorse_model(proctor: Any, tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    write_case(
        cases,
        "ask",
        plan={
            "turns": [
                {"ask": "Which database should I use?", "options": ["SQLite", "Postgres"]},
                {"say": "ok"},
            ],
            "roles": {
                "workhorse": [
                    {"json": {"action": "choose", "answer": "SQLite", "reason": "simplest"}}
                ]
            },
        },
    )
    (tmp_path / "proctor.json").write_text(json.dumps(TOP))
    _code, trial = run(proctor, tmp_path, cases)
    assert trial["status"] == "passed"
    q = json.loads(
        (
            single_run_dir(tmp_path / "out") / "trials/ask/scripted/default/1/questions.jsonl"
        ).read_text()
    )
    assert (q["answer"], q["policy"], q["model"]) == ("SQLite", "model", "scripted/workhorse")
    assert q["inputTokens"] > 0


def test_workhorse_abort_fails_the_trial(proctor: Any, tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    write_case(
        cases,
        "ask",
        plan={
            "turns": [{"ask": "Drop the production table?", "options": ["Yes", "No"]}],
            "roles": {"workhorse": [{"text": "ABORT"}]},
        },
    )
    (tmp_path / "proctor.json").write_text(json.dumps(TOP))
    _code, trial = run(proctor, tmp_path, cases)
    assert (
        trial["status"] == "failed"
        and trial["reason"] == "unanswered question: Drop the production table?"
    )


def test_a_planted_key_never_reaches_disk(proctor: Any, tmp_path: Path, monkeypatch: Any) -> None:
    key = "sk-ant-PLANTED-" + "k" * 40
    with ScriptedModelServer({"roles": {"judge": [GOOD]}}) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", key)
        monkeypatch.setenv("PROCTOR_ANTHROPIC_BASE_URL", server.base_url)
        cases = judged(tmp_path, [GOOD])
        (tmp_path / "proctor.json").write_text(
            json.dumps({"models": {"judge": "anthropic/claude-x"}, "env": {"ECHO": key}})
        )
        write_case(
            cases,
            "leaky",
            plan={"turns": [{"shell": "env; echo $ECHO"}]},
            config={"evaluators": [{"use": "command", "run": "echo $ECHO"}]},
        )
        result = proctor(
            "run",
            "--source",
            str(cases),
            "--out",
            str(tmp_path / "out"),
            "--config",
            str(tmp_path / "proctor.json"),
        )
    trial = load_trial(single_run_dir(tmp_path / "out"), "judged")
    assert trial["status"] == "passed", trial["reason"]
    assert trial["harnessCalls"][0]["model"] == "anthropic/claude-x"
    for path in (tmp_path / "out").rglob("*"):
        if path.is_file():
            assert key.encode() not in path.read_bytes(), f"key written to {path}"
    assert key not in result.out + result.err
    leaky = load_trial(single_run_dir(tmp_path / "out"), "leaky")
    assert "raw-transcript.jsonl" in leaky["secretsMasked"]


def test_a_needed_role_without_a_key_stops_before_any_trial(
    proctor: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    for name in ("ANTHROPIC_API_KEY", "PROCTOR_ANTHROPIC_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    cases = judged(tmp_path, [GOOD])
    (tmp_path / "proctor.json").write_text(json.dumps({"models": {"judge": "anthropic/claude-x"}}))
    result = proctor(
        "run",
        "--source",
        str(cases),
        "--out",
        str(tmp_path / "out"),
        "--config",
        str(tmp_path / "proctor.json"),
    )
    assert result.code == 2
    assert (
        "the judge role (anthropic/claude-x) needs a key: set PROCTOR_ANTHROPIC_KEY or ANTHROPIC_API_KEY"
        in result.err
    )
    assert not (tmp_path / "out").exists()


def test_key_from_dotenv_and_bad_base_url(proctor: Any, tmp_path: Path, monkeypatch: Any) -> None:
    for name in ("ANTHROPIC_API_KEY", "PROCTOR_ANTHROPIC_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("ANTHROPIC_API_KEY='sk-ant-from-dotenv-123'\n")
    monkeypatch.setenv("PROCTOR_ANTHROPIC_BASE_URL", "ftp://nope")
    cases = judged(tmp_path, [GOOD])
    (tmp_path / "proctor.json").write_text(json.dumps({"models": {"judge": "anthropic/claude-x"}}))
    result = proctor("run", "--source", str(cases), "--config", str(tmp_path / "proctor.json"))
    assert result.code == 2 and "PROCTOR_ANTHROPIC_BASE_URL: expected an http(s) URL" in result.err


def test_an_unparseable_base_url_is_a_config_error(
    proctor: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.delenv("PROCTOR_OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("PROCTOR_BASE_URL", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test-123")
    monkeypatch.setenv("OPENAI_BASE_URL", "https://[::1")
    cases = judged(tmp_path, [GOOD])
    (tmp_path / "proctor.json").write_text(json.dumps({"models": {"judge": "openai/gpt-x"}}))
    result = proctor("run", "--source", str(cases), "--config", str(tmp_path / "proctor.json"))
    assert result.code == 2, result.err
    assert "OPENAI_BASE_URL: expected an http(s) URL" in result.err
    assert "Traceback" not in result.err


def test_judge_without_a_model_is_a_config_error(proctor: Any, tmp_path: Path) -> None:
    cases = judged(tmp_path, [GOOD])
    (tmp_path / "proctor.json").write_text("{}")
    result = proctor("validate", "--source", str(cases), "--config", str(tmp_path / "proctor.json"))
    assert result.code == 2 and "needs a judge model" in result.err
    assert "or scripted/judge for proctor's scripted model, which replies from plan.json's" in (
        result.err
    )


@pytest.mark.parametrize(("verdict", "turns"), [("question", 2), ("statement", 1)])
def test_the_fast_model_classifies_an_ambiguous_turn_end(
    proctor: Any, tmp_path: Path, verdict: str, turns: int
) -> None:
    cases = tmp_path / "cases"
    write_case(
        cases,
        "amb",
        plan={
            "turns": [
                {"say": "Tests pass? Mostly, but the cache layer could use a flag"},
                {"endTurn": True},
                {"say": "Added the flag."},
            ],
            "roles": {"fast": [{"text": verdict}]},
        },
        qna="```rules\n(?i)cache layer => Yes, add the flag.\n```\n",
    )
    (tmp_path / "proctor.json").write_text(json.dumps({"models": {"fast": "scripted/fast"}}))
    _code, trial = run(proctor, tmp_path, cases)
    assert trial["status"] == "passed"
    assert trial["timings"]["turnsTotal"] == turns
    calls = [c for c in trial["harnessCalls"] if c["role"] == "fast"]
    assert len(calls) == 1


def test_a_huge_rationale_is_kept_cut_and_says_so(proctor: Any, tmp_path: Path) -> None:
    """A gateway or local model not bound by maxOutputTokens wrote a 3 MB rationale, kept
    whole in trial.json."""
    huge = {"json": {"score": 85, "confidenceLevel": 70, "rationale": "word " * 600_000}}
    code, trial = run(proctor, tmp_path, judged(tmp_path, [huge]))
    assert code == 0 and trial["status"] == "passed"
    kept = trial["evaluators"][0]["details"]["rationale"]
    assert kept.startswith("word word") and kept.endswith("… (cut: 3,000,000 characters in all)")
    assert len(kept) < 8_100
