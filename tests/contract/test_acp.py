"""ACP agents for real: the pinned Claude Code ACP adapter (``acp:claude``) and Gemini CLI's ACP
mode (``acp:gemini``) against the scripted model server on 127.0.0.1. A two-turn session whose
second turn works on what the first left, a permission request the policy answers and one it
leaves pending (answered by the next message), ``proctor run --agent acp:claude``, and no
connection anywhere but the scripted server (strace)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from proctor.agents.acp import AcpAgent, AcpSession
from proctor.agents.base import profile_for
from proctor.agents.protocol import Launch, LaunchContext
from proctor.discover.qna import parse_qna_rules
from proctor.drive.acp_driver import AcpDriver
from proctor.drive.policy import AnswerPolicy
from proctor.models.trajectory import Trajectory
from proctor.scripted.server import ScriptedModelServer
from proctor.workspace.environment import agent_environment
from tests.conftest import require_tool, single_run_dir, write_case
from tests.contract.conftest import tool_steps
from tests.contract.test_loopback import PORT, outside_connections

AGENTS = ["acp:claude", "acp:gemini"]
ALLOW_ALL = "^.* => Allow"
ALLOW_WRITES = "^(Write|write_file) => Allow"


def require_acp(agent: str) -> str:
    profile = profile_for(agent, {})
    problem = AcpAgent().preflight(profile)
    if problem is not None:
        pytest.skip(problem)
    version = AcpAgent().version(profile)
    assert version is not None
    return version


class Session:
    """One ACP agent on the scripted model: the driver, its launch, the server's request log."""

    def __init__(self, agent: str, plan: dict[str, Any], rules: str, tmp_path: Path) -> None:
        self.server = ScriptedModelServer(plan, log_path=tmp_path / "requests.jsonl")
        self.server.start()
        workspace, home = tmp_path / "ws", tmp_path / "home"
        workspace.mkdir()
        home.mkdir()
        self.launch: Launch[AcpSession] = AcpAgent().prepare(
            LaunchContext(
                workspace=workspace,
                home=home,
                scratch=tmp_path,
                env=agent_environment(os.environ, home=home),
                profile=profile_for(agent, {}),
                plan=plan,
                repeat=1,
                session_id="unused",
                mode="headless",
                model_base_url=self.server.base_url,
                trial_dir=tmp_path / "trial",
            )
        )
        text = f"```rules\n{rules}\n```\n"
        policy = AnswerPolicy(parse_qna_rules(text), text, "task")
        deadline = time.monotonic() + 120
        self.driver = AcpDriver(AcpAgent(), self.launch, policy, deadline, tmp_path / "err.log")

    def trajectory(self) -> Trajectory:
        return AcpAgent().parse(self.launch.state.log)

    def played_segments(self) -> list[int]:
        lines = (self.server_log).read_text().splitlines()
        played = [json.loads(x).get("played") for x in lines]
        return [p["segment"] for p in played if isinstance(p, dict) and "segment" in p]

    @property
    def server_log(self) -> Path:
        return self.launch.state.log.parents[1] / "requests.jsonl"

    def close(self) -> None:
        self.driver.close()
        self.server.stop()


@pytest.fixture
def sessions() -> Iterator[list[Session]]:
    made: list[Session] = []
    yield made
    for session in made:
        session.close()


TWO_TURNS: dict[str, Any] = {
    "turns": [
        {"write": {"path": "one.txt", "content": "41\n"}},
        {"say": "First turn done."},
        {"endTurn": True},
        {"shell": "cat one.txt && echo seen >> one.txt"},
        {"say": "Second turn done."},
    ]
}


