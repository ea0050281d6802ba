"""A run never writes into the user's HOME or the case folder, and leaves no process behind."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import (
    MakeCase,
    Run,
    load_trial,
    processes_with,
    run_cases,
    single_run_dir,
    write_case,
)


def tree_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(str(path.relative_to(root)).encode())
        if path.is_symlink():
            digest.update(os.readlink(path).encode())
        elif path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def test_home_and_case_folder_are_untouched(proctor: Any, tmp_path: Path, monkeypatch: Any) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text('{"mine": true}')
    (home / "notes.txt").write_text("personal")
    monkeypatch.setenv("HOME", str(home))
    cases = tmp_path / "cases"
    case = write_case(
        cases,
        "writer",
        plan={
            "turns": [
                {"shell": "echo hacked > ~/notes.txt; mkdir -p ~/.claude; echo x > ~/.claude/new"},
                {"write": {"path": "calc.py", "content": "changed\n"}},
                {"shell": 'python3 -c \'open("test_calc.py", "w").write("rewritten")\''},
            ]
        },
        src={"calc.py": "original\n", "test_calc.py": "tests\n"},
        config={"evaluators": [{"use": "command", "run": "echo ok > evaluated.txt; touch ~/eval"}]},
    )
    before_home, before_case = tree_hash(home), tree_hash(case)
    result = proctor(
        "run",
        "--source",
        str(cases),
        "--out",
        str(tmp_path / "out"),
        "--keep-workspace",
        "--repeats",
        "2",
    )
    assert result.code == 0, result.out + result.err
    assert tree_hash(home) == before_home
    assert tree_hash(case) == before_case
    ws = single_run_dir(tmp_path / "out") / "trials/writer/scripted/default/1/workspace"
    assert (ws / "calc.py").read_text() == "changed\n"


def test_timeout_kills_the_whole_process_group(proctor: Any, tmp_path: Path) -> None:
    marker = f"proctor-orphan-{uuid.uuid4().hex}"
    sleeper = f"python3 -c 'import time; time.sleep(300)' {marker}"
    write_case(
        tmp_path / "cases",
        "hang",
        config={"timeoutSec": 1.5},
        plan={"turns": [{"shell": f"{sleeper} & {sleeper} & sleep 300"}]},
    )
    result, _ = run_cases(proctor, tmp_path)
    assert result.code == 1
    assert load_trial(single_run_dir(tmp_path / "out"), "hang")["status"] == "timeout"
    deadline = time.monotonic() + 15
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_with(marker) == []


def test_control_the_orphan_probe_sees_a_live_process(tmp_path: Path) -> None:
    marker = f"proctor-orphan-{uuid.uuid4().hex}"
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", marker])
    try:
        time.sleep(0.2)
        assert processes_with(marker) == [proc.pid]
    finally:
        proc.kill()
        proc.wait()


def test_ctrl_c_writes_what_finished_and_exits_130(tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    write_case(cases, "a-fast", plan={"turns": [{"say": "quick"}]})
    write_case(cases, "b-slow", plan={"turns": [{"shell": "sleep 60"}]}, config={"timeoutSec": 90})
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "proctor",
            "run",
            "--source",
            str(cases),
            "--out",
            str(out),
            "--concurrency",
            "1",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        runs = list(out.glob("run-*/trials/b-slow/scripted/default/1"))
        if runs and list(out.glob("run-*/trials/a-fast/scripted/default/1/trial.json")):
            break
        time.sleep(0.05)
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err.decode()
    run_dir = single_run_dir(out)
    assert load_trial(run_dir, "a-fast")["status"] == "passed"
    slow = load_trial(run_dir, "b-slow")
    assert slow["status"] == "infra-error" and slow["reason"].startswith("interrupted")
    suite = json.loads((run_dir / "suite.json").read_text())
    assert suite["interrupted"] is True and suite["exitCode"] == 130


@pytest.mark.parametrize("detach", ["setsid", "setsid env -i", "nohup setsid env -i"])
def test_tools_in_their_own_session_are_killed_too(
    proctor: Any, tmp_path: Path, detach: str
) -> None:
    """Claude Code's Bash tool starts commands in sessions of their own; a daemon may also
    clear its environment (so no inherited marker finds it) and double-fork."""
    marker = f"proctor-setsid-{uuid.uuid4().hex}"
    python = sys.executable
    escapee = f"{detach} {python} -c 'import os, time; os.fork() or time.sleep(300)' {marker} &"
    write_case(
        tmp_path / "cases",
        "escape",
        config={"timeoutSec": 1.5},
        plan={"turns": [{"shell": f"{escapee} sleep 300"}]},
    )
    run_cases(proctor, tmp_path)
    trial = load_trial(single_run_dir(tmp_path / "out"), "escape")
    assert trial["status"] == "timeout", trial["reason"]  # the escapee did start
    deadline = time.monotonic() + 15
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_with(marker) == []


@pytest.mark.parametrize(
    "signals", [[signal.SIGTERM], [signal.SIGINT, signal.SIGINT, signal.SIGINT]]
)
def test_sigterm_and_repeated_ctrl_c_stop_cleanly(tmp_path: Path, signals: list[int]) -> None:
    cases = tmp_path / "cases"
    write_case(
        cases,
        "slow",
        plan={"turns": [{"shell": "sleep 60"}]},
        config={"timeoutSec": 90, "repeats": 2},
    )
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "proctor", "run", "--source", str(cases), "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 20
    while (
        time.monotonic() < deadline
        and len(list(out.glob("run-*/trials/slow/scripted/default/*"))) < 2
    ):
        time.sleep(0.05)
    time.sleep(0.5)
    for sig in signals:
        if sig == signal.SIGTERM:
            os.kill(proc.pid, sig)
        else:
            os.killpg(proc.pid, sig)
        time.sleep(0.02)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err.decode()
    assert b"Traceback" not in err
    run_dir = single_run_dir(out)
    suite = json.loads((run_dir / "suite.json").read_text())
    assert suite["interrupted"] is True
    assert len(list(run_dir.glob("trials/slow/scripted/default/*/trial.json"))) == 2


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
    _, out = run_cases(proctor, tmp_path, "--keep-workspace", "--config", str(config))
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


def test_a_credential_the_case_or_profile_env_sets_is_masked(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """A value ``env`` sets under a name that says it is a credential, and the password of a
    URL it sets, are masked in what the trial writes, as a forwarded key is; an ordinary
    setting stays as it is."""
    make_case(
        "env",
        plan={"turns": [{"shell": "env"}]},
        config={
            "env": {"CASE_GITHUB_TOKEN": "ghp-case-planted-1", "LEVEL": "level-kept-3"},
            "evaluators": [{"use": "command", "run": "env >&2; exit 1"}],
        },
    )
    config = tmp_path / "proctor.json"
    profile_env = {"SERVICE_PASSWORD": "pw-profile-planted-2", "DB": "postgres://a:pw-url-4@db/x"}
    config.write_text(json.dumps({"codingagents": {"scripted": {"env": profile_env}}}))
    _, out = run_cases(proctor, tmp_path, "--config", str(config))
    trial_dir = single_run_dir(out) / "trials/env/scripted/default/1"
    everything = "".join(p.read_text(errors="replace") for p in trial_dir.rglob("*") if p.is_file())
    for value in ("ghp-case-planted-1", "pw-profile-planted-2", "pw-url-4"):
        assert value not in everything, value
    assert "CASE_GITHUB_TOKEN=***" in everything
    assert "postgres://a:***@db/x" in everything
    assert "LEVEL=level-kept-3" in everything


@pytest.mark.parametrize(
    ("swap", "left"),
    [
        ("cd .. && mv workspace ws-old && ln -s {victim} workspace", "a link to"),
        ("cd .. && rm -rf workspace", "nothing"),
    ],
)
def test_an_agent_that_swaps_its_workspace_out_fails_and_nothing_outside_is_touched(
    proctor: Run, tmp_path: Path, swap: str, left: str
) -> None:
    """Evaluators, hidden tests and the diff never follow a workspace the agent replaced with a
    link: the workspace is read as empty, and the trial fails (the agent's doing, not an
    evaluator's error)."""
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "orig.txt").write_text("outside\n")
    folder = write_case(
        tmp_path / "cases",
        "swap",
        config={
            "evaluators": [
                {"use": "command", "run": "touch evaluator-was-here", "copyIn": ["hidden/"]},
                {"use": "file-exists", "must": ["orig.txt"]},
            ]
        },
        plan={"turns": [{"shell": swap.format(victim=victim)}, {"say": "done"}]},
        src={"orig.txt": "inside\n"},
    )
    (folder / "hidden").mkdir()
    (folder / "hidden" / "t.txt").write_text("hidden\n")
    result, _ = run_cases(proctor, tmp_path)
    trial = load_trial(single_run_dir(tmp_path / "out"), "swap")
    assert result.code == 1 and trial["status"] == "failed", trial["reason"]
    assert sorted(p.name for p in victim.iterdir()) == ["orig.txt"]  # untouched
    diff = next((tmp_path / "out").glob("run-*/trials/swap/*/*/1/workspace.diff")).read_text()
    assert diff.startswith(f"Workspace replaced: the agent left {left}")
    assert "deleted file" in diff


