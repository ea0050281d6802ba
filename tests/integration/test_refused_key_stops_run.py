"""A key a provider refused stops the run from starting further trials that would meet it (of the
same agent, or calling the same model of proctor's): every one of them would meet the same
refusal (Claude Code goes on retrying a 401 until its whole timeoutSec is spent). The other
trials run on; those not started are left for `--resume`, which runs again the trials that met
the refusal too."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import MakeCase, Run, load_trial, run_cases, single_run_dir

KEY = "sk-ant-api03-refused-test-key-0003"

# Counts its calls in $CALLS; a key refused, or (with $OTHER) another failure, or (with $SAID)
# that text on stderr.
STAND_IN = """#!/bin/sh
case "$1" in --version) echo '2.1.197 (Claude Code)'; exit 0;; esac
echo x >> "$CALLS"
if [ -n "$OTHER" ]; then echo "Segmentation fault" >&2; exit 139; fi
if [ -n "$SAID" ]; then echo "$SAID" >&2; exit 1; fi
echo 'API Error: 401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}' >&2
exit 1
"""


@pytest.fixture
def refusing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    binary = tmp_path / "bin" / "claude"
    binary.parent.mkdir()
    binary.write_text(STAND_IN)
    binary.chmod(binary.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("CALLS", str(tmp_path / "calls"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.delenv("OTHER", raising=False)
    monkeypatch.delenv("SAID", raising=False)
    config = tmp_path / "proctor.json"
    profile = {"binary": str(binary), "mode": "headless"}
    config.write_text(json.dumps({"codingagents": {"claude-code": profile}}))
    return config


def calls(tmp_path: Path) -> int:
    return (tmp_path / "calls").read_text().count("x")


def test_an_agent_key_refused_starts_no_further_trial(
    proctor: Run, make_case: MakeCase, tmp_path: Path, refusing: Path
) -> None:
    make_case("a", config={"agents": ["claude-code"], "repeats": 3})
    argv = ("--config", str(refusing), "--concurrency", "1")
    result, out = run_cases(proctor, tmp_path, *argv)
    assert result.code == 130, result.err  # stopped short, as an interrupted run
    assert calls(tmp_path) == 1
    run_dir = single_run_dir(out)
    trial = load_trial(run_dir, "a", agent="claude-code")
    assert trial["reason"].startswith("authentication failed: API Error: 401"), trial
    assert not (run_dir / "trials/a/claude-code/default/2").exists()
    # Why it stopped, said once, in the run's exit reason: no "interrupted" line before it,
    # as of a Ctrl-C; the reports and run.json say it too.
    why = (
        "interrupted after 1 of 3 trials finished (2 not started), as a provider refused a key "
        "in trial a/claude-code/default/1 (authentication failed) and every trial of agent "
        "claude-code not started would meet the same refusal until the key is mended; of the "
        "finished ones: "
    )
    lines = result.err.splitlines()
    assert "proctor: interrupted" not in lines, result.err
    assert result.err.count("refused a key") == 1, result.err
    assert f"proctor: exit 130: {why}" in result.err
    assert lines[-1].startswith("proctor: `proctor run --resume "), result.err
    suite = json.loads((run_dir / "suite.json").read_text())
    assert suite["exitReason"].startswith(why), suite["exitReason"]
    said = json.loads((run_dir / "run.json").read_text())["stoppedBecause"]
    assert said.startswith("a provider refused a key in trial a/claude-code/default/1 ")
    report = proctor("report", str(run_dir))
    assert report.code == 130 and f"(interrupted): {why}" in report.out, report.out
    assert KEY not in result.out + result.err
    # Not mended, the resume runs the refused trial again, refused again: the two left wait.
    result = proctor("run", "--resume", str(run_dir))
    assert calls(tmp_path) == 2, result.err
    assert (
        result.code == 130
        and "(2 not started), as a provider refused a key in trial "
        "a/claude-code/default/1 (authentication failed)"
        in result.err
    )


def test_control_another_agent_error_runs_every_trial(
    proctor: Run,
    make_case: MakeCase,
    tmp_path: Path,
    refusing: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OTHER", "1")
    make_case("a", config={"agents": ["claude-code"], "repeats": 3})
    argv = ("--config", str(refusing), "--concurrency", "1")
    result, _out = run_cases(proctor, tmp_path, *argv)
    assert result.code == 3, result.err
    assert calls(tmp_path) == 3
    assert "refused a key" not in result.err


def test_an_answering_model_s_key_refused_starts_no_further_trial(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """A key revoked after the check before the run: the workhorse is refused."""
    make_case(
        "ask",
        config={"repeats": 2},
        plan={
            "turns": [{"ask": "Which database?", "options": ["SQLite", "Postgres"]}],
            "roles": {"workhorse": [{"status": 401}]},
        },
    )
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"models": {"workhorse": "scripted/workhorse"}}))
    result, out = run_cases(proctor, tmp_path, "--config", str(config), "--concurrency", "1")
    assert result.code == 130, result.err
    trial = load_trial(single_run_dir(out), "ask")
    assert trial["reason"].startswith("answering model scripted/workhorse failed: "), trial
    assert (
        "(1 not started), as a provider refused a key in trial ask/scripted/default/1 "
        "(answering model scripted/workhorse failed: authentication failed (401)) and every"
    ) in result.err, result.err


def test_a_judge_s_refused_key_holds_back_only_the_trials_that_call_a_judge(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """``models.judge`` gives every trial the judge role: a trial whose case has no llm-judge
    never calls it, so a refused judge leaves it to run."""
    write = [{"say": "Writing it."}, {"write": {"path": "hello.txt", "content": "hello\n"}}]
    gate = {"use": "file-exists", "must": ["hello.txt"], "gate": True}
    judge = {"use": "llm-judge", "rubric": "evaluation.md", "label": "notes"}
    judged = make_case(
        "a-judged",
        config={"agents": ["scripted"], "repeats": 2, "evaluators": [gate, judge]},
        plan={"turns": write, "roles": {"judge": [{"status": 401}, {"status": 401}]}},
    )
    (judged / "evaluation.md").write_text("Score 0-100: is hello.txt there?")
    make_case(
        "b-plain",
        config={"agents": ["scripted"], "repeats": 2, "evaluators": [gate]},
        plan={"turns": write},
    )
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"models": {"judge": "scripted/judge"}}))
    result, out = run_cases(proctor, tmp_path, "--config", str(config), "--concurrency", "1")
    assert result.code == 130, result.err
    run_dir = single_run_dir(out)
    assert "judge scripted/judge failed: " in load_trial(run_dir, "a-judged")["reason"]
    assert not (run_dir / "trials/a-judged/scripted/default/2").exists()
    for repeat in (1, 2):
        assert load_trial(run_dir, "b-plain", repeat)["status"] == "passed", result.err
    assert "interrupted after 3 of 4 trials finished (1 not started)" in result.err, result.err


def test_an_agent_s_refused_key_leaves_only_that_agent_s_trials(
    proctor: Run, make_case: MakeCase, tmp_path: Path, refusing: Path
) -> None:
    """The scripted agent uses no key: its trials run, those of the agent refused do not."""
    make_case("a", config={"agents": ["claude-code", "scripted"], "repeats": 2})
    argv = ("--config", str(refusing), "--concurrency", "1")
    result, out = run_cases(proctor, tmp_path, *argv)
    assert result.code == 130, result.err
    assert calls(tmp_path) == 1
    run_dir = single_run_dir(out)
    for repeat in (1, 2):
        assert load_trial(run_dir, "a", repeat)["status"] == "passed"
    assert not (run_dir / "trials/a/claude-code/default/2").exists()
    assert (
        "proctor: exit 130: interrupted after 3 of 4 trials finished (1 not started), as a "
        "provider refused a key in trial a/claude-code/default/1 (authentication failed) and "
        "every trial of agent claude-code not started would meet the same refusal until the "
        "key is mended"
    ) in result.err, result.err


def test_a_stop_by_hand_after_a_refusal_is_said_as_a_stop_not_the_refusal(
    make_case: MakeCase, tmp_path: Path, refusing: Path
) -> None:
    """A SIGTERM (as Ctrl-C) while another agent's trial runs, after claude-code's key was
    refused: the trials left are left by the stop, which is what the run says."""
    slow = tmp_path / "bin" / "slow"
    slow.write_text(
        "#!/bin/sh\ncase \"$1\" in --version) echo '2.1.197 (Claude Code)'; exit 0;; esac\n"
        'echo s >> "$CALLS"\nsleep 60\n'
    )
    slow.chmod(slow.stat().st_mode | stat.S_IEXEC)
    config = json.loads(refusing.read_text())
    config["codingagents"]["slow"] = {"agent": "claude-code", "binary": str(slow)}
    config["codingagents"]["slow"]["mode"] = "headless"
    refusing.write_text(json.dumps(config))
    make_case("a", config={"agents": ["claude-code", "slow"], "repeats": 2, "timeoutSec": 90})
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "proctor", "run", "--source", str(tmp_path / "cases")]
    argv += ["--out", str(out), "--config", str(refusing), "--concurrency", "1"]
    env = {**os.environ, "HOME": str(tmp_path / "home")}
    process = subprocess.Popen(argv, env=env, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while "s" not in calls_text(tmp_path) and time.monotonic() < deadline:
            assert process.poll() is None, process.communicate()[1]
            time.sleep(0.1)
        assert "s" in calls_text(tmp_path), "the slow trial never started"
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130, err
    assert "proctor: interrupted" in err.splitlines(), err
    assert "refused a key" not in err.partition("proctor: exit 130:")[2], err
    run_dir = single_run_dir(out)
    assert json.loads((run_dir / "run.json").read_text()).get("stoppedBecause") is None


def calls_text(tmp_path: Path) -> str:
    path = tmp_path / "calls"
    return path.read_text() if path.exists() else ""


def test_a_resume_runs_again_the_trials_that_met_a_refused_key(
    proctor: Run,
    make_case: MakeCase,
    tmp_path: Path,
    refusing: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Authentication is no error --retry-errors runs again; a trial that met a refused key
    still never measured the agent: the resume runs it again, its first attempt kept."""
    make_case("a", config={"agents": ["claude-code"], "repeats": 2})
    result, out = run_cases(proctor, tmp_path, "--config", str(refusing), "--concurrency", "2")
    assert result.code == 3, result.err  # both started at once: none was left waiting
    assert calls(tmp_path) == 2
    run_dir = single_run_dir(out)
    monkeypatch.setenv("OTHER", "1")  # mended: the stand-in now fails another way
    result = proctor("run", "--resume", str(run_dir))
    assert calls(tmp_path) == 4, result.err
    assert "0 kept, 2 run now (2 run again as they had met a refused key)" in result.err
    trial = load_trial(run_dir, "a", 1, "claude-code")
    assert not trial["reason"].startswith("authentication failed"), trial["reason"]
    assert [a["folder"] for a in trial["attempts"]] == ["attempts/1"]
    assert trial["attempts"][0]["reason"].startswith("authentication failed: API Error: 401")
    # Its other error is kept as it is.
    result = proctor("run", "--resume", str(run_dir))
    assert calls(tmp_path) == 4 and "nothing left to run" in result.err, result.err


