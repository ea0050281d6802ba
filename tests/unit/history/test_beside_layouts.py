"""Every session file under a PATH is replayed or listed unavailable: one beside a CLI's
history folders (a Codex rollout beside a Claude Code ``projects/``, a Gemini CLI chat beside
``tmp/``) is read, and an ACP recording is said to be one, never a session of an agent left
out by --agent."""

from __future__ import annotations

import shutil
from pathlib import Path

from proctor.history.sniff import STRAY_SUBAGENT
from proctor.history.sources import NOT_A_CLI_SESSION, sessions_under

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures" / "transcripts"
CLAUDE = FIXTURES / "claude" / "7f3c2a10-0000-4000-8000-000000000001.jsonl"
AGENTS = ["claude-code", "codex", "gemini-cli"]


def test_rollouts_beside_a_claude_projects_folder_are_read(tmp_path: Path) -> None:
    project = tmp_path / "projects" / "-work-app"
    project.mkdir(parents=True)
    shutil.copy(CLAUDE, project)
    for rollout in sorted((FIXTURES / "codex").glob("rollout-*.jsonl")):
        shutil.copy(rollout, tmp_path)
    sessions, unavailable = sessions_under([tmp_path], AGENTS)
    assert sorted(s.agent for s in sessions) == ["claude-code", "codex", "codex"]
    assert unavailable == []


def test_a_chat_beside_a_gemini_tmp_folder_is_read() -> None:
    sessions, unavailable = sessions_under([FIXTURES / "gemini"], AGENTS)
    assert sorted(s.path.relative_to(FIXTURES / "gemini").parts[0] for s in sessions) == [
        "opened-early",
        "tmp",
    ]
    assert unavailable == []


def test_acp_recordings_are_said_to_be_no_cli_session(tmp_path: Path) -> None:
    shutil.copy(CLAUDE, tmp_path)
    for log in sorted((FIXTURES / "acp").glob("*.jsonl")):
        shutil.copy(log, tmp_path)
    sessions, unavailable = sessions_under([tmp_path], AGENTS)
    assert [s.agent for s in sessions] == ["claude-code"]
    assert [(Path(u.path).name, u.reason) for u in unavailable] == [
        ("claude-code-acp-0.16.2.jsonl", NOT_A_CLI_SESSION),
        ("gemini-cli-0.61.0.jsonl", NOT_A_CLI_SESSION),
    ]
    alone = FIXTURES / "acp" / "gemini-cli-0.61.0.jsonl"
    sessions, unavailable = sessions_under([alone], AGENTS)
    assert sessions == [] and [u.reason for u in unavailable] == [NOT_A_CLI_SESSION]
    assert "ACP recording" in NOT_A_CLI_SESSION and "--agent" not in NOT_A_CLI_SESSION


def _claude_home(home: Path, kept: tuple[str, str] = ("plugins", "todos")) -> None:
    """A Claude Code folder as a user's is: its projects/, and beside it what else Claude Code
    keeps (``kept``: todos, plugins cloned from a marketplace whose tests hold a Codex
    rollout)."""
    project = home / "projects" / "-work-app"
    project.mkdir(parents=True)
    shutil.copy(CLAUDE, project)
    rollouts = sorted((FIXTURES / "codex").glob("rollout-*.jsonl"))
    shutil.copy(rollouts[0], home)  # a rollout kept beside projects/: read
    plugin = home / kept[0] / "marketplaces" / "market" / "tests"
    plugin.mkdir(parents=True)
    shutil.copy(rollouts[1], plugin)
    (home / kept[1]).mkdir()
    for n in range(5):
        (home / kept[1] / f"{n}-agent-{n}.json").write_text("[]")
    (home / "sessions").mkdir()
    (home / "sessions" / "1234.json").write_text('{"pid": 1234, "sessionId": "x"}')


def test_a_cli_s_own_folder_is_read_where_it_keeps_sessions_and_beside_them(
    tmp_path: Path,
) -> None:
    """~/.claude given as a PATH: its projects/ and the files beside it are read, never its
    todos/, plugins/ or the other folders Claude Code keeps there (a plugin's test fixtures
    are no session of the user's, and a real ~/.claude holds thousands of such files)."""
    home = tmp_path / "config"
    _claude_home(home)
    (home / "settings.json").write_text("{}")  # what tells Claude Code's folder of any name
    sessions, unavailable = sessions_under([home], AGENTS)
    assert sorted((s.agent, s.path.parent.name) for s in sessions) == [
        ("claude-code", "-work-app"),
        ("codex", "config"),
    ]
    assert unavailable == []
    dot = tmp_path / ".claude"
    _claude_home(dot)  # named as Claude Code names its folder
    sessions, unavailable = sessions_under([dot], AGENTS)
    assert len(sessions) == 2 and unavailable == []