def test_a_key_of_the_environment_or_dotenv_no_trial_was_lent_is_masked_everywhere(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: Any
) -> None:
    """The scripted agent is lent no key; a key in the environment or ./.env that reaches a
    prompt, a transcript, a check's output or a reason is masked in every file and report."""
    env_key, dotenv_key = "sk-ant-api03-PLANTEDenvAAAA1111", "sk-proj-PLANTEDdotenvBBBB2222"
    monkeypatch.setenv("ANTHROPIC_API_KEY", env_key)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text(f"OPENAI_API_KEY={dotenv_key}\n")
    check = {"use": "command", "label": "leaks", "run": "cat out.txt; exit 1"}
    make_case(
        "leaky",
        prompt=f"Use {env_key} and {dotenv_key}.",
        config={"evaluators": [check]},
        plan={"turns": [{"shell": f"echo {env_key} {dotenv_key} > out.txt; cat out.txt"}]},
    )
    result, out = run_cases(proctor, tmp_path, "--keep-workspace")
    run_dir = single_run_dir(out)
    report = proctor("report", str(run_dir), "--reporter", "html,json,junit,markdown", "--write")
    written = [p for p in out.rglob("*") if p.is_file()]
    assert any(p.name == "report.html" for p in written)
    for key in (env_key, dotenv_key):
        for path in written:
            assert key not in path.read_text(errors="replace"), f"{key} in {path}"
        assert key not in result.out + result.err + report.out + report.err
    assert "***" in (run_dir / "trials/leaky/scripted/default/1/trajectory.jsonl").read_text()


