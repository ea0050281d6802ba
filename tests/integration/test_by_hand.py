"""The by-hand example end to end: prepare, a session in the prepared workspace (the scripted
agent plays the person's agent, writing a real Claude Code transcript into its history),
record, report."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from proctor.agents.scripted.adapter import PROGRAM
from proctor.scripted.plan import steps_for_repeat
from tests.conftest import Run

CASE = Path(__file__).parents[2] / "examples" / "by-hand" / "cases" / "add-b"


def drive_by_hand(workspace: Path, prompt: str, config_dir: Path, steps: Path) -> None:
    """What a person does: start the agent in the workspace, paste the prompt, quit."""
    plan = json.loads((CASE / "plan.json").read_text())
    steps.write_text(json.dumps(steps_for_repeat(plan, 1)))
    subprocess.run(
        [sys.executable, "-I", "-S", str(PROGRAM), "--steps", str(steps)],
        input=f"{prompt}\r/exit\r".encode(),
        cwd=workspace,
        env={"CLAUDE_CONFIG_DIR": str(config_dir), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        check=True,
    )


def prepared_and_driven(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[dict[str, Any], Path]:
    """``proctor prepare`` of the case into ``results/``, then its session driven by hand:
    what prepare printed, and the results folder."""
    config_dir = tmp_path / "home" / ".claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config_dir))
    out = tmp_path / "results"
    prepared = proctor("prepare", str(CASE), "--agent", "claude-code", "--out", str(out))
    assert prepared.code == 0, prepared.err
    session = json.loads(prepared.out)
    workspace = Path(session["workingDirectory"])
    prompt = Path(session["promptFile"]).read_text().strip()
    drive_by_hand(workspace, prompt, config_dir, tmp_path / "steps.json")
    return session, out


def test_prepare_a_session_by_hand_record_it_and_report(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session, out = prepared_and_driven(proctor, tmp_path, monkeypatch)
    workspace = Path(session["workingDirectory"])
    assert workspace.is_absolute() and (workspace / "a.txt").read_text() == "a\n"
    prompt = Path(session["promptFile"]).read_text().strip()
    assert prompt.startswith("Add a file `b.txt`")
    assert session["resultsDir"] == str(out.resolve())
    assert any(
        step.startswith("proctor record") or "proctor record" in step
        for step in session["nextSteps"]
    )
    assert (workspace / "b.txt").read_text() == "b\n"

    recorded = proctor(
        "record",
        str(CASE),
        "--workspace",
        str(workspace),
        "--agent",
        "claude-code",
        "--out",
        str(out),
        "--keep-workspace",
    )
    assert recorded.code == 0, recorded.err
    (run_dir,) = out.glob("run-*")
    trial = json.loads((run_dir / "trials/add-b/claude-code/default/1/trial.json").read_text())
    assert trial["status"] == "passed" and "driven by a person" in trial["reason"]
    assert [e["use"] for e in trial["evaluators"]] == ["file-exists", "command"]
    assert trial["selfReport"] == {"added": ["b.txt"]} and trial["sessionId"]
    assert trial["process"]["steps"]["toolCalls"] == 1
    # One prompt typed: one turn, as a run of the case counts the message it sends.
    assert trial["timings"]["turnsTotal"] == 1
    assert "+b" in (run_dir / "trials/add-b/claude-code/default/1/workspace.diff").read_text()
    report = proctor("report", str(run_dir))
    assert report.code == 0 and "| add-b | claude-code | default | 1/1 |" in report.out
    # Titled for the command that made it, as an eval run's are.
    assert report.out.startswith(f"# proctor record {run_dir.name}\n"), report.out[:80]
    assert (run_dir / "suite.md").read_text().startswith(f"# proctor record {run_dir.name}\n")
    html = proctor("report", str(run_dir), "--reporter", "html").out
    assert f"<h1>proctor record {run_dir.name}</h1>" in html
    junit = proctor("report", str(run_dir), "--reporter", "junit").out
    assert f'<testsuites name="proctor record {run_dir.name}"' in junit
    # Its wall time is the session's, as record and report both say (record said n/a, report
    # the time the recording took).
    (said,) = [line for line in recorded.out.splitlines() if line.startswith("- Time:")]
    assert said.startswith(f"- Time: {trial['timings']['totalMs'] / 1000:.2f}s wall (the recorded")
    assert said in report.out.splitlines()
    totals = json.loads((run_dir / "suite.json").read_text())["totals"]
    assert (totals["wallMs"], totals["wallSession"]) == (trial["timings"]["totalMs"], True)

    # The kept copy of the workspace lets a repeat check re-evaluate the recorded session.
    assert trial["workspace"] == "workspace"
    kept = run_dir / "trials/add-b/claude-code/default/1/workspace"
    assert (kept / "b.txt").read_text() == "b\n"
    check = proctor(
        "run",
        "--source",
        str(CASE.parent),
        "--agent",
        "claude-code",
        "--out",
        str(tmp_path / "checks"),
        "--repeat-check",
        "2",
        "--recorded",
        str(run_dir),
        "--json",
    )
    assert check.code == 0, check.err
    found = check.json()
    assert (found["recordedTrials"], found["trialsCompared"], found["identical"]) == (1, 1, True)


def test_record_of_a_file_that_is_no_transcript_offers_no_agent_to_force(
    proctor: Run, tmp_path: Path
) -> None:
    """``record`` reads the transcript it is given as what it is: "pass --agent to force one"
    was said even to a command given --agent, which forces nothing there."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"hello": 1}\n')
    args = ("--workspace", str(workspace), "--transcript", str(bad), "--out", str(tmp_path / "o"))
    result = proctor("record", str(CASE), *args, "--agent", "claude-code")
    assert result.code == 2, result.err
    assert f"{bad}: not a Claude Code, Codex or Gemini CLI transcript" in result.err
    assert "--agent" not in result.err
    assert not (tmp_path / "o").exists()


