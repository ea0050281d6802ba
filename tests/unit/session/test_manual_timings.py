"""A session a person drove: its time is read from its transcript, not left as zero."""

from proctor.models.trajectory import AssistantText, Trajectory, UserMessage
from proctor.session.recorded import session_timings


def test_a_recorded_session_s_time_is_its_transcript_s_span() -> None:
    trajectory = Trajectory(
        format="claude-code",
        events=[
            UserMessage(ts="2026-12-05T10:00:00.000Z", text="Add b.txt."),
            AssistantText(ts="2026-12-05T10:00:01.500Z", text="Working."),
            AssistantText(ts="2026-12-05T10:00:12.250Z", text="Added b.txt."),
        ],
    )
    timings = session_timings(trajectory)
    assert timings.agent_ms == timings.agent_pure_ms == timings.total_ms == 12250.0
    assert timings.harness_ms == 0.0
    assert (timings.started_at, timings.finished_at) == (
        "2026-12-05T10:00:00.000Z",
        "2026-12-05T10:00:12.250Z",
    )


def test_a_transcript_without_times_leaves_the_time_unknown() -> None:
    timings = session_timings(
        Trajectory(format="claude-code", events=[UserMessage(text="Add b.txt.")])
    )
    assert timings.agent_ms == 0.0 and timings.started_at is None


def test_a_recorded_session_s_turns_are_the_prompts_the_person_typed() -> None:
    """``turnsTotal`` counts a recorded session's user turns as a run counts the messages it
    sent: its main thread's user messages (a subagent's task is the agent's); it was 0."""
    trajectory = Trajectory(
        format="claude-code",
        events=[
            UserMessage(ts="2026-12-05T10:00:00.000Z", text="Write one.txt."),
            AssistantText(ts="2026-12-05T10:00:01.000Z", text="Shall I?"),
            UserMessage(ts="2026-12-05T10:00:02.000Z", text="Find it.", sidechain=True),
            UserMessage(ts="2026-12-05T10:00:05.000Z", text="Yes, please."),
            AssistantText(ts="2026-12-05T10:00:06.000Z", text="Done."),
        ],
    )
    assert session_timings(trajectory).turns_total == 2
    untimed = Trajectory(format="codex", events=[UserMessage(text="Add b.txt.")])
    assert session_timings(untimed).turns_total == 1