def test_an_mcp_server_s_token_is_not_written_into_resolved_json_and_resume_still_matches(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    server = {
        "name": "tiny",
        "command": "python3",
        "args": ["server.py", "--api-key", "mcpPLANTEDarg0000", "--url=https://u:pw9@h/x"],
        "env": {"TINY_TOKEN": "mcpenvPLANTED3434"},
    }
    make_case("c", config={"provision": {"mcps": [server]}})
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 0, result.err
    run_dir = single_run_dir(out)
    text = (run_dir / "resolved.json").read_text()
    for secret in ("mcpPLANTEDarg0000", "mcpenvPLANTED3434", "pw9"):
        assert secret not in text
    (case,) = json.loads(text)["cases"]
    assert case["provision"]["mcps"][0]["args"] == [
        "server.py", "--api-key", "***", "--url=https://u:***@h/x",
    ]  # fmt: skip
    assert case["provision"]["mcps"][0]["env"] == {"TINY_TOKEN": "***"}
    resumed = proctor("run", "--resume", str(run_dir))  # the records still match the plan
    assert resumed.code == 0 and "1 kept" in resumed.err, resumed.err
    # The control: a changed token is a changed configuration.
    server["env"] = {"TINY_TOKEN": "another-token-5656"}
    make_case("c", config={"provision": {"mcps": [server]}})
    changed = proctor("run", "--resume", str(run_dir))
    assert changed.code == 2 and "changed since the run started" in changed.err


def test_an_mcp_server_s_credentials_are_masked_in_a_trial_of_an_agent_without_mcp(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """The servers' credentials were registered only where a CLI's configuration was written:
    a trial of the scripted agent (or one whose agent shows them otherwise) kept them in its
    transcript and terminal in the clear, while ``resolved.json`` masked them."""
    server = {
        "name": "tiny",
        "url": "http://127.0.0.1:9/mcp",
        "headers": {"Authorization": "Bearer mcpBEARERplanted77"},
    }
    token = "mcpBEARERplanted77"
    make_case(
        "c",
        config={"provision": {"mcps": [server]}},
        plan={"turns": [{"shell": f"echo {token}"}, {"say": f"The token: {token}"}]},
    )
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 0, result.err
    written = [p for p in out.rglob("*") if p.is_file()]
    assert [p for p in written if token in p.read_text(errors="replace")] == []
    assert token not in result.out + result.err


def test_a_resume_compares_the_servers_proctor_json_provisions_and_reads_older_records(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    def top(token: str) -> Path:
        config = tmp_path / "proctor.json"
        server = {"name": "tiny", "command": "srv", "env": {"TINY_TOKEN": token}}
        config.write_text(json.dumps({"provision": {"mcps": [server]}}))
        return config

    make_case("c")
    result, out = run_cases(proctor, tmp_path, "--config", str(top("first-token-1234")))
    assert result.code == 0, result.err
    run_dir = single_run_dir(out)
    resolved = json.loads((run_dir / "resolved.json").read_text())
    assert resolved["cases"][0]["provisionDigest"]
    top("other-token-5678")  # the same proctor.json, its server's token changed
    changed = proctor("run", "--resume", str(run_dir))
    assert changed.code == 2 and "provisionDigest" in changed.err, changed.err
    top("first-token-1234")
    same = proctor("run", "--resume", str(run_dir))
    assert same.code == 0, same.err
    # A run an older proctor recorded: the server's values whole, and no such digest.
    for case in resolved["cases"]:
        case["provision"]["mcps"][0]["env"] = {"TINY_TOKEN": "first-token-1234"}
        case.pop("provisionDigest")
    (run_dir / "resolved.json").write_text(json.dumps(resolved))
    older = proctor("run", "--resume", str(run_dir))
    assert older.code == 0, older.err


def test_config_json_keeps_no_value_of_the_configuration_s_credentials(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """config.json keeps the configuration as given, its environment values and add-on
    credentials as resolved.json keeps them: ***."""
    secrets = {
        "url": "URLpass777",
        "query": "QKEYsecret888",
        "header": "HDRsecretTOKEN999",
        "arg": "ARGtokSECRET111",
        "mcp env": "MCPENVsecret222",
        "profile env": "tok-PROFILEsecret12345",
        "env": "ENVpw-ABCDEF123",
        "condition env": "CONDsecret-4444",
    }
    top = {
        "provision": {
            "mcps": [
                {
                    "name": "docs",
                    "url": f"https://user:{secrets['url']}@mcp.example.com/x?api_key="
                    + secrets["query"],
                    "headers": {"Authorization": f"Bearer {secrets['header']}"},
                },
                {
                    "name": "local",
                    "command": "node",
                    "args": ["s.js", "--token", secrets["arg"]],
                    "env": {"GH_TOKEN": secrets["mcp env"]},
                },
            ]
        },
        "codingagents": {"scripted": {"env": {"ANTHROPIC_AUTH_TOKEN": secrets["profile env"]}}},
        "env": {"DB_PASSWORD": secrets["env"]},
        "conditions": {"default": {"env": {"COND": secrets["condition env"]}}},
    }
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps(top))
    make_case("c")
    result, out = run_cases(proctor, tmp_path, "--config", str(config))
    assert result.code == 0, result.err
    run_dir = single_run_dir(out)
    for name in ("config.json", "resolved.json"):
        text = (run_dir / name).read_text()
        for what, secret in secrets.items():
            assert secret not in text, f"the {what} in {name}"
    kept = json.loads((run_dir / "config.json").read_text())["config"]
    assert kept["env"] == {"DB_PASSWORD": "***"}  # the names stay, to show what was set
    assert kept["provision"]["mcps"][1]["args"] == ["s.js", "--token", "***"]
