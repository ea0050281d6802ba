"""Which trials may run again, and where their earlier attempts go."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.execute.retry import clear_for_rerun, earlier_attempts, is_transient, keep_attempt
from proctor.llm.failures import describe_agent_failure
from proctor.models.io import write_record
from proctor.models.process import ProcessMetrics, StepCounts
from proctor.models.trajectory import ModelUsage
from proctor.models.trial import TrialRecord


def record(status: str, reason: str, **extra: object) -> TrialRecord:
    return TrialRecord.model_validate(
        {"case": "c", "agent": "a", "repeat": 1, "status": status, "reason": reason, **extra}
    )


@pytest.mark.parametrize(
    ("status", "reason", "again"),
    [
        ("agent-error", "rate limited: API Error: 429 rate_limit_error", True),
        ("agent-error", 'provider overloaded: API Error: 529 {"type":"overloaded_error"}', True),
        ("agent-error", "API error: unexpected status 502 Bad Gateway", True),
        ("infra-error", "worker process died (exit code -9) without a result", True),
        ("agent-error", "agent exited with code 3 before its turn ended", True),  # at start-up
        ("agent-error", "authentication failed: Not logged in · Please run /login", False),
        ("agent-error", "quota exhausted: Credit balance is too low", False),
        ("agent-error", "API error: got status: 400 Bad Request. invalid tool schema", False),
        ("agent-error", "agent error: TypeError: x is undefined", False),
        ("infra-error", "interrupted: the run was stopped before this trial ended", False),
        ("failed", "rate limited: but the trial was scored", False),
        ("timeout", "agent did not finish within 1s", False),
        ("eval-error", "provider overloaded: the judge", False),
        ("passed", "score 100 >= 60", False),
        # proctor's answering model failed: its failure's label decides.
        (
            "infra-error",
            "answering model anthropic/claude-x failed: provider overloaded (529): Overloaded",
            True,
        ),
        ("infra-error", "answering model openai/gpt-x failed: rate limited (429): slow", True),
        (
            "infra-error",
            "answering model anthropic/claude-x failed: authentication failed (401): no",
            False,
        ),
        # An agent that could not reach its provider at all: a network error.
        (
            "agent-error",
            describe_agent_failure("API Error: Unable to connect to API (FailedToOpenSocket)"),
            True,
        ),
        ("agent-error", describe_agent_failure("TypeError: fetch failed ECONNREFUSED"), True),
    ],
)
def test_only_transient_errors_run_again(status: str, reason: str, again: bool) -> None:
    assert is_transient(record(status, reason)) is again


@pytest.mark.parametrize(
    ("text", "again"),
    [
        ("API Error: 429 rate_limit_error " + "x" * 1_000, True),
        ('API Error: 529 {"type":"overloaded_error"} ' + "x" * 1_000, True),
        ("API Error: 503 Service Unavailable " + "x" * 1_000, True),
        ("API Error: Unable to connect to API (FailedToOpenSocket) " + "x" * 1_000, True),
        # The mark's count (529, 503 characters) is never taken for a status.
        ("API Error: 400 Bad Request " + "y" * (529 - 27), False),
        ("TypeError: x is undefined " + "z" * (503 - 26), False),
        ("Not logged in · Please run /login " + "w" * 1_000, False),
    ],
)
def test_a_reason_cut_and_marked_is_classified_as_its_head_alone(text: str, again: bool) -> None:
    """The agent's words are cut at 300 characters and the cut marked at the end: the label
    ``--retry-errors`` reads is the same, and the mark adds no status."""
    cut = describe_agent_failure(text)
    assert "… (cut: " in cut and f" {len(text):,} characters in all)" in cut
    head = describe_agent_failure(text[:300])
    assert cut.split(":")[0] == head.split(":")[0]
    assert is_transient(record("agent-error", cut)) is again
    assert is_transient(record("agent-error", head)) is again


def test_a_crash_after_the_agent_did_something_is_not_retried() -> None:
    worked = {"process": ProcessMetrics(steps=StepCounts(tool_calls=2)).model_dump()}
    assert not is_transient(
        record("agent-error", "agent exited with code 3 before its turn ended", **worked)
    )
    used = {"usage": {"m": ModelUsage(input_tokens=5).model_dump()}}
    assert not is_transient(
        record("agent-error", "agent exited with code 3 before its turn ended", **used)
    )


def test_attempts_are_kept_inside_the_trial_folder(tmp_path: Path) -> None:
    root = tmp_path / "1"
    root.mkdir()
    (root / "trial.json").write_text("first")
    assert keep_attempt(root, 1) == "attempts/1"
    assert sorted(p.name for p in root.iterdir()) == ["attempts"]
    (root / "trial.json").write_text("second")
    assert keep_attempt(root, 2) == "attempts/2"
    (root / "trial.json").write_text("third")
    assert (root / "attempts" / "1" / "trial.json").read_text() == "first"
    assert (root / "attempts" / "2" / "trial.json").read_text() == "second"
    assert not (root / "attempts" / "2" / "attempts").exists()  # no nesting
    assert sorted(p.name for p in tmp_path.iterdir()) == ["1"]


def test_earlier_attempts_count_in_the_run_s_cost() -> None:
    from proctor.models.pricing import CostInfo
    from proctor.models.trial import AttemptRecord
    from proctor.report.effort import cost_rollup

    final = record("passed", "score 100 >= 60", cost=CostInfo(total_usd=0.5).model_dump())
    final.attempts = [
        AttemptRecord(
            status="agent-error",
            reason="rate limited: 429",
            folder="attempts/1",
            cost=CostInfo(total_usd=0.25),
        )
    ]
    assert cost_rollup([final]) == (0.75, [])
    final.attempts[0].cost = CostInfo(total_usd=None, unpriced=["m"])
    assert cost_rollup([final]) == (None, ["m"])  # control: an unknown attempt cost is unknown


def test_the_attempts_kept_in_a_folder_are_read_back_in_order(tmp_path: Path) -> None:
    trial = tmp_path / "1"
    assert earlier_attempts(trial) == []  # a fresh trial: no folder yet
    for number in (2, 1, 10):
        write_record(
            trial / "attempts" / str(number) / "trial.json",
            record("agent-error", f"rate limited: try {number}"),
        )
    (trial / "attempts" / "3").mkdir()  # cut off before its record: not listed
    (trial / "attempts" / "notes").mkdir()
    (trial / "stdout.log").write_text("the cut-off attempt's output\n")
    found = earlier_attempts(trial)
    assert [a.folder for a in found] == ["attempts/1", "attempts/2", "attempts/10"]
    assert found[0].reason == "rate limited: try 1"
    clear_for_rerun(trial)
    assert [p.name for p in trial.iterdir()] == ["attempts"]
    assert len(earlier_attempts(trial)) == 3
