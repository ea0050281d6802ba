"""A subagent's file is read once, with its session, wherever copies of it or of its session
lie: a Codex subagent's rollout or a Gemini CLI subagent's chat kept under a second name, a
Gemini CLI chat kept under its project's hash (with its subagents' folder) and under its name
(without), a subagent's chat copied where no session reads it (said, not dropped)."""

from __future__ import annotations

import shutil
from pathlib import Path

from proctor.history.replay import Filters, replay
from proctor.history.sniff import STRAY_SUBAGENT
from proctor.history.sources import find_sessions, sessions_under
from proctor.models.history import SessionSummary, Unavailable
from proctor.models.pricing import PriceTable

ROOT = Path(__file__).resolve().parents[3]
SPAWN = ROOT / "tests/fixtures/transcripts/codex/threads/spawn"
SUBAGENT_ROLLOUT = "rollout-2026-12-02T18-46-40-01a23814-8d8e-7be2-860f-be0579516593"
GEMINI = ROOT / "tests/fixtures/transcripts/gemini-subagent/tmp/workspace"
PARENT_ID = "37fa6668-a093-47ba-9afe-342b4e75e2ab"
SUBAGENT_CHAT = "81d99572-a4d5-4ce5-8a8b-78dafd0a1096"
HASH = "4ad6d74461b7132a0f211e999af46752c51b9e4a3aed67560a5c6c1abaab674c"


def _replayed(
    sessions: list[object], listed: list[Unavailable]
) -> tuple[list[SessionSummary], list[Unavailable]]:
    found = list(replay(sessions, Filters(), PriceTable(), workers=1))  # type: ignore[arg-type]
    measured = [s for s in found if not isinstance(s, Unavailable)]
    return measured, listed + [s for s in found if isinstance(s, Unavailable)]


def _home(tmp_path: Path, agent: str) -> tuple[list[SessionSummary], list[Unavailable]]:
    sessions, listed = find_sessions([agent], tmp_path, {})
    return _replayed(sessions, listed)  # type: ignore[arg-type]


def _responses(session: SessionSummary) -> dict[str, tuple[int, int]]:
    return {m: (u.input_tokens, u.responses) for m, u in session.usage.items()}


def test_a_codex_subagent_rollout_kept_under_a_second_name_counts_once(tmp_path: Path) -> None:
    day = tmp_path / ".codex" / "sessions" / "2026" / "12" / "02"
    day.mkdir(parents=True)
    for rollout in SPAWN.glob("*.jsonl"):
        shutil.copy(rollout, day)
    ((alone,), none) = _home(tmp_path, "codex")
    assert none == [] and _responses(alone) == {"gpt-5.5": (63_104, 6)}
    copy = day / f"{SUBAGENT_ROLLOUT} (1).jsonl"
    shutil.copy(day / f"{SUBAGENT_ROLLOUT}.jsonl", copy)
    ((session,), unavailable) = _home(tmp_path, "codex")
    assert _responses(session) == _responses(alone)
    assert session.steps.tool_calls == alone.steps.tool_calls
    assert [(u.path, u.reason) for u in unavailable] == [
        (
            str(copy),
            f"a copy of the subagent's thread in {day / SUBAGENT_ROLLOUT}.jsonl (the same "
            "thread id), counted there",
        )
    ]


def test_a_codex_rollout_given_alone_is_measured_with_its_subagents_threads(
    tmp_path: Path,
) -> None:
    """``proctor history FILE`` of a rollout that spawned a subagent: its thread is read, as
    ``parse FILE`` and a history of the folder read it (it measured 44,224 input tokens in 4
    responses, of 63,104 in 6)."""
    day = tmp_path / ".codex" / "sessions" / "2026" / "12" / "02"
    day.mkdir(parents=True)
    for rollout in SPAWN.glob("*.jsonl"):
        shutil.copy(rollout, day)
    (main,) = [p for p in day.glob("*.jsonl") if not p.name.startswith(SUBAGENT_ROLLOUT)]
    sessions, listed = sessions_under([main], ["codex"])
    ((alone,), none) = _replayed(sessions, listed)  # type: ignore[arg-type]
    ((folder,), _) = _home(tmp_path, "codex")
    assert none == [] and _responses(alone) == _responses(folder) == {"gpt-5.5": (63_104, 6)}
    assert alone.steps.tool_calls == folder.steps.tool_calls


