"""Roll-ups by source: tokens and dollars per source × model, time by source, turns."""

from __future__ import annotations

from proctor.models.pricing import CostInfo
from proctor.models.trajectory import ModelUsage
from proctor.models.trial import HarnessCall, Timings, TrialRecord
from proctor.report.effort import source_rollup, source_times
from proctor.report.markdown import _turns_said


def trial(cost_judge: float | None) -> TrialRecord:
    return TrialRecord(
        case="c",
        agent="claude-code",
        repeat=1,
        status="passed",
        usage={"claude-x": ModelUsage(input_tokens=100, output_tokens=10)},
        harness_usage={"judge:anthropic/j": ModelUsage(input_tokens=7, output_tokens=3)},
        cost=CostInfo(by_model={"claude-x": 0.5, "judge:anthropic/j": cost_judge}),
        harness_calls=[HarnessCall(role="judge", model="anthropic/j", latency_ms=250.0)],
        timings=Timings(agent_ms=1000, agent_pure_ms=900, harness_react_ms=100, turns_total=2,
                        question_turns=1, interruptions=1),
    )  # fmt: skip


def test_each_source_and_model_apart_with_its_dollars() -> None:
    rows = source_rollup([trial(0.25), trial(0.25)])
    assert [(r.source, r.model, r.tokens.input_tokens, r.cost_usd) for r in rows] == [
        ("agent", "claude-x", 200, 1.0),
        ("judge", "anthropic/j", 14, 0.5),
    ]


def test_one_unpriced_trial_makes_its_source_s_dollars_unknown() -> None:
    rows = source_rollup([trial(0.25), trial(None)])
    assert [r.cost_usd for r in rows] == [1.0, None]  # control: the agent's stay known


def test_time_and_turns_by_source() -> None:
    times = source_times([trial(0.25), trial(0.25)])
    assert (times.agent_ms, times.agent_pure_ms, times.harness_react_ms) == (2000, 1800, 200)
    assert times.harness_model_ms == {"anthropic/j": 500.0}
    assert (times.turns, times.question_turns, times.interruptions) == (4, 2, 2)


def test_the_turns_line_leaves_out_a_count_of_none() -> None:
    """The report's turns read as a sentence: no ``(question turns 0), interruptions 0``."""
    assert _turns_said(4, 0, 0) == "4 turns sent."
    assert _turns_said(4, 2, 1) == (
        "4 turns sent (2 of them answers to questions the agent ended its turn with); "
        "1 interruption."
    )
    assert _turns_said(2, 1, 0) == (
        "2 turns sent (1 of them an answer to a question the agent ended its turn with)."
    )