@pytest.mark.parametrize("agent", AGENTS)
def test_two_turns_where_the_second_works_on_the_first(
    agent: str, tmp_path: Path, sessions: list[Session]
) -> None:
    require_acp(agent)
    session = Session(agent, TWO_TURNS, ALLOW_ALL, tmp_path)
    sessions.append(session)
    driver = session.driver
    assert driver.start().kind == "turn-end", driver.log.failure
    assert driver.send("Write one.txt.").kind == "turn-end", driver.log.failure
    last = driver.send("Now read it back and mark it seen.")
    assert last.kind == "turn-end", driver.log.failure
    driver.finish(last)
    assert driver.log.exit_code == 0 and driver.log.turns == 2
    # Turn 2 ran on the file turn 1 wrote, in the same conversation: the server played the
    # plan's second segment only because the second prompt carried the first turn's history.
    assert (session.launch.cwd / "one.txt").read_text() == "41\nseen\n"
    assert 2 in session.played_segments()
    t = session.trajectory()
    users = [e.text for e in t.events if e.type == "user_message"]
    said = [e.text.strip() for e in t.events if e.type == "assistant_text"]
    assert users == ["Write one.txt.", "Now read it back and mark it seen."]
    assert said == ["First turn done.", "Second turn done."]
    assert [e.type for e in t.events].count("turn_end") == 2
    steps = tool_steps([e.model_dump(by_alias=True) for e in t.events])
    assert steps == [("write", False, None), ("shell", False, None)]
    if agent == "acp:claude":  # Gemini CLI sends no shell output over ACP
        result = [e for e in t.events if e.type == "tool_result"][1]
        assert result.output is not None and "41" in result.output


PERMISSIONS: dict[str, Any] = {
    "turns": [
        {"write": {"path": "keep.txt", "content": "keep\n"}},
        {"say": "Wrote it."},
        {"endTurn": True},
        {"shell": "rm keep.txt"},
        {"say": "Done with the file."},
    ]
}


@pytest.mark.parametrize("agent", AGENTS)
def test_a_request_answered_by_the_policy_and_one_left_pending(
    agent: str, tmp_path: Path, sessions: list[Session]
) -> None:
    require_acp(agent)
    session = Session(agent, PERMISSIONS, ALLOW_WRITES, tmp_path)
    sessions.append(session)
    driver = session.driver
    kept = session.launch.cwd / "keep.txt"
    assert driver.start().kind == "turn-end", driver.log.failure
    assert driver.send("Write keep.txt.").kind == "turn-end", driver.log.failure
    assert kept.is_file()  # the write asked, and the rule allowed it
    parked = driver.send("Remove it.")
    assert parked.kind == "unanswered" and parked.question is not None
    assert "rm keep.txt" in parked.question.text
    assert "Reject" in parked.question.options
    pending = session.trajectory().events
    assert [e.type for e in pending][-2:] == ["tool_call", "question"]
    last = driver.send("Reject")  # the next message answers the pending request
    assert last.kind == "turn-end", driver.log.failure
    driver.finish(last)
    assert kept.is_file()
    policies = [(q.answer, q.policy, q.rule) for q in driver.log.questions]
    assert policies[:2] == [("Allow", "rule", policies[0][2]), (None, "abort", None)]
    # The request the policy left pending is recorded again with the answer that settled it.
    assert policies[2] == ("Reject", "rule", "answered by the conversation")
    reasons = [q.reason for q in driver.log.questions]
    assert reasons[0].startswith("matched rule '") and reasons[1], reasons
    assert reasons[2] == "the conversation's next message chose it", reasons
    t = session.trajectory()
    assert [e.text for e in t.events if e.type == "answer"] == ["Allow", "Reject"]
    steps = tool_steps([e.model_dump(by_alias=True) for e in t.events])
    assert steps == [("write", False, None), ("shell", False, True)]


