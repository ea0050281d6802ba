"""Runs and reports that must not look better, or be filed elsewhere, than what happened."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import CliResult, load_trial, single_run_dir

Run = Callable[..., CliResult]
MakeCase = Callable[..., Path]


def _run(proctor: Run, tmp_path: Path, *args: str) -> tuple[CliResult, Path]:
    out = tmp_path / "out"
    return proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out), *args), out


def test_a_timeout_or_unanswered_question_never_passes_a_min_score_gate(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("slow", config={"timeoutSec": 1}, plan={"turns": [{"shell": "sleep 20"}]})
    make_case("asks", plan={"turns": [{"ask": "Shall I?", "options": ["Yes", "No"]}]})
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"gate": {"minScore": 90}, "passThreshold": 60}))
    result, out = _run(proctor, tmp_path, "--config", str(config))
    assert result.code == 1, result.out + result.err
    run_dir = single_run_dir(out)
    for case in ("slow", "asks"):
        trial = load_trial(run_dir, case)
        assert trial["passed"] is False and trial["score"] == 59, trial


def test_report_of_a_run_killed_midway_says_it_stopped_short(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("a", config={"repeats": 3}, plan={"turns": [{"say": "hi"}]})
    result, out = _run(proctor, tmp_path)
    assert result.code == 0
    run_dir = single_run_dir(out)
    manifest = json.loads((run_dir / "run.json").read_text())
    manifest.pop("finishedAt")  # as if killed before the end
    (run_dir / "run.json").write_text(json.dumps(manifest))
    for trial in (run_dir / "trials/a/scripted/default").iterdir():
        if trial.name != "1":
            (trial / "trial.json").unlink()
    report = proctor("report", str(run_dir), "--reporter", "json")
    assert report.code == 130, report.out + report.err
    assert json.loads(report.out)["exitReason"].startswith("interrupted after 1 of 3 trial(s)")


def test_control_report_of_a_finished_run_keeps_its_exit_code(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("a", config={"repeats": 2}, plan={"turns": [{"say": "hi"}]})
    _, out = _run(proctor, tmp_path)
    assert proctor("report", str(single_run_dir(out))).code == 0


def test_the_default_ab_pair_is_two_conditions_that_ran_together(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    plan = {"turns": [{"say": "hi"}]}
    make_case("x", config={"conditions": {"baseline": {}, "with-skill": {}}}, plan=plan)
    make_case("y", config={"conditions": {"control": {}, "variant": {}}}, plan=plan)
    make_case("z", config={"conditions": {"control": {}, "variant": {}}}, plan=plan)
    result, out = _run(proctor, tmp_path, "--json")
    suite = json.loads((single_run_dir(out) / "suite.json").read_text())
    assert (suite["ab"]["treatment"], suite["ab"]["baseline"]) == ("variant", "control")
    assert suite["ab"]["overall"]["pairs"] == 2 and suite["ab"]["incomplete"] == [], result.err


def test_an_ab_gate_comparing_a_condition_with_itself_is_a_config_error(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("x", config={"conditions": {"a": {}, "b": {}}}, plan={"turns": [{"say": "hi"}]})
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"gate": {"ab": {"treatment": "a", "baseline": "a"}}}))
    result, _ = _run(proctor, tmp_path, "--config", str(config))
    assert result.code == 2
    assert "treatment and baseline are both 'a'" in (result.out + result.err)


def test_condition_and_profile_names_must_be_folder_names(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("x", config={"conditions": {"with/skill": {}}}, plan={"turns": [{"say": "hi"}]})
    result, out = _run(proctor, tmp_path)
    assert result.code == 2 and not out.exists()
    assert "field 'conditions': 'with/skill' names a results folder" in (result.out + result.err)


def test_an_out_folder_that_cannot_be_made_is_one_sentence(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("x", plan={"turns": [{"say": "hi"}]})
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = proctor("run", "--source", str(tmp_path / "cases"), "--out", str(blocker / "sub"))
    assert result.code == 2
    assert "cannot create the run folder (Not a directory)" in (result.out + result.err)


def test_credentials_stay_out_and_a_forwarded_key_is_masked(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: Any
) -> None:
    planted = {
        "GITHUB_TOKEN": "ghp-planted-token-1",
        "CLAUDE_CODE_OAUTH_TOKEN": "oauth-planted-2",
        "AWS_SECRET_ACCESS_KEY": "aws-planted-3",
        "MY_DB_PASSWORD": "db-planted-4",
        "SSH_AUTH_SOCK": "/tmp/planted-agent.sock",
        "ANTHROPIC_API_KEY": "sk-ant-forwarded-5",
    }
    for name, value in planted.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("KEYBOARD_LAYOUT", "us")  # not a credential: passes
    make_case("env", plan={"turns": [{"shell": "env > env.txt; cat env.txt"}]})
    config = tmp_path / "proctor.json"
    config.write_text(
        json.dumps({"codingagents": {"scripted": {"forwardEnv": ["ANTHROPIC_API_KEY"]}}})
    )
    _, out = _run(proctor, tmp_path, "--keep-workspace", "--config", str(config))
    trial_dir = single_run_dir(out) / "trials/env/scripted/default/1"
    env = (trial_dir / "workspace/env.txt").read_text()
    assert "KEYBOARD_LAYOUT=us" in env
    for name, value in planted.items():
        if name == "ANTHROPIC_API_KEY":
            continue
        assert name not in env and value not in env, name
    everything = "".join(p.read_text(errors="replace") for p in trial_dir.rglob("*") if p.is_file())
    assert "sk-ant-forwarded-5" not in everything, "a forwarded key is masked in what is written"
    assert "raw-transcript.jsonl" in load_trial(single_run_dir(out), "env")["secretsMasked"]


def test_files_an_evaluator_needs_are_checked_before_any_trial(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    cases = [
        ({"use": "llm-judge", "rubric": "missing.md"}, "the rubric missing.md is not in the case"),
        ({"use": "external", "command": "./nope.py"}, "program './nope.py' is neither on PATH"),
        ({"use": "hook-transcript-check", "pluginManifest": "p/hooks.json"}, "is not a file"),
    ]
    for entry, message in cases:
        make_case("x", config={"evaluators": [entry]}, plan={"turns": [{"say": "hi"}]})
        result = proctor("validate", "--source", str(tmp_path / "cases"))
        assert result.code == 2 and message in result.err, (entry, result.err)


def test_an_unreadable_optional_file_stops_the_run(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    folder = make_case("x", plan={"turns": [{"say": "hi"}]})
    (folder / "qna.md").write_bytes(b"```rules\n\xff => no\n```\n")
    result, out = _run(proctor, tmp_path)
    assert result.code == 2 and "qna.md is not UTF-8 text" in result.err
    assert not out.exists()


def test_ab_gate_conditions_missing_from_the_run_are_config_errors(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("x", config={"conditions": {"a": {}, "b": {}}}, plan={"turns": [{"say": "hi"}]})
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"gate": {"ab": {"treatment": "b", "baseline": "a"}}}))
    result, out = _run(proctor, tmp_path, "--config", str(config), "--condition", "a")
    assert result.code == 2 and "condition 'b' is left out by --condition" in result.err
    _run(proctor, tmp_path)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"gate": {"ab": {"treatment": "c", "baseline": "a"}}}))
    report = proctor("report", str(single_run_dir(out)), "--config", str(other))
    assert report.code == 2 and "condition 'c' is not in this run" in report.err


def test_a_pipe_in_a_case_name_stays_in_its_table_cell(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("a|b", plan={"turns": [{"say": "hi"}]})
    _, out = _run(proctor, tmp_path)
    md = (single_run_dir(out) / "suite.md").read_text()
    rows = [line for line in md.splitlines() if line.startswith("| a")]
    assert rows and all(row.startswith("| a\\|b |") for row in rows)


def test_report_survives_a_hand_edited_trial(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("a", plan={"turns": [{"write": {"path": "x.py", "content": "1\n"}}]})
    _, out = _run(proctor, tmp_path)
    run_dir = single_run_dir(out)
    path = run_dir / "trials/a/scripted/default/1/trial.json"
    trial = json.loads(path.read_text())
    trial["rules"] = [{"fired": True}, {"rule": ["x"], "fired": True}]
    trial["process"]["effort"]["elapsedSeconds"] = "slow"
    trial["process"]["effort"]["cost"] = "cheap"
    path.write_text(json.dumps(trial))
    report = proctor("report", str(run_dir))
    assert report.code == 0, report.err


def test_cost_is_unknown_without_a_price_table(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("a", plan={"model": "claude-x", "turns": [{"say": "hi"}]})
    make_case("free", plan={"turns": [{"say": "hi"}]})
    _, out = _run(proctor, tmp_path)
    trial = load_trial(single_run_dir(out), "a")
    assert trial["process"]["effort"].get("cost") is None
    assert trial["cost"]["totalUsd"] is None and trial["cost"]["unpriced"] == ["claude-x"]
    free = load_trial(single_run_dir(out), "free")
    assert free["process"]["effort"]["cost"] == 0.0, "the scripted model costs nothing"
    assert free["cost"]["totalUsd"] == 0.0


def test_a_symlinked_temporary_folder_still_finds_the_transcript(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: Any
) -> None:
    real = tmp_path / "real-tmp"
    real.mkdir()
    (tmp_path / "linked-tmp").symlink_to(real)
    monkeypatch.setenv("TMPDIR", str(tmp_path / "linked-tmp"))
    monkeypatch.setattr("tempfile.tempdir", None)  # re-read TMPDIR
    make_case("a", plan={"turns": [{"shell": "echo hi"}]})
    _, out = _run(proctor, tmp_path)
    trial = load_trial(single_run_dir(out), "a")
    assert trial["toolCalls"] == 1, trial


def test_an_answering_model_that_fails_is_an_infra_error_not_a_failed_trial(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case(
        "ask",
        plan={
            "turns": [{"ask": "Which database?", "options": ["SQLite", "Postgres"]}],
            "roles": {"workhorse": [{"status": 401}]},
        },
    )
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"models": {"workhorse": "scripted/workhorse"}}))
    result, out = _run(proctor, tmp_path, "--config", str(config))
    trial = load_trial(single_run_dir(out), "ask")
    assert trial["status"] == "infra-error", trial["reason"]
    assert trial["reason"].startswith("answering model scripted/workhorse failed")
    assert result.code == 2  # every trial ended in infra-error


def test_every_model_a_run_may_call_needs_its_key_before_any_trial(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: Any
) -> None:
    for name in (
        "OPENAI_API_KEY",
        "PROCTOR_OPENAI_KEY",
        "ANTHROPIC_API_KEY",
        "PROCTOR_ANTHROPIC_KEY",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no .env here
    folder = make_case(
        "judged",
        plan={"turns": [{"say": "hi"}]},
        config={
            "models": {"judge": "scripted/judge"},
            "evaluators": [
                {"use": "llm-judge"},
                {"use": "llm-judge", "model": "openai/gpt-x"},
            ],
        },
    )
    (folder / "evaluation.md").write_text("Score it.\n")
    result, out = _run(proctor, tmp_path)
    assert result.code == 2 and not out.exists()
    assert "the judge (evaluators[1]) role (openai/gpt-x) needs a key" in result.err
    (folder / "config.json").write_text(json.dumps({"models": {"workhorse": "anthropic/claude-x"}}))
    result, _ = _run(proctor, tmp_path)
    assert result.code == 2 and "role (anthropic/claude-x) needs a key" in result.err


def test_agent_model_from_the_profile_and_the_command_line_reach_the_agent(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("a", plan={"turns": [{"say": "hi"}]})
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"codingagents": {"scripted": {"agentModel": "from-profile"}}}))
    _, out = _run(proctor, tmp_path, "--config", str(config))
    trial = load_trial(single_run_dir(out), "a")
    assert trial["agentModel"] == "from-profile" and "from-profile" in trial["usage"]
    out2 = tmp_path / "out2"
    proctor(
        "run",
        "--source",
        str(tmp_path / "cases"),
        "--out",
        str(out2),
        "--config",
        str(config),
        "--agent-model",
        "scripted=from-cli",
    )
    assert load_trial(single_run_dir(out2), "a")["agentModel"] == "from-cli"


def test_a_permission_mode_the_cli_does_not_have_is_a_config_error(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("a", config={"agents": ["gemini-cli"]}, plan={"turns": [{"say": "hi"}]})
    config = tmp_path / "proctor.json"
    for agent in ("gemini-cli", "codex"):
        config.write_text(json.dumps({"codingagents": {agent: {"permissionMode": "sometimes"}}}))
        (tmp_path / "cases/a/config.json").write_text(json.dumps({"agents": [agent]}))
        result = proctor("validate", "--source", str(tmp_path / "cases"), "--config", str(config))
        assert result.code == 2, (agent, result.err)
        assert f"codingagents.{agent}: agent '{agent}': permissionMode 'sometimes'" in result.err