def test_record_without_a_session_says_what_to_do(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "empty"))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    result = proctor(
        "record", str(CASE), "--workspace", str(workspace), "--out", str(tmp_path / "o")
    )
    assert result.code == 2 and "pass --transcript PATH" in result.err
    gone = proctor("record", str(CASE), "--workspace", str(tmp_path / "nope"))
    assert gone.code == 2 and "no such folder" in gone.err
    unknown = proctor(
        "prepare", "no-such-case", "--source", str(CASE.parent), "--out", str(tmp_path / "o")
    )
    assert unknown.code == 2 and "no such case" in unknown.err
    missing = proctor("prepare", str(tmp_path / "typo"), "--out", str(tmp_path / "o"))
    assert missing.code == 2 and f"{tmp_path / 'typo'}: no such case folder" in missing.err
    # A name looked up under a folder with an unrelated bad file: the sentence says why it
    # was read at all.
    (tmp_path / "other.json").write_text('{"tasks": [{}]}')
    looked = proctor("prepare", "typo", "--source", str(tmp_path), "--out", str(tmp_path / "o"))
    assert looked.code == 2 and "looking for case 'typo' under" in looked.err


def test_record_files_the_session_under_what_it_was_prepared_for(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session prepared for one condition or agent, recorded under another, would count in
    the wrong side of an A/B: refused. Left out, they are the prepared ones."""
    session, out = prepared_and_driven(proctor, tmp_path, monkeypatch)
    workspace = Path(session["workingDirectory"])
    base = ["record", str(CASE), "--workspace", str(workspace), "--out", str(out)]
    wrong = proctor(*base, "--condition", "with-skill")
    assert wrong.code == 2
    assert "--condition with-skill: the session was prepared with --condition default" in (
        wrong.err
    )
    other = proctor(*base, "--agent", "codex")
    assert other.code == 2 and "prepared with --agent claude-code" in other.err
    assert not list(out.glob("run-*")), "nothing recorded"
    (tmp_path / "other-case").mkdir()
    shutil.copytree(CASE, tmp_path / "other-case" / "add-c")
    renamed = proctor("record", str(tmp_path / "other-case" / "add-c"), *base[2:])
    assert renamed.code == 2 and "prepared for case add-b" in renamed.err
    recorded = proctor(*base)  # condition and agent as prepared
    assert recorded.code == 0, recorded.err
    assert [p.name for p in out.glob("run-*/trials/add-b/*/*")] == ["default"]
    assert [p.name for p in out.glob("run-*/trials/add-b/*")] == ["claude-code"]
    # The same session recorded again (its first run folder moved away, which record takes
    # for removed), or its run copied without run.json: pooled, it would count twice (a
    # recorded trial has no times to tell it by; its session id does).
    (recorded_first,) = out.glob("run-*")
    first = tmp_path / "moved" / recorded_first.name
    first.parent.mkdir()
    recorded_first.rename(first)
    again = proctor(*base, "--out", str(tmp_path / "again"))
    assert again.code == 0, again.err
    (second,) = (tmp_path / "again").glob("run-*")
    twice = proctor("report", str(first), str(second))
    assert twice.code == 2 and "recorded in both" in twice.err, twice.err
    copy = tmp_path / "copy"
    shutil.copytree(first, copy)
    (copy / "run.json").unlink()
    assert proctor("report", str(first), str(copy)).code == 2


def test_a_recorded_session_is_a_trial_of_the_suite_that_holds_its_case(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The findings of a session recorded from its case folder (as the example does, without
    --source) are the suite's, as a run of the case names them: the session was filed under
    the folder proctor ran in (--source's default), a suite of its own, whose findings no run
    of the suite resolves."""
    suite = tmp_path / "suites" / "api"
    shutil.copytree(CASE, suite / "add-b")
    config = json.loads((suite / "add-b" / "config.json").read_text())
    config["evaluators"].append({"use": "command", "run": "false", "label": "never"})
    (suite / "add-b" / "config.json").write_text(json.dumps(config))
    monkeypatch.chdir(tmp_path)
    config_dir = tmp_path / "home" / ".claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config_dir))
    out = Path("results")
    prepared = proctor("prepare", "suites/api/add-b", "--agent", "claude-code", "--out", str(out))
    assert prepared.code == 0, prepared.err
    session = json.loads(prepared.out)
    workspace = Path(session["workingDirectory"])
    prompt = Path(session["promptFile"]).read_text().strip()
    drive_by_hand(workspace, prompt, config_dir, tmp_path / "steps.json")
    recorded = proctor(
        "record", "suites/api/add-b", "--workspace", str(workspace), "--out", "results"
    )
    assert recorded.code == 0, recorded.err
    (run_dir,) = out.glob("run-*")
    assert json.loads((run_dir / "run.json").read_text())["suite"] == "suites/api"
    # The recording updates the ledger as a run does, and its reports say what it did.
    assert "proctor: findings: 1 new" in caplog.text
    held = json.loads((out / "findings.json").read_text())
    assert held["runs"] == [run_dir.name]
    said = json.loads((run_dir / "suite.json").read_text())["findings"]
    assert [(f["event"], f["check"]) for f in said] == [("new", "never")]
    assert "## Findings" in (run_dir / "suite.md").read_text()
    listed = proctor("findings", "results", "--json")
    assert listed.code == 0, listed.err
    ledger = listed.json()
    assert [(f["suite"], f["check"]) for f in ledger["findings"]] == [("suites/api", "never")]
    assert ledger["runSuites"] == {run_dir.name: "suites/api"}


LEAVES_A_FILE = {"use": "command", "run": "echo line >> log.txt; test $(wc -l < log.txt) -eq 1"}
READS_THE_TRAJECTORY = """#!/usr/bin/env python3
import json, sys
paths = json.load(sys.stdin)
with open(paths["trajectory"]) as fh:
    print(json.dumps({"values": [{"name": "read", "value": 100 if fh.read() else 0}]}))
"""


def test_record_keeps_the_workspace_as_the_session_left_it_and_takes_a_relative_out(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kept workspace is what was scored (an evaluator that leaves a file behind is
    re-evaluated on the session's workspace, not on its own leftovers), and a relative --out
    (as the by-hand example gives it) reaches an external evaluator as a full path."""
    case = tmp_path / "cases" / "add-b"
    shutil.copytree(CASE, case)
    config = json.loads((case / "config.json").read_text())
    config["evaluators"] += [
        LEAVES_A_FILE,
        {"use": "external", "command": "reads.py", "scoreMetric": "read"},
    ]
    (case / "config.json").write_text(json.dumps(config))
    (case / "reads.py").write_text(READS_THE_TRAJECTORY)
    (case / "reads.py").chmod(0o755)
    config_dir = tmp_path / "home" / ".claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config_dir))
    monkeypatch.chdir(tmp_path)
    prepared = proctor("prepare", str(case), "--agent", "claude-code", "--out", "results")
    assert prepared.code == 0, prepared.err
    session = json.loads(prepared.out)
    workspace = Path(session["workingDirectory"])
    prompt = Path(session["promptFile"]).read_text().strip()
    drive_by_hand(workspace, prompt, config_dir, tmp_path / "steps.json")
    recorded = proctor(
        "record", str(case), "--workspace", str(workspace), "--agent", "claude-code",
        "--out", "results", "--keep-workspace",
    )  # fmt: skip
    assert recorded.code == 0, recorded.err
    (run_dir,) = (tmp_path / "results").glob("run-*")
    trial = run_dir / "trials/add-b/claude-code/default/1"
    assert json.loads((trial / "trial.json").read_text())["status"] == "passed"
    assert not (trial / "workspace" / "log.txt").exists()  # as the session left it
    check = proctor(
        "run", "--source", str(case.parent), "--agent", "claude-code", "--out", "checks",
        "--repeat-check", "2", "--recorded", str(run_dir), "--json",
    )  # fmt: skip
    assert check.code == 0, check.err
    assert check.json()["identical"]


def test_a_recording_names_the_proctor_recording_it_until_it_finishes(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While its evaluators run, a recording is running, never a run that was killed."""
    from proctor.cli.findings import _unfinished
    from proctor.models.findings import FindingsLedger
    from proctor.session import manual
    from proctor.session.journal import read

    session, out = prepared_and_driven(proctor, tmp_path, monkeypatch)
    workspace = Path(session["workingDirectory"])
    seen: list[list[str]] = []
    write = manual.write_record

    def watched(path: Path, record: object) -> None:
        write(path, record)  # type: ignore[arg-type]
        if path.name == "run.json" and not seen:
            seen.append(_unfinished(path.parent.parent, FindingsLedger()))

    monkeypatch.setattr(manual, "write_record", watched)
    recorded = proctor("record", str(CASE), "--workspace", str(workspace), "--out", str(out))
    assert recorded.code == 0, recorded.err
    (run_dir,) = out.glob("run-*")
    assert seen == [[f"{run_dir.name} is still running: its checks count when it finishes"]]
    assert [e.event for e in read(run_dir / "journal.jsonl")] == ["run-started", "run-finished"]


def test_record_masks_every_key_of_the_environment_not_only_its_agent_s(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Claude Code session whose workspace holds the person's OpenAI key: masked in every
    file of the recording, as in a run (only the recorded agent's own keys were)."""
    from proctor.util import masking

    monkeypatch.setattr(masking, "_SECRETS", set())
    key = "sk-proj-RECORDEDLEAK0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    session, out = prepared_and_driven(proctor, tmp_path, monkeypatch)
    workspace = Path(session["workingDirectory"])
    (workspace / "notes.txt").write_text(f"OPENAI_API_KEY={key}\n")
    recorded = proctor(
        "record", str(CASE), "--workspace", str(workspace), "--out", str(out), "--keep-workspace"
    )
    assert recorded.code == 0, recorded.err
    (run_dir,) = out.glob("run-*")
    files = [p for p in run_dir.rglob("*") if p.is_file()]
    assert any("notes.txt" in p.read_text(errors="replace") for p in files)  # it was recorded
    assert not [p for p in files if key.encode() in p.read_bytes()]


FIXTURES = Path(__file__).parents[1] / "fixtures" / "transcripts"
CODEX_ROLLOUT = FIXTURES / "codex" / "rollout-2026-11-29T10-00-00-019ad3f0-5c1e-7a02-9c4b-3e1f00000001.jsonl"  # fmt: skip
CLAUDE_SESSION = FIXTURES / "claude" / "7f3c2a10-0000-4000-8000-000000000001.jsonl"


def test_configure_mcp_hands_the_server_its_credentials_and_record_masks_them(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--configure-mcp`` writes the MCP server's token as it is (the person's agent starts
    the server with it); ``record`` masks it, and a key the profile forwards, in every file
    it keeps."""
    from proctor.util import masking

    monkeypatch.setattr(masking, "_SECRETS", set())
    case = tmp_path / "add-b"
    shutil.copytree(CASE, case)
    config = json.loads((case / "config.json").read_text())
    server = {"name": "svc", "command": "svc-server", "env": {"SVC_TOKEN": "mcp-planted-token-1"}}
    config["provision"] = {"mcps": [server]}
    (case / "config.json").write_text(json.dumps(config))
    top = tmp_path / "proctor.json"
    top.write_text(json.dumps({"codingagents": {"claude-code": {"forwardEnv": ["MY_TOKEN"]}}}))
    monkeypatch.setenv("MY_TOKEN", "fwd-planted-token-2")
    out = tmp_path / "results"
    prepared = proctor(
        "prepare", str(case), "--configure-mcp", "--config", str(top), "--out", str(out)
    )
    assert prepared.code == 0, prepared.err
    workspace = Path(json.loads(prepared.out)["workingDirectory"])
    assert "mcp-planted-token-1" in (workspace / ".mcp.json").read_text()
    (workspace / "notes.txt").write_text("fwd-planted-token-2\n")
    (workspace / "b.txt").write_text("b\n")  # the session did the task
    recorded = proctor(
        "record", str(case), "--workspace", str(workspace), "--out", str(out),
        "--keep-workspace", "--config", str(top), "--transcript", str(CLAUDE_SESSION),
    )  # fmt: skip
    assert recorded.code == 0, recorded.err
    (run_dir,) = out.glob("run-*")
    files = [p for p in run_dir.rglob("*") if p.is_file()]
    assert any(p.name == ".mcp.json" for p in files)  # it was kept
    for secret in (b"mcp-planted-token-1", b"fwd-planted-token-2"):
        assert not [p for p in files if secret in p.read_bytes()], secret


def test_a_prepared_session_keeps_no_credential_in_the_clear_but_where_the_agent_needs_it(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``prepare`` writes its session in the results directory. The MCP server's token and
    header were also in ``before/`` (the copy kept for the diff), the configuration was
    readable by anyone, and what the person's session left (a key written to a file) stayed
    in the clear after ``record``. Now only the workspace's configuration holds them, for its
    owner alone, and ``record`` masks the whole prepared session once it has recorded it."""
    from proctor.util import masking

    monkeypatch.setattr(masking, "_SECRETS", set())
    case = tmp_path / "add-b"
    shutil.copytree(CASE, case)
    config = json.loads((case / "config.json").read_text())
    stdio = {"name": "svc", "command": "svc-server", "env": {"SVC_TOKEN": "mcp-planted-token-1"}}
    bearer = {"Authorization": "Bearer mcp-planted-bearer-3"}
    remote = {"name": "web", "url": "http://127.0.0.1:9/mcp", "headers": bearer}
    config["provision"] = {"mcps": [stdio, remote]}
    (case / "config.json").write_text(json.dumps(config))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-planted-key-4")
    out = tmp_path / "results"
    prepared = proctor("prepare", str(case), "--configure-mcp", "--out", str(out))
    assert prepared.code == 0, prepared.err
    workspace = Path(json.loads(prepared.out)["workingDirectory"])
    secrets = (b"mcp-planted-token-1", b"mcp-planted-bearer-3", b"sk-ant-planted-key-4")
    needed = [workspace / ".mcp.json", workspace / ".gemini" / "settings.json"]
    for path in needed:
        assert b"mcp-planted-token-1" in path.read_bytes()  # the person's agent starts it
        assert path.stat().st_mode & 0o777 == 0o600
    assert not (workspace.parent / "setup-home").exists()

    def holding() -> list[Path]:
        files = [p for p in out.rglob("*") if p.is_file()]
        return [p for p in files if any(s in p.read_bytes() for s in secrets)]

    assert sorted(holding()) == sorted(needed)
    (workspace / "notes.txt").write_text("the key: sk-ant-planted-key-4\n")  # the session's
    (workspace / "b.txt").write_text("b\n")
    recorded = proctor(
        "record", str(case), "--workspace", str(workspace), "--out", str(out),
        "--transcript", str(CLAUDE_SESSION),
    )  # fmt: skip
    assert recorded.code == 0, recorded.err
    assert holding() == []
    (run_dir,) = out.glob("run-*")
    diff = next(run_dir.rglob("workspace.diff")).read_text()
    assert "+b" in diff and ".mcp.json" not in diff  # masked on both sides: unchanged


def test_record_refuses_a_transcript_of_another_cli_than_its_agent(
    proctor: Run, tmp_path: Path
) -> None:
    """A session prepared for Claude Code given a Codex rollout was recorded as claude-code's,
    with Codex's tokens and steps: it counted on the wrong side of an A/B. Refused, naming
    both, before any run folder is made."""
    out = tmp_path / "results"
    prepared = proctor("prepare", str(CASE), "--agent", "claude-code", "--out", str(out))
    assert prepared.code == 0, prepared.err
    workspace = json.loads(prepared.out)["workingDirectory"]
    base = ("record", str(CASE), "--workspace", workspace, "--out", str(out))
    wrong = proctor(*base, "--transcript", str(CODEX_ROLLOUT))
    assert wrong.code == 2, wrong.err
    assert f"--transcript {CODEX_ROLLOUT}: a session of Codex" in wrong.err
    assert "recorded as claude-code's (Claude Code)" in wrong.err
    free = tmp_path / "ws"
    free.mkdir()
    other = ("record", str(CASE), "--workspace", str(free), "--out", str(out))
    gemini = proctor(*other, "--agent", "gemini-cli", "--transcript", str(CLAUDE_SESSION))
    assert gemini.code == 2 and "a session of Claude Code" in gemini.err, gemini.err
    assert not list(out.glob("run-*")), "nothing recorded"
    # A folder given as the transcript gives the agent's own session in it, not the newest
    # session of any CLI there.
    right = proctor(*other, "--agent", "codex", "--transcript", str(FIXTURES / "codex"))
    assert right.code == 1, right.err  # b.txt is missing: the case fails
    (trial,) = out.glob("run-*/trials/add-b/codex/default/1/trial.json")
    assert json.loads(trial.read_text())["transcript"]["format"] == "codex"


def test_record_refuses_a_bad_result_json_before_making_a_run_folder(
    proctor: Run, tmp_path: Path
) -> None:
    """A --result-json that is no JSON object was refused after the run folder was written and
    the evaluators ran: the folder left without its trial read as an interrupted run (exit 130,
    "--resume finishes it")."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    out = tmp_path / "results"
    args = ("--workspace", str(workspace), "--transcript", str(CLAUDE_SESSION), "--out", str(out))
    for bad in ("[1]", "{not json"):
        result = proctor("record", str(CASE), *args, "--result-json", bad)
        assert result.code == 2 and "--result-json" in result.err, result.err
    missing = proctor("record", str(CASE), *args, "--result-json", "result.json")
    assert "--result-json result.json: no such file, nor a JSON object" in missing.err
    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    named = proctor("record", str(CASE), *args, "--result-json", str(bad))
    assert named.code == 2 and f"--result-json: {bad}: not a JSON object" in named.err
    assert not out.exists() or not list(out.glob("run-*")), "no run folder"


CODEX_SPAWN = FIXTURES / "codex" / "threads" / "spawn"
CODEX_PARENT = CODEX_SPAWN / "rollout-2026-12-02T18-46-40-01a23814-8c07-7ed2-a026-1df397406950.jsonl"  # fmt: skip
CLAUDE_SUBAGENT = CLAUDE_SESSION.with_suffix("") / "subagents" / "agent-a1b2c3.jsonl"
GEMINI_CHATS = FIXTURES / "gemini-subagent" / "tmp" / "workspace" / "chats"
GEMINI_CHAT = GEMINI_CHATS / "session-2026-12-02T19-14-37fa6668.jsonl"


@pytest.mark.parametrize(
    ("agent", "given", "files"),
    [
        ("claude-code", CLAUDE_SESSION, [CLAUDE_SESSION, CLAUDE_SUBAGENT]),
        ("codex", CODEX_PARENT, sorted(CODEX_SPAWN.glob("rollout-*.jsonl"))),
        ("gemini-cli", GEMINI_CHAT, sorted(GEMINI_CHATS.rglob("*.jsonl"))),
    ],
    ids=["claude-code-subagents", "codex-spawned-thread", "gemini-cli-subagent-chat"],
)
def test_record_keeps_every_file_of_a_session_with_subagents_as_a_run_does(
    proctor: Run, tmp_path: Path, agent: str, given: Path, files: list[Path]
) -> None:
    """A recorded trial kept the main transcript alone: its subagents' files, parsed into its
    trajectory, were not in its folder, where a trial proctor ran keeps every file of the
    session in ``transcript/``. Copies: the user's files stay as they were."""
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files}
    workspace = tmp_path / "ws"
    workspace.mkdir()
    out = tmp_path / "results"
    args = ("--workspace", str(workspace), "--transcript", str(given), "--out", str(out))
    result = proctor("record", str(CASE), "--agent", agent, *args)
    assert result.code == 1, result.err  # b.txt is missing: the case fails
    (trial,) = out.glob(f"run-*/trials/add-b/{agent}/default/1")
    assert (trial / "raw-transcript.jsonl").read_bytes() == given.read_bytes()
    # Each file where the CLI laid it out under the session's file's folder (a Gemini CLI
    # subagent's chat names its session by that folder alone), else by its name.
    kept = sorted(p for p in (trial / "transcript").rglob("*") if p.is_file())
    laid = {
        p: p.relative_to(given.parent) if p.is_relative_to(given.parent) else p.name for p in files
    }
    assert kept == sorted(trial / "transcript" / rel for rel in laid.values())
    assert all((trial / "transcript" / laid[p]).read_bytes() == p.read_bytes() for p in files)
    # `proctor history` reads the kept files as the trial read them: one session, its
    # subagents' steps and tokens with it.
    history = proctor("history", str(trial / "transcript"), "--json", "--no-cache")
    report = json.loads(history.out)
    assert report["unavailable"] == [], report["unavailable"]
    (session,) = report["sessions"]
    measured = json.loads((trial / "trial.json").read_text())
    assert session["steps"] == measured["process"]["steps"]
    assert session["usage"] == measured["usage"]
    events = [json.loads(line) for line in (trial / "trajectory.jsonl").read_text().splitlines()]
    assert any(e.get("sidechain") for e in events)  # the subagents' events, parsed as before
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files} == before


def test_a_recording_leaves_a_ledger_that_does_not_read_as_it_is(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """As a run does: one warning, the file untouched, the recording's exit code its own, and
    its HTML report written once the ledger was tried."""
    session, out = prepared_and_driven(proctor, tmp_path, monkeypatch)
    (out / "findings.json").write_text("{}")
    recorded = proctor(
        "record", str(CASE), "--workspace", session["workingDirectory"],
        "--out", str(out), "--reporter", "html",
    )  # fmt: skip
    assert recorded.code == 0, recorded.err
    assert "findings ledger not updated" in caplog.text
    assert "field 'schemaVersion' is required but missing" in caplog.text
    assert (out / "findings.json").read_text() == "{}"
    (run_dir,) = out.glob("run-*")
    assert json.loads((run_dir / "suite.json").read_text())["findings"] is None
    assert (run_dir / "report.html").is_file()


def test_prepare_names_the_mcp_servers_left_to_add_in_words(proctor: Run, tmp_path: Path) -> None:
    """Without ``--configure-mcp`` the next steps ask the person to add the case's MCP
    servers: 'the MCP server svc' for one, 'the MCP servers svc, web' for two."""
    case = tmp_path / "add-b"
    shutil.copytree(CASE, case)
    config = json.loads((case / "config.json").read_text())
    stdio = {"name": "svc", "command": "svc-server"}
    remote = {"name": "web", "url": "http://127.0.0.1:9/mcp"}
    for servers, said in (
        ([stdio], "Add the MCP server svc to your agent"),
        ([stdio, remote], "Add the MCP servers svc, web to your agent"),
    ):
        (case / "config.json").write_text(json.dumps({**config, "provision": {"mcps": servers}}))
        out = tmp_path / f"results-{len(servers)}"
        prepared = proctor("prepare", str(case), "--out", str(out))
        assert prepared.code == 0, prepared.err
        steps = json.loads(prepared.out)["nextSteps"]
        assert any(step.startswith(said) for step in steps), steps


def test_configure_mcp_refuses_a_gemini_folder_linked_outside_the_workspace(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A setup line (or a fixture) that made ``.gemini`` a link to a folder elsewhere had
    ``--configure-mcp`` delete the ``settings.json`` there and write one holding the MCP
    server's token in its place; now prepare refuses, names the link and leaves no session."""
    from proctor.util import masking

    monkeypatch.setattr(masking, "_SECRETS", set())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "settings.json").write_text('{"mine": true}\n')
    case = tmp_path / "add-b"
    shutil.copytree(CASE, case)
    config = json.loads((case / "config.json").read_text())
    server = {"name": "svc", "command": "svc-server", "env": {"SVC_TOKEN": "mcp-planted-token-1"}}
    config["provision"] = {"mcps": [server]}
    config["setup"] = [f"ln -s {elsewhere} .gemini"]
    (case / "config.json").write_text(json.dumps(config))
    out = tmp_path / "results"
    prepared = proctor("prepare", str(case), "--configure-mcp", "--out", str(out))
    assert prepared.code == 2, prepared.out
    assert f"the workspace's .gemini is a link to {elsewhere}, outside it" in prepared.err
    assert (elsewhere / "settings.json").read_text() == '{"mine": true}\n'
    assert list((out / "prepared").iterdir()) == []


@pytest.mark.parametrize("linked", [".claude", ".agents/skills"])
def test_prepare_refuses_a_skills_folder_linked_outside_the_workspace(
    proctor: Run, tmp_path: Path, linked: str
) -> None:
    """A setup line that made ``.claude`` (or ``.agents/skills``) a link to a folder elsewhere
    had prepare delete the skill folder of that name there and copy the case's skill in its
    place; now prepare refuses, names the link and leaves no session."""
    skill = tmp_path / "skill" / "tidy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("# tidy\n")
    elsewhere = tmp_path / "elsewhere"
    mine = elsewhere / "skills" / "tidy" if linked == ".claude" else elsewhere / "tidy"
    mine.mkdir(parents=True)
    (mine / "KEEP").write_text("mine\n")
    case = tmp_path / "add-b"
    shutil.copytree(CASE, case)
    config = json.loads((case / "config.json").read_text())
    config["provision"] = {"skills": [{"name": "tidy", "path": str(skill)}]}
    config["setup"] = [f"mkdir -p .agents && ln -s {elsewhere} {linked}"]
    (case / "config.json").write_text(json.dumps(config))
    out = tmp_path / "results"
    prepared = proctor("prepare", str(case), "--out", str(out))
    assert prepared.code == 2, prepared.out
    said = f"the workspace's {linked} is a link to {elsewhere}, outside it: the skill 'tidy'"
    assert said in prepared.err
    assert [p.name for p in mine.iterdir()] == ["KEEP"]
    assert list((out / "prepared").iterdir()) == []


def test_configure_mcp_refuses_a_folder_in_the_place_of_its_configuration(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A setup line that made ``.gemini/settings.json`` a folder stopped prepare with a
    traceback (IsADirectoryError); now it is one sentence, exit 2, and no session is left."""
    from proctor.util import masking

    monkeypatch.setattr(masking, "_SECRETS", set())
    case = tmp_path / "add-b"
    shutil.copytree(CASE, case)
    config = json.loads((case / "config.json").read_text())
    config["provision"] = {"mcps": [{"name": "svc", "command": "svc-server"}]}
    config["setup"] = ["mkdir -p .gemini/settings.json"]
    (case / "config.json").write_text(json.dumps(config))
    out = tmp_path / "results"
    prepared = proctor("prepare", str(case), "--configure-mcp", "--out", str(out))
    assert prepared.code == 2, prepared.out
    assert "the workspace's .gemini/settings.json is a folder" in prepared.err, prepared.err
    assert "Traceback" not in prepared.err
    assert list((out / "prepared").iterdir()) == []


def test_a_recorded_session_without_times_has_no_wall_time_anywhere(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A transcript that gives no times: the run's wall time is unknown in record's report,
    in ``proctor report``'s, read with another run, and in the viewer's index, never the time
    the recording took."""
    from proctor.view.records import run_facts
    from proctor.view.schema import RUN_COLUMNS, run_values

    session, out = prepared_and_driven(proctor, tmp_path, monkeypatch)
    workspace = Path(session["workingDirectory"])
    (found,) = (tmp_path / "home" / ".claude" / "projects").glob("*/*.jsonl")
    untimed = tmp_path / "untimed.jsonl"
    lines = [json.loads(line) for line in found.read_text().splitlines() if line.strip()]
    untimed.write_text("".join(json.dumps(r | {"timestamp": None}) + "\n" for r in lines))
    recorded = proctor(
        "record", str(CASE), "--workspace", str(workspace), "--out", str(out),
        "--transcript", str(untimed),
    )  # fmt: skip
    assert recorded.code == 0, recorded.err
    (run_dir,) = out.glob("run-*")
    unknown = "- Time: n/a wall (the recorded session's: its transcript gives no times);"
    assert unknown in recorded.out
    assert unknown in proctor("report", str(run_dir)).out
    facts = run_facts(run_dir)
    assert facts.wall == (None, False)
    totals = {"n": 1, "scored": 1, "passes": 1, "unpriced": 0, "cost": 0.0, "cut": 0}
    facets: dict[str, list[str]] = {"agent": [], "condition": [], "case_name": []}
    row = dict(zip(RUN_COLUMNS.split(", "), run_values(facts, "", totals, {}, facets), strict=True))
    assert row["wall_ms"] is None  # not the time from run.json's start to its end
    other = out / "copy"
    shutil.copytree(run_dir, other)
    manifest = json.loads((other / "run.json").read_text())
    (other / "run.json").write_text(json.dumps(manifest | {"runId": "run-copy"}))
    trial = other / "trials/add-b/claude-code/default/1/trial.json"
    (trial).write_text(json.dumps(json.loads(trial.read_text()) | {"sessionId": "s2"}))
    both = proctor("report", str(run_dir), str(other))
    assert both.code == 0, both.err
    assert "each recorded none: a recorded session whose transcript gives no times)" in both.out


def test_prepare_and_record_take_the_results_folder_a_run_takes(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --out, ``proctor.json``'s ``out``, as run and eval take it; they wrote to
    ./proctor-results whatever proctor.json said."""
    case = tmp_path / "cases" / "add-b"
    shutil.copytree(CASE, case)
    config_dir = tmp_path / "home" / ".claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config_dir))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "proctor.json").write_text(json.dumps({"out": "myres"}))
    prepared = proctor("prepare", str(case), "--agent", "claude-code")
    assert prepared.code == 0, prepared.err
    session = json.loads(prepared.out)
    assert session["resultsDir"] == str(tmp_path / "myres")
    workspace = Path(session["workingDirectory"])
    assert workspace.is_relative_to(tmp_path / "myres" / "prepared")
    drive_by_hand(workspace, Path(session["promptFile"]).read_text().strip(), config_dir,
                  tmp_path / "steps.json")  # fmt: skip
    recorded = proctor("record", str(case), "--workspace", str(workspace))
    assert recorded.code == 0, recorded.err
    assert len(list((tmp_path / "myres").glob("run-*"))) == 1
    assert not (tmp_path / "proctor-results").exists()


def test_prepare_for_the_scripted_agent_says_the_command_that_starts_it(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``prepare --agent scripted`` said "Start scripted there", but no ``scripted`` program
    exists: it says the command line that runs the scripted agent's program on the case's
    plan, and the session it writes, run as said, is the one ``record`` finds."""
    config_dir = tmp_path / "home" / ".claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config_dir))
    out = tmp_path / "results"
    prepared = proctor("prepare", str(CASE), "--agent", "scripted", "--out", str(out))
    assert prepared.code == 0, prepared.err
    session = prepared.json()
    workspace = Path(session["workingDirectory"])
    (start,) = [s for s in session["nextSteps"] if s.startswith("Start ")]
    assert "Start scripted there" not in start
    command = re.search(r"`([^`]+)`", start)
    assert command is not None, start
    assert session["promptFile"] in start and "/exit" in start
    prompt = Path(session["promptFile"]).read_text().strip()
    subprocess.run(
        shlex.split(command.group(1)),
        input=f"{prompt}\r/exit\r".encode(),
        cwd=workspace,
        env={"CLAUDE_CONFIG_DIR": str(config_dir), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        check=True,
    )
    assert (workspace / "b.txt").read_text() == "b\n"  # the case's plan, played
    argv = ("record", str(CASE), "--workspace", str(workspace), "--agent", "scripted")
    recorded = proctor(*argv, "--out", str(out))
    assert recorded.code == 0, recorded.err
    (trial,) = out.glob("run-*/trials/add-b/scripted/default/1/trial.json")
    assert json.loads(trial.read_text())["status"] == "passed"