@pytest.fixture
def run_case(proctor: Any, tmp_path: Path) -> Callable[..., dict[str, Any]]:
    def run(agent: str, qna: str, top: dict[str, Any] | None = None) -> dict[str, Any]:
        cases = tmp_path / "cases"
        write_case(
            cases,
            "notes",
            prompt="Write notes.txt.",
            plan={"turns": [{"write": {"path": "notes.txt", "content": "n\n"}}, {"say": "Ok."}]},
            qna=qna,
            config={
                "timeoutSec": 120,
                "evaluators": [{"use": "file-exists", "must": ["notes.txt"]}],
            },
        )
        args = ["run", "--source", str(cases), "--agent", agent, "--model", "scripted"]
        args += ["--out", str(tmp_path / "out"), "--json"]
        if top is not None:
            (tmp_path / "proctor.json").write_text(json.dumps(top))
            args += ["--config", str(tmp_path / "proctor.json")]
        result = proctor(*args)
        trial_dir = single_run_dir(tmp_path / "out") / "trials" / "notes" / agent / "default" / "1"
        return {
            "code": result.code,
            "err": result.err,
            "dir": trial_dir,
            "trial": json.loads((trial_dir / "trial.json").read_text()),
        }

    return run


def test_proctor_run_with_a_configured_acp_profile(
    run_case: Callable[..., dict[str, Any]],
) -> None:
    require_acp("acp:claude")
    top = {"codingagents": {"claude": {"transport": "acp", "command": ["claude-code-acp"]}}}
    ran = run_case("acp:claude", "```rules\n^Write => Allow\n```\n", top)
    trial, folder = ran["trial"], ran["dir"]
    assert ran["code"] == 0, (ran["err"], trial.get("reason"))
    assert trial["status"] == "passed"
    assert (folder / "acp.jsonl").read_bytes() == (folder / "raw-transcript.jsonl").read_bytes()
    events = [json.loads(x) for x in (folder / "trajectory.jsonl").read_text().splitlines()]
    call = next(e for e in events if e["type"] == "tool_call")
    assert (call["name"], call["kind"], call["files"]) == ("Write", "write", ["notes.txt"])
    answer = next(e for e in events if e["type"] == "answer")
    assert (answer["text"], answer["policy"]) == ("Allow", "rule")
    questions = (folder / "questions.jsonl").read_text()
    assert '"policy":"rule"' in questions.replace(" ", "")


def test_control_without_a_rule_the_trial_parks_on_the_request(
    run_case: Callable[..., dict[str, Any]],
) -> None:
    require_acp("acp:claude")
    ran = run_case("acp:claude", "")
    trial = ran["trial"]
    assert ran["code"] == 1 and trial["status"] == "failed"
    assert trial["reason"].startswith("unanswered question: Write ")
    assert not (ran["dir"] / "workspace.diff").read_text().strip()


@pytest.mark.parametrize("agent", AGENTS)
def test_no_connection_but_the_scripted_server(
    agent: str, run_case: Callable[..., dict[str, Any]], tmp_path: Path
) -> None:
    require_acp(agent)
    strace = shutil.which("strace")
    if strace is None:
        require_tool("strace is not installed (.ci/run installs it)")
    command = profile_for(agent, {}).command or []
    real = AcpAgent().program(profile_for(agent, {}))
    trace = tmp_path / "connect.trace"
    wrapper = tmp_path / "traced-agent"
    wrapper.write_text(f'#!/bin/sh\nexec {strace} -f -qq -e trace=connect -o {trace} {real} "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    traced = {"transport": "acp", "command": [str(wrapper), *command[1:]]}
    ran = run_case(
        "acp:traced", f"```rules\n{ALLOW_WRITES}\n```\n", {"codingagents": {"traced": traced}}
    )
    assert ran["trial"]["status"] == "passed", ran["trial"]["reason"]
    requests = (ran["dir"] / "model-requests.jsonl").read_text().splitlines()
    assert requests, "the agent never reached the scripted server"
    ports = [
        int(m.group(1))
        for x in trace.read_text().splitlines()
        if "127.0.0.1" in x and (m := PORT.search(x))
    ]
    assert ports
    assert outside_connections(trace.read_text(), ports[-1]) == []