def test_control_a_plain_folder_with_a_projects_folder_is_searched_whole(tmp_path: Path) -> None:
    home = tmp_path / "backup"
    _claude_home(home, ("saved", "notes"))  # nothing Claude Code keeps beside its projects/
    sessions, unavailable = sessions_under([home], AGENTS)
    assert sorted(s.agent for s in sessions) == ["claude-code", "codex", "codex"]
    assert unavailable == []


def test_a_folder_of_acp_recordings_only_is_said_once_with_their_number(tmp_path: Path) -> None:
    for n, log in enumerate(sorted((FIXTURES / "acp").glob("*.jsonl")) * 2):
        (tmp_path / f"trial-{n}").mkdir()
        shutil.copy(log, tmp_path / f"trial-{n}" / "acp.jsonl")
    sessions, unavailable = sessions_under([tmp_path], AGENTS)
    assert sessions == []
    assert [(u.path, u.reason) for u in unavailable] == [
        (
            str(tmp_path),
            "holds 4 ACP recordings only (proctor's logs of ACP agents' trials), no CLI "
            "session: not replayed (`proctor parse` reads each)",
        )
    ]
    alone = tmp_path / "trial-0"
    sessions, unavailable = sessions_under([alone], AGENTS)
    assert [(u.path, u.reason) for u in unavailable] == [
        (
            str(alone),
            "holds 1 ACP recording only (proctor's log of an ACP agent's trial), no CLI "
            "session: not replayed (`proctor parse` reads each)",
        )
    ]
    # With a file unavailable for another reason, each is said on its own line.
    stray = next((CLAUDE.with_suffix("") / "subagents").glob("agent-*.jsonl"))
    shutil.copy(stray, tmp_path / "trial-0" / "side.jsonl")
    sessions, unavailable = sessions_under([tmp_path], AGENTS)
    assert [u.reason for u in unavailable][:-1].count(NOT_A_CLI_SESSION) == 4
    assert [u.reason for u in unavailable].count(STRAY_SUBAGENT) == 1


def test_a_codex_folder_that_keeps_archived_sessions_only_is_read_as_codex_s(
    tmp_path: Path,
) -> None:
    """A Codex folder whose sessions/ is gone (all archived) is still Codex's own: its log/
    (a folder Codex keeps) is not searched, as with its sessions/ there."""
    codex = tmp_path / "codex-home"
    day = codex / "archived_sessions" / "2026" / "11" / "29"
    day.mkdir(parents=True)
    for rollout in sorted((FIXTURES / "codex").glob("rollout-*.jsonl")):
        shutil.copy(rollout, day)
    (codex / "auth.json").write_text("{}")
    (codex / "log").mkdir()
    shutil.copy(CLAUDE, codex / "log")  # no session of this Codex folder
    sessions, unavailable = sessions_under([codex], AGENTS)
    assert [s.agent for s in sessions] == ["codex", "codex"] and unavailable == []


def test_a_cli_s_own_folder_in_a_folder_given_is_read_as_if_given(tmp_path: Path) -> None:
    """The home folder given as a PATH: its ~/.claude is read as ~/.claude given is, where
    Claude Code keeps sessions, never its plugins/ or todos/."""
    _claude_home(tmp_path / "me" / ".claude")
    rollout = sorted((FIXTURES / "codex").glob("rollout-*.jsonl"))[1]
    shutil.copy(rollout, tmp_path / "me")  # a session kept in the home folder: read
    sessions, unavailable = sessions_under([tmp_path / "me"], AGENTS)
    assert sorted((s.agent, s.path.parent.name) for s in sessions) == [
        ("claude-code", "-work-app"),
        ("codex", ".claude"),
        ("codex", "me"),
    ]
    assert unavailable == []


def test_a_cli_s_own_folder_without_a_session_yet_is_not_searched_whole(tmp_path: Path) -> None:
    home = tmp_path / ".claude"
    _claude_home(home)
    shutil.rmtree(home / "projects" / "-work-app")  # nothing recorded yet
    (next(home.glob("rollout-*.jsonl"))).unlink()
    sessions, unavailable = sessions_under([home], AGENTS)
    assert sessions == []
    assert [(u.path, u.reason) for u in unavailable] == [(str(home), "no session transcript")]


