"""``proctor run`` in-process against the scripted agent and tmp dirs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeCase, Run, load_trial, run_cases, single_run_dir

HELLO_PLAN = {
    "turns": [
        {"say": "Writing it."},
        {"write": {"path": "hello.txt", "content": "hello\n"}},
        {"shell": "cat hello.txt"},
        {"say": "Done."},
    ]
}
HELLO_CONFIG = {
    "agents": ["scripted"],
    "timeoutSec": 30,
    "repeats": 2,
    "evaluators": [
        {"use": "file-exists", "must": ["hello.txt"], "mustNot": ["*.orig"], "gate": True},
        {"use": "command", "run": "grep -q hello hello.txt", "expectExit": 0, "weight": 2},
        {"use": "trajectory-check", "toolPattern": "Bash|shell", "min": 1},
    ],
}


def test_end_to_end_files_and_json(proctor: Run, make_case: MakeCase, tmp_path: Path) -> None:
    make_case("hello", config=HELLO_CONFIG, plan=HELLO_PLAN)
    result, out = run_cases(proctor, tmp_path, "--json")
    assert result.code == 0, result.err
    suite = result.json()
    assert suite["schemaVersion"] == 2 and suite["exitCode"] == 0
    group = suite["groups"][0]
    assert (group["case"], group["agent"], group["condition"], group["n"]) == (
        "hello",
        "scripted",
        "default",
        2,
    )
    assert group["passRate"] == 1.0 and group["stability"] == "stable-pass"
    assert group["gatePassed"] is True and group["statusCounts"] == {"passed": 2}
    run_dir = single_run_dir(out)
    for name in ("run.json", "config.json", "resolved.json", "suite.json"):
        assert json.loads((run_dir / name).read_text())["schemaVersion"] == 2, name
    assert (run_dir / "suite.md").read_text().startswith(f"# proctor run {run_dir.name}")
    assert json.loads((run_dir / "suite.json").read_text()) == suite
    trial_dir = run_dir / "trials/hello/scripted/default/1"
    trial = load_trial(run_dir, "hello")
    assert trial["status"] == "passed" and trial["score"] == 100
    assert [e["use"] for e in trial["evaluators"]] == ["file-exists", "command", "trajectory-check"]
    assert trial["transcript"]["coverage"]["unparsedLines"] == 0
    assert trial["usage"]["scripted"]["responses"] == 4 and trial["toolCalls"] == 2
    for name in (
        "trajectory.jsonl",
        "raw-transcript.jsonl",
        "screen.log",
        "terminal.raw",
        "workspace.diff",
    ):
        assert (trial_dir / name).is_file(), name
    assert "+hello" in (trial_dir / "workspace.diff").read_text()
    assert "Bash(cat hello.txt)" in (trial_dir / "screen.log").read_text()
    events = [json.loads(x) for x in (trial_dir / "trajectory.jsonl").read_text().splitlines()]
    assert [e["type"] for e in events if e["type"] in ("tool_call", "tool_result")] == [
        "tool_call",
        "tool_result",
        "tool_call",
        "tool_result",
    ]
    raw = (trial_dir / "raw-transcript.jsonl").read_text().splitlines()
    assert all(json.loads(x)["sessionId"] for x in raw)
    assert not (trial_dir / "workspace").exists(), "passed trials do not keep their workspace"
    manifest = json.loads((run_dir / "run.json").read_text())
    assert manifest["trialsPlanned"] == 2 and manifest["finishedAt"]


def _statuses(out: Path) -> dict[str, Any]:
    suite = json.loads((single_run_dir(out) / "suite.json").read_text())
    return {g["case"]: g["statusCounts"] for g in suite["groups"]}


def test_failure_modes_map_to_statuses_and_exit_codes(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("crash", plan={"turns": [{"say": "bye"}, {"exit": 3}]})
    make_case(
        "slow",
        config={"timeoutSec": 1, "evaluators": [{"use": "file-exists", "must": ["x"]}]},
        plan={"turns": [{"shell": "sleep 20"}]},
    )
    make_case(
        "unanswered",
        plan={"turns": [{"ask": "Delete the database?", "options": ["Yes", "No"]}]},
        qna="```rules\nREADME => No\n```\n",
    )
    make_case(
        "bad-eval",
        config={"evaluators": [{"use": "external", "command": "false"}]},
        plan={"turns": [{"say": "hi"}]},
    )
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 1
    assert _statuses(out) == {
        "bad-eval": {"eval-error": 1},
        "crash": {"agent-error": 1},
        "slow": {"timeout": 1},
        "unanswered": {"failed": 1},
    }
    run_dir = single_run_dir(out)
    assert load_trial(run_dir, "crash")["reason"] == (
        "agent exited with code 3 before its turn ended"
    )
    assert load_trial(run_dir, "slow")["reason"] == "agent did not finish within 1s"
    unanswered = load_trial(run_dir, "unanswered")
    assert unanswered["reason"] == "unanswered question: Delete the database?"
    line = json.loads(
        (run_dir / "trials/unanswered/scripted/default/1/questions.jsonl").read_text()
    )
    assert line["policy"] == "abort" and line.get("answer") is None
    assert "Delete the database?" in line["screen"]
    assert load_trial(run_dir, "bad-eval")["passed"] is None
    assert (run_dir / "trials/slow/scripted/default/1/workspace").is_dir(), "failed trials keep it"


def test_error_statuses_alone_exit_3(proctor: Run, make_case: MakeCase, tmp_path: Path) -> None:
    make_case("ok", plan={"turns": [{"say": "hi"}]})
    make_case("crash", plan={"turns": [{"exit": 2}]})
    result, _ = run_cases(proctor, tmp_path)
    assert result.code == 3, result.out


def test_question_answered_by_rule(proctor: Run, make_case: MakeCase, tmp_path: Path) -> None:
    make_case(
        "ask",
        config={"evaluators": [{"use": "trajectory-check", "toolPattern": "question"}]},
        plan={
            "turns": [{"ask": "Update the README too?", "options": ["Yes", "No"]}, {"say": "ok"}]
        },
        qna="```rules\n(?i)readme => No\n```\n",
    )
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 0, result.out
    trial_dir = single_run_dir(out) / "trials/ask/scripted/default/1"
    q = json.loads((trial_dir / "questions.jsonl").read_text())
    assert (q["question"], q["answer"], q["policy"]) == ("Update the README too?", "No", "rule")
    events = [json.loads(x) for x in (trial_dir / "trajectory.jsonl").read_text().splitlines()]
    answer = next(e for e in events if e["type"] == "answer")
    assert (answer["text"], answer["policy"]) == ("No", "rule")


def test_infra_error_everywhere_exits_2(proctor: Run, make_case: MakeCase, tmp_path: Path) -> None:
    make_case("broken-setup", config={"setup": ["exit 1"]}, plan={"turns": []})
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 2
    trial = load_trial(single_run_dir(out), "broken-setup")
    assert trial["status"] == "infra-error" and "setup line 1" in trial["reason"]


def test_fixture_symlink_outside_is_refused_before_any_trial(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    folder = make_case("leaky", plan={"turns": []}, src={"a.txt": "a"})
    (folder / "src" / "leak").symlink_to("/etc/hostname")
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 2 and "unsafe src/" in result.err and "points outside" in result.err
    assert not out.exists()


def test_failing_setup_is_infra_error_and_setup_output_is_kept(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("s", config={"setup": ["echo preparing", "exit 7"]}, plan={"turns": []})
    _result, out = run_cases(proctor, tmp_path)
    trial_dir = single_run_dir(out) / "trials/s/scripted/default/1"
    trial = json.loads((trial_dir / "trial.json").read_text())
    assert trial["status"] == "infra-error"
    assert trial["reason"].endswith("setup line 2 `exit 7` exited 7 (it wrote nothing)")
    assert "preparing" in (trial_dir / "stdout.log").read_text()


def test_a_failing_setup_line_s_output_is_masked_before_it_is_cut(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reason keeps the last 300 characters of the line's output: cut first, a key that
    straddled the cut kept its end in the clear in trial.json."""
    from proctor.util import masking

    key = "sk-ant-api03-SETUPLEAK0123456789abcdef"
    monkeypatch.setattr(masking, "_SECRETS", set())
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    line = "cat k.txt; printf 'x%.0s' $(seq 290); exit 3"  # (setup lines are lent no key)
    make_case("s", config={"setup": [line]}, plan={"turns": []}, src={"k.txt": key})
    _result, out = run_cases(proctor, tmp_path)
    trial = (single_run_dir(out) / "trials/s/scripted/default/1/trial.json").read_text()
    assert "exited 3" in trial and "xxxx" in trial
    assert key[-10:] not in trial