def _gemini_home(tmp_path: Path) -> Path:
    tmp = tmp_path / ".gemini" / "tmp"
    tmp.mkdir(parents=True)
    shutil.copytree(GEMINI, tmp / "workspace")
    return tmp


def test_a_gemini_subagent_chat_kept_under_a_second_name_counts_once(tmp_path: Path) -> None:
    tmp = _gemini_home(tmp_path)
    ((alone,), _) = _home(tmp_path, "gemini-cli")
    assert _responses(alone)["gemini-3-flash-preview"] == (13_585, 4)
    folder = tmp / "workspace" / "chats" / PARENT_ID
    shutil.copy(folder / f"{SUBAGENT_CHAT}.jsonl", folder / f"{SUBAGENT_CHAT} (1).jsonl")
    ((session,), _) = _home(tmp_path, "gemini-cli")
    assert _responses(session) == _responses(alone)


def test_a_gemini_chat_read_from_one_copy_keeps_the_subagents_beside_the_other(
    tmp_path: Path,
) -> None:
    tmp = _gemini_home(tmp_path)
    ((alone,), _) = _home(tmp_path, "gemini-cli")
    # Under the project's hash with its subagents' folder, under its name without.
    (tmp / "workspace").rename(tmp / HASH)
    named = tmp / "workspace" / "chats"
    named.mkdir(parents=True)
    for chat in (tmp / HASH / "chats").glob("session-*.jsonl"):
        shutil.copy(chat, named)
    (tmp / "workspace" / ".project_root").write_text("/tmp/proctor-00qssde6/0/workspace")
    ((session,), unavailable) = _home(tmp_path, "gemini-cli")
    assert unavailable == []
    assert Path(session.path).parent == named  # the copy that names its project
    assert _responses(session) == _responses(alone)  # with the subagent's chat
    assert session.steps == alone.steps


def test_a_gemini_subagent_chat_where_no_session_reads_it_is_said(tmp_path: Path) -> None:
    chats = GEMINI / "chats"
    (main,) = chats.glob("session-*.jsonl")
    shutil.copy(main, tmp_path / "main.jsonl")
    stray = tmp_path / "sub.jsonl"
    shutil.copy(chats / PARENT_ID / f"{SUBAGENT_CHAT}.jsonl", stray)
    sessions, listed = sessions_under([tmp_path], ["gemini-cli"])
    assert [s.file for s in sessions] == [str(tmp_path / "main.jsonl")]
    assert [(u.path, u.reason) for u in listed] == [(str(stray), STRAY_SUBAGENT)]
    # The control: in a folder named by its session, beside it, it is read with it.
    (tmp_path / PARENT_ID).mkdir()
    stray.rename(tmp_path / PARENT_ID / f"{SUBAGENT_CHAT}.jsonl")
    sessions, listed = sessions_under([tmp_path], ["gemini-cli"])
    ((session,), unavailable) = _replayed(sessions, listed)  # type: ignore[arg-type]
    assert unavailable == [] and "gemini-3-flash-preview" in session.usage


NESTED = ROOT / "tests/fixtures/transcripts/claude/nested/-tmp-proctor-vhux1ro4-0-workspace"
NESTED_ID = "2e315b70-a4cd-4086-8c5c-33ece1bf7bd1"


def test_a_workflow_s_agents_files_a_folder_deeper_are_read_with_their_session(
    tmp_path: Path,
) -> None:
    from proctor.transcripts.claude import parse_claude_session
    from proctor.util.native_paths import claude_subagent_files

    project = tmp_path / ".claude" / "projects" / "-w"
    shutil.copytree(NESTED, project)
    ((flat,), _) = _home(tmp_path, "claude-code")
    subagents = project / NESTED_ID / "subagents"
    run = subagents / "workflows" / "wf_abc-123"
    run.mkdir(parents=True)
    for agent in subagents.glob("agent-*.jsonl"):
        agent.rename(run / agent.name)
    (run / "journal.jsonl").write_text('{"type":"started","key":"k","agentId":"a"}\n')
    ((session,), unavailable) = _home(tmp_path, "claude-code")
    assert unavailable == []
    assert _responses(session) == _responses(flat) and session.steps == flat.steps
    main = project / f"{NESTED_ID}.jsonl"
    found = claude_subagent_files(main)
    assert found and all(path.parent == run for path in found)
    whole = parse_claude_session(main, found)
    assert {m: u.responses for m, u in whole.usage.items()} == {
        m: u.responses for m, u in flat.usage.items()
    }