def _kept(folder: Path, file: Path = CLAUDE) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(file, folder)
    return folder / file.name


def test_a_plain_folder_with_a_cli_s_folder_names_and_marks_is_searched_whole(
    tmp_path: Path,
) -> None:
    """A folder that holds a projects/, sessions/ or tmp/ and what a CLI keeps beside them
    (todos/, history.jsonl, settings.json) but where no CLI's sessions are read is no CLI's
    own folder: it is searched whole, and a .claude in it is read, never passed over."""
    home = tmp_path / "me"  # ~/projects and ~/todos beside ~/.claude
    (home / "projects" / "myapp").mkdir(parents=True)
    (home / "todos").mkdir()
    _kept(home / ".claude" / "projects" / "-p")
    (home / ".claude" / "settings.json").write_text("{}")
    saved = tmp_path / "saved"  # a Claude Code session kept in a sessions/ folder
    _kept(saved / "sessions")
    (saved / "history.jsonl").write_text("{}\n")
    logs = tmp_path / "logs"  # a tmp/ beside settings.json and a session in logs/
    (logs / "tmp").mkdir(parents=True)
    (logs / "settings.json").write_text("{}")
    _kept(logs / "logs")
    for path in (home, saved, logs):
        sessions, unavailable = sessions_under([path], AGENTS)
        assert [s.agent for s in sessions] == ["claude-code"], path
        assert unavailable == [], path


def test_a_project_s_claude_folder_is_no_claude_code_folder(tmp_path: Path) -> None:
    """A repository's .claude (settings.json, commands/, a tmp/) has no projects/: it is
    searched whole, given or met in the repository given."""
    repo = tmp_path / "repo"
    for kept in ("commands", "tmp"):
        (repo / ".claude" / kept).mkdir(parents=True)
    (repo / ".claude" / "settings.json").write_text("{}")
    _kept(repo / ".claude" / "agent-logs")
    for path in (repo, repo / ".claude"):
        sessions, unavailable = sessions_under([path], AGENTS)
        assert [s.agent for s in sessions] == ["claude-code"], path
        assert unavailable == [], path


def test_a_cli_s_own_folder_met_in_a_cli_s_own_folder_is_read(tmp_path: Path) -> None:
    """A .codex met in a CLI's own folder (whose plugins/, todos/… are not searched) is read
    all the same: a folder left out of the search is never a .claude, .codex or .gemini."""
    home = tmp_path / "config"
    _claude_home(home)
    (home / "settings.json").write_text("{}")
    rollout = sorted((FIXTURES / "codex").glob("rollout-*.jsonl"))[1]
    _kept(home / ".codex" / "sessions" / "2026" / "12" / "01", rollout)
    sessions, unavailable = sessions_under([home], AGENTS)
    assert sorted((s.agent, s.path.parent.name) for s in sessions) == [
        ("claude-code", "-work-app"),
        ("codex", "01"),
        ("codex", "config"),
    ]
    assert unavailable == []


def test_a_claude_folder_without_projects_yet_says_so_and_reads_no_plugin(
    tmp_path: Path,
) -> None:
    """~/.claude before Claude Code recorded a session (settings.json, todos/, plugins/, no
    projects/ yet) holds no session: a plugin's test fixture is none, and it is said so."""
    home = tmp_path / ".claude"
    rollout = sorted((FIXTURES / "codex").glob("rollout-*.jsonl"))[0]
    _kept(home / "plugins" / "pl" / "tests", rollout)
    (home / "todos").mkdir()
    (home / "settings.json").write_text("{}")
    (home / "sessions").mkdir()  # Claude Code's record of its running processes
    (home / "sessions" / "1234.json").write_text('{"pid": 1234, "sessionId": "x"}')
    for path in (home, tmp_path):
        sessions, unavailable = sessions_under([path], AGENTS)
        assert sessions == []
        assert (unavailable[0].agent, unavailable[0].path) == ("claude-code", str(home))
        assert unavailable[0].reason.startswith("no projects/ folder in it: claude-code has")
    sessions, unavailable = sessions_under([home], AGENTS)
    assert len(unavailable) == 1  # said once: not "no session transcript" as well
    rollout_beside = _kept(home, rollout)  # a session beside its folders: read
    sessions, unavailable = sessions_under([home], AGENTS)
    assert [s.file for s in sessions] == [str(rollout_beside)] and unavailable == []