def test_layering_top_config_case_and_cli(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case(
        "layered",
        config={"repeats": 2, "setup": ["echo case >> order.txt"], "env": {"WHO": "case"}},
        plan={"turns": [{"shell": "echo $WHO $BASE > who.txt"}]},
    )
    top = tmp_path / "proctor.json"
    top.write_text(
        json.dumps(
            {
                "repeats": 5,
                "setup": ["echo top >> order.txt"],
                "env": {"WHO": "top", "BASE": "b"},
                "gate": {"minPassRate": 0.5},
            }
        )
    )
    result, out = run_cases(
        proctor, tmp_path, "--config", str(top), "--keep-workspace", "--repeats", "1"
    )
    assert result.code == 0
    run_dir = single_run_dir(out)
    ws = run_dir / "trials/layered/scripted/default/1/workspace"
    assert (ws / "order.txt").read_text() == "top\ncase\n"
    assert (ws / "who.txt").read_text() == "case b\n"
    resolved = json.loads((run_dir / "resolved.json").read_text())
    gate = {k: v for k, v in resolved["gate"].items() if v is not None}
    assert resolved["cases"][0]["repeats"] == 1 and gate == {"minPassRate": 0.5}
    assert len(resolved["matrix"]) == 1


def test_filters_by_case_glob_and_tag(proctor: Run, make_case: MakeCase, tmp_path: Path) -> None:
    make_case("alpha-1", config={"tags": ["x"]}, plan={"turns": []})
    make_case("alpha-2", config={"tags": ["y"]}, plan={"turns": []})
    make_case("beta", config={"tags": ["x"]}, plan={"turns": []})
    result, _out = run_cases(proctor, tmp_path, "--case", "alpha-*", "--tag", "x", "--json")
    assert [g["case"] for g in result.json()["groups"]] == ["alpha-1"]


def test_agent_environment_is_filtered(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-planted-secret")
    monkeypatch.setenv("PROCTOR_SOMETHING", "x")
    make_case("env", plan={"turns": [{"shell": "env > env.txt"}]})
    _result, out = run_cases(proctor, tmp_path, "--keep-workspace")
    env = (single_run_dir(out) / "trials/env/scripted/default/1/workspace/env.txt").read_text()
    assert "sk-ant-planted-secret" not in env and "PROCTOR_SOMETHING" not in env
    assert "HOME=" in env


def test_dry_run_runs_nothing(proctor: Run, make_case: MakeCase, tmp_path: Path) -> None:
    make_case("a", config={"repeats": 3}, plan={"turns": []})
    result, out = run_cases(proctor, tmp_path, "--dry-run")
    assert result.code == 0
    assert "3 trials in 1 case; nothing was run." in result.out
    assert '"matrix"' in result.out and '"concurrency": 2' in result.out
    assert not out.exists()
    # Refused as the run would be: results inside a case's fixture.
    folder = make_case("b", plan={"turns": []})
    (folder / "src").mkdir()
    inside = folder / "src" / "results"
    refused = proctor("run", "--source", str(tmp_path / "cases"), "--out", str(inside), "--dry-run")
    assert refused.code == 2 and "inside the fixture" in refused.err, refused.err
    assert not inside.exists()
    told = proctor("run", "--source", str(tmp_path / "cases"), "--dry-run", "--json")
    assert told.code == 0 and "--json applies to a run" in told.err


def test_a_dry_run_shows_the_concurrency_a_ray_cluster_sizes_as_null(
    make_case: MakeCase, tmp_path: Path
) -> None:
    from proctor.models.config import CliOverrides
    from proctor.plan.render import render_dry_run
    from proctor.plan.resolve import load_run_plan
    from proctor.session.request import RunRequest
    from proctor.session.start import cluster_sized

    make_case("a", plan={"turns": []})
    plan = load_run_plan(tmp_path / "cases", None, CliOverrides(), tmp_path)
    ray = RunRequest(source=tmp_path / "cases", executor="ray")
    assert cluster_sized(plan, ray) and not cluster_sized(plan, RunRequest(source=tmp_path))
    shown = render_dry_run(plan, cluster_sized=cluster_sized(plan, ray))
    assert '"concurrency": null' in shown


def test_turn_end_question_is_answered_and_the_session_goes_on(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case(
        "follow-up",
        config={"evaluators": [{"use": "file-exists", "must": ["tests.py"]}]},
        plan={
            "turns": [
                {"say": "I fixed the bug. Should I also add tests?"},
                {"endTurn": True},
                {"write": {"path": "tests.py", "content": "# tests\n"}},
                {"say": "Added tests."},
            ]
        },
        qna="```rules\n(?i)add tests => Yes, please add them.\n```\n",
    )
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 0, result.out
    trial = load_trial(single_run_dir(out), "follow-up")
    timings = trial["timings"]
    assert (timings["turnsTotal"], timings["questionTurns"], timings["interruptions"]) == (2, 1, 0)
    q = json.loads(
        (single_run_dir(out) / "trials/follow-up/scripted/default/1/questions.jsonl").read_text()
    )
    assert (q["where"], q["answer"], q["policy"]) == ("turn-end", "Yes, please add them.", "rule")


def test_a_question_past_the_follow_up_limit_is_a_warning(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    asks = [[{"say": f"Should I add {what}?"}, {"endTurn": True}] for what in "abcd"]
    make_case(
        "asks-on",
        plan={"turns": [step for pair in asks for step in pair][:-1]},
        qna="```rules\n(?i)should i => No\n```\n",
    )
    _result, out = run_cases(proctor, tmp_path)
    trial = load_trial(single_run_dir(out), "asks-on")
    assert (trial["questions"], trial["timings"]["questionTurns"]) == (3, 3)
    assert trial["warnings"] == [
        "the agent ended its turn with a question after 3 answered ones to one message, the "
        "most proctor answers; left unanswered: Should I add d?"
    ]


def test_turn_end_question_without_a_rule_aborts(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("stuck", plan={"turns": [{"say": "Which database should I use?"}]})
    _result, out = run_cases(proctor, tmp_path)
    trial = load_trial(single_run_dir(out), "stuck")
    assert trial["status"] == "failed"
    assert trial["reason"] == "unanswered question: Which database should I use?"


def test_a_statement_ending_the_turn_is_not_a_question(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("done", plan={"turns": [{"say": "All tests pass. Done."}]})
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 0
    assert load_trial(single_run_dir(out), "done")["timings"]["turnsTotal"] == 1


def test_a_timeout_or_unanswered_question_never_passes_a_min_score_gate(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("slow", config={"timeoutSec": 1}, plan={"turns": [{"shell": "sleep 20"}]})
    make_case("asks", plan={"turns": [{"ask": "Shall I?", "options": ["Yes", "No"]}]})
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"gate": {"minScore": 90}, "passThreshold": 60}))
    result, out = run_cases(proctor, tmp_path, "--config", str(config))
    assert result.code == 1, result.out + result.err
    run_dir = single_run_dir(out)
    for case in ("slow", "asks"):
        trial = load_trial(run_dir, case)
        assert trial["passed"] is False and trial["score"] == 59, trial


def test_cost_is_unknown_without_a_price_table(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("a", plan={"model": "claude-x", "turns": [{"say": "hi"}]})
    make_case("free", plan={"turns": [{"say": "hi"}]})
    _, out = run_cases(proctor, tmp_path)
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
    _, out = run_cases(proctor, tmp_path)
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
    result, out = run_cases(proctor, tmp_path, "--config", str(config))
    trial = load_trial(single_run_dir(out), "ask")
    assert trial["status"] == "infra-error", trial["reason"]
    assert trial["reason"].startswith("answering model scripted/workhorse failed")
    assert result.code == 2  # every trial ended in infra-error
    # What the agent did until it asked is kept: its transcript, tokens and question.
    folder = single_run_dir(out) / "trials/ask/scripted/default/1"
    assert trial["usage"] and trial["transcript"]["events"] > 0, trial
    assert trial["harnessCalls"] and not trial["harnessCalls"][0]["ok"]
    assert (folder / "trajectory.jsonl").is_file()


def test_agent_model_from_the_profile_and_the_command_line_reach_the_agent(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("a", plan={"turns": [{"say": "hi"}]})
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"codingagents": {"scripted": {"agentModel": "from-profile"}}}))
    _, out = run_cases(proctor, tmp_path, "--config", str(config))
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


def test_an_external_program_in_the_case_folder_runs_with_a_relative_source(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = make_case(
        "scored",
        config={"evaluators": [{"use": "external", "command": "score.sh", "scoreMetric": "s"}]},
        plan={"turns": [{"say": "hi"}]},
    )
    script = case / "score.sh"
    script.write_text('#!/bin/sh\necho \'{"values": [{"name": "s", "value": 100}]}\'\n')
    script.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    result = proctor("run", "--source", "cases", "--out", "out")
    assert result.code == 0, result.out + result.err
    assert _statuses(tmp_path / "out") == {"scored": {"passed": 1}}


def test_a_zip_fixture_is_extracted_once_and_each_trial_diffs_against_it(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    import zipfile

    plan = {
        "turns": [
            {"edit": {"path": "app.py", "old": "return 1", "new": "return 2"}},
            {"shell": "rm notes.txt"},
            {"say": "Done."},
        ]
    }
    evaluators = [{"use": "file-exists", "must": ["app.py"]}]
    config = {"timeoutSec": 30, "repeats": 3, "evaluators": evaluators}
    case = make_case("zipped", config=config, plan=plan)
    with zipfile.ZipFile(case / "src.zip", "w") as zf:
        zf.writestr("repo/app.py", "def f():\n    return 1\n")
        zf.writestr("repo/notes.txt", "keep me?\n")
        zf.writestr("repo/lib/util.py", "x = 1\n")
    result, out = run_cases(proctor, tmp_path, "--concurrency", "2")
    assert result.code in (0, 1), result.err
    run_dir = single_run_dir(out)
    for repeat in (1, 2, 3):
        folder = run_dir / "trials" / "zipped" / "scripted" / "default" / str(repeat)
        diff = (folder / "workspace.diff").read_text()
        assert "-    return 1\n+    return 2\n" in diff, diff
        assert "deleted file" in diff and "notes.txt" in diff
        assert "util.py" not in diff  # untouched: the template's copy is the "before"
        assert diff.count("diff --git") == 2


def test_the_scripted_edit_keeps_crlf_and_fails_a_file_that_is_not_text(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """As a real CLI's edit tool: a CRLF file stays CRLF (only the edited line changes), and a
    file that is not UTF-8 is a failed tool call, not a crashed agent."""
    plan = {
        "turns": [
            {"edit": {"path": "crlf.txt", "old": "two\nthree", "new": "TWO\nthree"}},
            {"edit": {"path": "blob.bin", "old": "a", "new": "b"}},
            {"say": "Done."},
        ]
    }
    case = make_case("edits", plan=plan)
    (case / "src").mkdir()
    (case / "src" / "crlf.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    (case / "src" / "blob.bin").write_bytes(b"a\xff\xfe")
    _, out = run_cases(proctor, tmp_path)
    folder = single_run_dir(out) / "trials" / "edits" / "scripted" / "default" / "1"
    trial = json.loads((folder / "trial.json").read_text())
    assert trial["status"] == "passed", trial["reason"]
    diff = (folder / "workspace.diff").read_bytes()
    assert b"@@ -1,3 +1,3 @@\n one\r\n-two\r\n+TWO\r\n three\r\n" in diff, diff
    results = [
        json.loads(line)
        for line in (folder / "trajectory.jsonl").read_text().splitlines()
        if '"tool_result"' in line
    ]
    assert [r.get("isError", False) for r in results] == [False, True]
    assert "not UTF-8" in str(results[1])


def test_a_trial_whose_record_cannot_be_written_leaves_no_scratch_and_no_traceback(
    make_case: MakeCase,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    """A results disk that fills up (or turns read-only) mid-run: the trial's scratch still
    goes, and its worker says so in one line."""
    import errno

    import proctor.execute.trial as trial_module

    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(temp))
    written = trial_module.write_record

    def full(path: Path, record: object, **kwargs: object) -> None:
        if path.name == "trial.json":
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        written(path, record, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(trial_module, "write_record", full)
    make_case("a", plan={"turns": [{"write": {"path": "x.txt", "content": "x\n"}}]})
    from proctor.cli.main import main

    with pytest.raises(SystemExit):
        main(["run", "--source", str(tmp_path / "cases"), "--out", str(tmp_path / "out")])
    err = capfd.readouterr().err  # the workers' own stderr too
    assert "was not recorded" in err and "No space left on device" in err, err
    assert "Traceback" not in err
    assert [p.name for p in temp.iterdir()] == [], list(temp.rglob("*"))[:5]


def test_a_run_whose_results_disk_fills_up_names_the_resume_that_finishes_it(
    make_case: MakeCase,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    """The orchestrator cannot write a trial's record either: exit 2, one sentence naming the
    file, and the `--resume` that finishes the run once there is room."""
    import errno

    import proctor.execute.executor as executor_module
    import proctor.execute.trial as trial_module

    def full(real: Any) -> Any:
        def write(path: Path, record: object, **kwargs: object) -> None:
            if path.name == "trial.json":
                raise OSError(errno.ENOSPC, "No space left on device", str(path))
            real(path, record, **kwargs)

        return write

    for module in (trial_module, executor_module):
        monkeypatch.setattr(module, "write_record", full(module.write_record))
    make_case("a", plan={"turns": [{"say": "hi"}]})
    from proctor.cli.main import main

    with pytest.raises(SystemExit) as stopped:
        main(["run", "--source", str(tmp_path / "cases"), "--out", str(tmp_path / "out")])
    assert stopped.value.code == 2
    err = capfd.readouterr().err
    (run_dir,) = (tmp_path / "out").glob("run-*")
    trial = run_dir / "trials/a/scripted/default/1/trial.json"
    assert f"{trial}: No space left on device; what was finished before it is kept" in err, err
    assert f"`proctor run --resume {run_dir}` finishes it once that is mended" in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize("foreign", [False, True])
def test_a_run_whose_disk_is_full_as_it_starts_says_it_did_not_start(
    make_case: MakeCase,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
    foreign: bool,
) -> None:
    """Its first records cannot be written: nothing was finished, so the sentence says the run
    did not start, and the folder that holds nothing but the journal's first line is removed;
    one holding a file proctor did not write is left as it is."""
    import errno

    import proctor.session.start as start

    def full(path: Path, data: object, **kwargs: object) -> None:
        if foreign:
            (path.parent / "notes.txt").write_text("mine")
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(start, "write_json", full)
    make_case("a", plan={"turns": [{"say": "hi"}]})
    from proctor.cli.main import main

    with pytest.raises(SystemExit) as stopped:
        main(["run", "--source", str(tmp_path / "cases"), "--out", str(tmp_path / "out")])
    assert stopped.value.code == 2
    err = capfd.readouterr().err
    left = list((tmp_path / "out").glob("run-*"))
    assert "config.json: No space left on device; the run did not start" in err, err
    assert "what was finished" not in err and "--resume" not in err, err
    if foreign:
        assert "removed" not in err and len(left) == 1, err
        assert (left[0] / "notes.txt").read_text() == "mine"
    else:
        assert err.rstrip().endswith("the run did not start; its folder was removed"), err
        assert left == []


def test_a_trial_s_temp_folder_is_its_own_unless_its_env_names_one(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    plan = {"turns": [{"shell": "echo $TMPDIR > tmpdir.txt"}, {"say": "done"}]}
    make_case("own", plan=plan)
    make_case("set", plan=plan, config={"env": {"TMPDIR": str(mine)}})
    _, out = run_cases(proctor, tmp_path, "--keep-workspace")
    run_dir = single_run_dir(out)
    said = {
        case: (run_dir / f"trials/{case}/scripted/default/1/workspace/tmpdir.txt").read_text()
        for case in ("own", "set")
    }
    assert said["own"].strip().endswith("/tmp") and "proctor-" in said["own"]
    assert said["set"].strip() == str(mine)