def test_a_refused_attempt_is_no_retry_of_retry_errors(
    proctor: Run,
    make_case: MakeCase,
    tmp_path: Path,
    refusing: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The attempt that met a refused key does not use up ``--retry-errors``: mended, the
    trial meets an overloaded provider and is retried once; the report says each apart."""
    make_case("a", config={"agents": ["claude-code"]})
    argv = ("--config", str(refusing), "--retry-errors", "1")
    _result, out = run_cases(proctor, tmp_path, *argv)
    run_dir = single_run_dir(out)
    overloaded = 'API Error: 529 {"type":"error","error":{"type":"overloaded_error"}}'
    monkeypatch.setenv("SAID", overloaded)  # mended: the provider is overloaded now
    result = proctor("run", "--resume", str(run_dir), "--retry-errors", "1")
    assert calls(tmp_path) == 3, result.err
    trial = load_trial(run_dir, "a", agent="claude-code")
    reasons = [a["reason"] for a in trial["attempts"]]
    assert [r.split(":")[0] for r in reasons] == ["authentication failed", "provider overloaded"]
    report = proctor("report", str(run_dir)).out
    assert "- Retries: 1 trial ran again after a transient error (1 earlier attempt" in report
    assert "- Run again: 1 trial ran again after a refused key (1 earlier attempt" in report


def test_a_manifest_starts_no_further_pair_once_a_pair_met_a_refused_key(
    proctor: Run,
    make_case: MakeCase,
    tmp_path: Path,
    refusing: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Both trials of a pair start at once and are refused: the pair ends with none left,
    and each pair after it would be refused alike."""
    make_case(
        "t1", config={"agents": ["claude-code"], "conditions": {"baseline": {}, "treatment": {}}}
    )
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,single_goal\n")
    manifest = tmp_path / "repeats.json"
    args = ("--goal-labels", str(labels), "--pairs", "2", "--output", str(manifest))
    assert proctor("plan-repeats", *args).code == 0
    out = tmp_path / "out"
    argv = (
        "run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"),
        "--out", str(out), "--config", str(refusing), "--concurrency", "2",
    )  # fmt: skip
    result = proctor(*argv)
    assert result.code == 130, result.err
    assert calls(tmp_path) == 2, result.err
    assert [p.name for p in out.glob("pair-*")] == ["pair-1"]
    assert "of all-pair-1, and every pair after it would meet the same refusal; 1 run of" in (
        result.err
    )
    # Mended: the same command runs the refused pair's trials again, then the other pairs.
    monkeypatch.setenv("OTHER", "1")
    result = proctor(*argv)
    assert result.code == 3, result.err
    assert calls(tmp_path) == 6, result.err
    assert "all-pair-1: resuming" in result.err


