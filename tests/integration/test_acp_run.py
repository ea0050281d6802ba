"""``proctor run`` end to end on an ACP agent profile, with a real ACP agent process (the SDK-side
agent of the driver's tests, no Node needed): the trial's files, the policy's answer, exit codes
0, 1 and 2."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.conftest import single_run_dir, write_case

AGENT = Path(__file__).parents[1] / "unit" / "agents" / "acp_test_agent.py"


def run(proctor: Any, tmp_path: Path, qna: str | None, profile: dict[str, Any]) -> Any:
    cases = tmp_path / "cases"
    write_case(
        cases,
        "touch",
        prompt="touch made.txt",
        qna=qna,
        config={"timeoutSec": 60, "evaluators": [{"use": "file-exists", "must": ["made.txt"]}]},
    )
    (tmp_path / "proctor.json").write_text(json.dumps({"codingagents": {"mine": profile}}))
    return proctor(
        "run",
        "--source",
        str(cases),
        "--config",
        str(tmp_path / "proctor.json"),
        "--agent",
        "acp:mine",
        "--out",
        str(tmp_path / "out"),
        "--json",
    )


def trial_dir(tmp_path: Path) -> Path:
    return single_run_dir(tmp_path / "out") / "trials" / "touch" / "acp:mine" / "default" / "1"


PROFILE = {"transport": "acp", "command": [sys.executable, str(AGENT)]}


def test_a_permission_answered_by_qna_and_the_trial_passes(proctor: Any, tmp_path: Path) -> None:
    result = run(proctor, tmp_path, "```rules\n^touch => Allow\n```\n", PROFILE)
    folder = trial_dir(tmp_path)
    trial = json.loads((folder / "trial.json").read_text())
    assert result.code == 0, (result.err, trial.get("reason"))
    assert trial["status"] == "passed"
    assert (folder / "acp.jsonl").read_bytes() == (folder / "raw-transcript.jsonl").read_bytes()
    events = [json.loads(x) for x in (folder / "trajectory.jsonl").read_text().splitlines()]
    assert [e["type"] for e in events] == [
        "user_message",
        "tool_call",
        "question",
        "answer",
        "tool_result",
        "assistant_text",
        "turn_end",
    ]
    assert events[3]["policy"] == "rule"
    assert "made.txt" in (folder / "workspace.diff").read_text()


def test_control_no_rule_leaves_the_request_pending_and_the_trial_fails(
    proctor: Any, tmp_path: Path
) -> None:
    result = run(proctor, tmp_path, None, PROFILE)
    trial = json.loads((trial_dir(tmp_path) / "trial.json").read_text())
    assert result.code == 1
    assert (trial["status"], trial["reason"]) == ("failed", "unanswered question: touch made.txt")


def test_a_bad_acp_profile_is_a_configuration_error(proctor: Any, tmp_path: Path) -> None:
    result = run(proctor, tmp_path, None, {"transport": "acp", "command": "python agent.py"})
    assert result.code == 2
    assert "field 'codingagents.mine.command': expected a list" in result.err
    missing = run(proctor, tmp_path, None, {"transport": "acp", "command": ["no-such-agent"]})
    assert missing.code == 2
    assert "the program 'no-such-agent' of the command ['no-such-agent'] was not found" in (
        missing.err
    )
    assert "Traceback" not in result.err + missing.err
