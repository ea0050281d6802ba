"""``proctor history`` on a real CLI's session measures it as the trial measured it.

Each CLI reads, searches, runs a failing check three times (a loop, three failed checks),
edits the code and runs the check again, on the scripted model. The trial keeps the CLI's
native session file byte for byte (``raw-transcript.jsonl``); ``proctor history`` on that file,
and on the trial folder, finds that one session and gives the trial's figures: steps by kind,
orientation, checks, failed checks, loops, the rules fired, verified, tokens per model and the
context figures (the trial has no expected files either, so both take the edited files as
their proxy gold).

Dollars are not compared: a trial on ``--model scripted`` prices every response at $0 (see
docs/metrics.md#effort), while ``proctor history`` prices the models the session names at their
list price, whoever answered."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.contract.conftest import require_cli
from tests.contract.test_codex import SPAWN
from tests.contract.test_gemini_cli import INVOKE

CALC = "def add(a, b):\n    return a - b\n"
TEST = (
    "import unittest\n\nfrom calc import add\n\n\n"
    "class T(unittest.TestCase):\n"
    "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n"
)
PLAN = {
    "turns": [
        {"say": "Running the tests first."},
        {"shell": "python3 -m unittest"},
        {"shell": "python3 -m unittest"},
        {"shell": "python3 -m unittest"},
        {"search": "def add"},
        {"read": "calc.py"},
        {"read": "test_calc.py"},
        {"edit": {"path": "calc.py", "old": "return a - b", "new": "return a + b"}},
        {"shell": "python3 -m unittest"},
        {"say": "Fixed."},
    ]
}
CONFIG = {"evaluators": [{"use": "command", "run": "python3 -m unittest", "gate": True}]}
TOP = {"codingagents": {"gemini-cli": {"permissionMode": "yolo"}}}


def _trial_figures(trial: dict[str, Any]) -> dict[str, Any]:
    process = trial["process"]
    return {
        "isTask": process["isTask"],
        "verified": process["verified"],
        "steps": process["steps"],
        "orientation": process["orientation"],
        "checks": len(process["checks"]),
        "failedChecks": sum(check["outcome"] == "fail" for check in process["checks"]),
        "loops": process["loops"],
        "rulesFired": sorted(rule["rule"] for rule in trial["rules"] if rule["fired"]),
        "usage": trial["usage"],
        "editedFiles": process["context"]["editedFiles"],
        "aucCovProxy": process["context"]["aucCov"],
        "redundancyProxy": process["context"]["redundancy"],
        "durationSeconds": process["effort"]["elapsedSeconds"],
        "sessionId": trial["sessionId"],
    }


def _session_figures(session: dict[str, Any]) -> dict[str, Any]:
    figures = {
        key: session[key]
        for key in (
            "isTask",
            "verified",
            "steps",
            "orientation",
            "checks",
            "failedChecks",
            "loops",
            "rulesFired",
            "usage",
            "editedFiles",
            "aucCovProxy",
            "redundancyProxy",
            "durationSeconds",
            "sessionId",
        )
    }
    figures["rulesFired"] = sorted(figures["rulesFired"])
    return figures


@pytest.mark.parametrize("mode", ["headless", "interactive"])
@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini-cli"])
def test_history_measures_the_session_as_its_trial_did(
    run_cli: Callable[..., dict[str, Any]], proctor: Any, agent: str, mode: str
) -> None:
    require_cli(agent)
    src = {"calc.py": CALC, "test_calc.py": TEST}
    out = run_cli(agent, PLAN, mode=mode, config=CONFIG, top=TOP, src=src)
    trial = out["trial"]
    assert trial["status"] == "passed", trial["reason"]
    expected = _trial_figures(trial)
    # The session as the case meant it, so that equal figures are not equally empty ones.
    assert expected["steps"]["byKind"] == {"shell": 4, "search": 1, "read": 2, "edit": 1}
    assert (expected["failedChecks"], expected["loops"], expected["verified"]) == (3, 1, True)
    assert expected["rulesFired"] == ["loops"]
    assert trial["process"]["rework"] == expected["failedChecks"]
    assert next(iter(expected["usage"].values()))["responses"] >= 9
    for path in (out["dir"] / "raw-transcript.jsonl", out["dir"]):
        result = proctor("history", str(path), "--json", "--no-cache")
        assert result.code == 0, result.err
        report = json.loads(result.out)
        assert report["unavailable"] == []
        (session,) = report["sessions"]
        assert session["agent"] == agent
        assert session["unknownRecords"] == 0
        assert session["path"] == str((out["dir"] / "raw-transcript.jsonl").resolve())
        assert _session_figures(session) == expected, path


@pytest.mark.parametrize(("agent", "plan"), [("codex", SPAWN), ("gemini-cli", INVOKE)])
def test_history_measures_a_session_with_subagents_as_its_trial_did(
    run_cli: Callable[..., dict[str, Any]], proctor: Any, agent: str, plan: dict[str, Any]
) -> None:
    """The trial keeps every file of a session with subagents in ``transcript/``, as the CLI
    laid them out: ``proctor history`` of that folder, or of the trial's, counts the subagents'
    steps and tokens in the session, as the trial did (the main file alone has none of them)."""
    require_cli(agent)
    out = run_cli(agent, plan, config={"timeoutSec": 60})
    trial = out["trial"]
    assert trial["status"] == "passed", trial["reason"]
    expected = _trial_figures(trial)
    assert expected["steps"]["byKind"]["subagent"] >= 1
    for path in (out["dir"] / "transcript", out["dir"]):
        result = proctor("history", str(path), "--json", "--no-cache")
        assert result.code == 0, result.err
        report = json.loads(result.out)
        (session,) = report["sessions"]
        assert session["unknownRecords"] == 0
        # The trial folder's raw-transcript.jsonl is the same session's main file again.
        others = [
            row for row in report["unavailable"] if "copy of the session" not in row["reason"]
        ]
        assert others == [], report["unavailable"]
        assert _session_figures(session) == expected, path