def test_a_manifest_whose_pair_held_back_a_trial_says_the_key_not_a_ctrl_c(
    proctor: Run, make_case: MakeCase, tmp_path: Path, refusing: Path
) -> None:
    """One at a time, the pair's second trial is held back (the pair's run exits 130): the
    manifest's closing line says the refused key, not an interruption."""
    make_case(
        "t1", config={"agents": ["claude-code"], "conditions": {"baseline": {}, "treatment": {}}}
    )
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,single_goal\n")
    manifest = tmp_path / "repeats.json"
    args = ("--goal-labels", str(labels), "--pairs", "2", "--output", str(manifest))
    assert proctor("plan-repeats", *args).code == 0
    argv = (
        "run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"),
        "--out", str(tmp_path / "out"), "--config", str(refusing), "--concurrency", "1",
    )  # fmt: skip
    result = proctor(*argv)
    assert result.code == 130, result.err
    assert calls(tmp_path) == 1, result.err
    assert "proctor: stopped: a provider refused a key in trial t1/claude-code/" in result.err
    assert "proctor: interrupted;" not in result.err, result.err


def test_a_word_of_the_agent_s_tools_is_no_refused_key(
    proctor: Run,
    make_case: MakeCase,
    tmp_path: Path,
    refusing: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A crash reading a property named 'authentication', a page fetched with a 403: no
    provider refused the agent's key, and every trial runs."""
    make_case("a", config={"agents": ["claude-code"], "repeats": 2})
    for said in (
        "TypeError: Cannot read properties of undefined (reading 'authentication')",
        "Error: HTTP 403 Forbidden fetching https://example.com/docs (WebFetch)",
    ):
        monkeypatch.setenv("SAID", said)
        (tmp_path / "calls").write_text("")
        result, _out = run_cases(proctor, tmp_path, "--config", str(refusing), "--concurrency", "1")
        assert result.code == 3, result.err
        assert calls(tmp_path) == 2
        assert "refused a key" not in result.err and "authentication failed" not in result.err
