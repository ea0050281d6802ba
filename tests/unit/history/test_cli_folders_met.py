"""A CLI's own folder met in a folder given as a PATH is read as it is given alone, told by
what it holds rather than its name alone: a ``~/.claude`` linked to a folder elsewhere is read
(once, however many links lead to it), a copy of one under another name (``claude-backup/``)
is read where Claude Code keeps sessions and never in its plugins' test fixtures, and a
``.claude`` whose ``projects/`` is empty but that holds nothing else Claude Code keeps is
searched whole. In a CLI's own folder the folders the CLI keeps beside its sessions (plugins/,
todos/…) are not searched, and every other is; a folder of an app's settings.json and
projects/<name>/events.jsonl, with no record of a CLI's, is none."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from click.testing import CliRunner

from proctor.cli.main import cli
from proctor.history.sources import sessions_under

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures" / "transcripts"
CLAUDE = FIXTURES / "claude" / "7f3c2a10-0000-4000-8000-000000000001.jsonl"
ROLLOUT, OTHER_ROLLOUT = sorted((FIXTURES / "codex").glob("rollout-*.jsonl"))[:2]
GEMINI = next((FIXTURES / "gemini" / "tmp" / "proj" / "chats").glob("session-*.jsonl"))
AGENTS = ["claude-code", "codex", "gemini-cli"]


def _claude_folder(folder: Path) -> Path:
    """A Claude Code folder as a user's is: a session in projects/, settings.json, and a
    plugin whose tests hold a Codex rollout (no session of the user's). The session's path."""
    project = folder / "projects" / "-work-app"
    project.mkdir(parents=True)
    shutil.copy(CLAUDE, project)
    (folder / "settings.json").write_text("{}")
    plugin = folder / "plugins" / "marketplaces" / "market" / "tests"
    plugin.mkdir(parents=True)
    shutil.copy(OTHER_ROLLOUT, plugin / "fixture.jsonl")
    return project / CLAUDE.name


def _tree(folder: Path) -> dict[str, tuple[int, float]]:
    """Every file and folder under ``folder`` (links not followed), with its size and time."""
    found = {}
    for root, names, files in os.walk(folder):
        for name in names + files:
            stat = os.lstat(os.path.join(root, name))
            found[os.path.join(root, name)] = (stat.st_size, stat.st_mtime)
    return found


def test_a_linked_claude_folder_in_the_folder_given_is_read_once(tmp_path: Path) -> None:
    """~/.claude a link to a folder elsewhere (a dotfiles repository): read as ~/.claude is,
    once, though a second link leads to it too."""
    session = _claude_folder(tmp_path / "dotfiles" / "claude")
    shutil.copy(ROLLOUT, tmp_path / "dotfiles" / "claude" / "kept.jsonl")  # beside projects/
    home = tmp_path / "me"
    (home / "old").mkdir(parents=True)
    (home / ".claude").symlink_to(tmp_path / "dotfiles" / "claude")
    (home / "old" / ".claude").symlink_to(tmp_path / "dotfiles" / "claude")
    sessions, unavailable = sessions_under([home], AGENTS)
    linked = home / ".claude"
    assert [s.file for s in sessions] == [
        str(linked / "projects" / "-work-app" / session.name),
        str(linked / "kept.jsonl"),
    ]
    assert unavailable == []


def test_a_linked_claude_folder_beside_the_real_one_is_read_once(tmp_path: Path) -> None:
    """A link to a .claude read already (a real ~/.claude and a link to it) adds nothing."""
    _claude_folder(tmp_path / "me" / ".claude")
    (tmp_path / "me" / "work").mkdir()
    (tmp_path / "me" / "work" / ".claude").symlink_to(tmp_path / "me" / ".claude")
    outside = tmp_path / "other"
    outside.mkdir()
    (outside / ".claude").symlink_to(tmp_path / "me" / ".claude")
    for paths in ([tmp_path / "me"], [tmp_path], [tmp_path / "me", outside]):
        sessions, unavailable = sessions_under(paths, AGENTS)
        assert [s.agent for s in sessions] == ["claude-code"], paths
        assert unavailable == [], paths


def test_a_claude_link_in_a_loop_is_followed_no_further(tmp_path: Path) -> None:
    """A .claude that leads back to the folder that holds it, or to one above it, ends: the
    folder is read once, and a link to a folder above the one given is said, not followed."""
    home = tmp_path / "me"
    _claude_folder(home / ".claude")
    (home / ".claude" / "projects" / ".claude").symlink_to(home / ".claude")
    deep = home / "a" / "b"
    deep.mkdir(parents=True)
    (deep / ".claude").symlink_to(home)
    shutil.copy(ROLLOUT, deep)
    sessions, unavailable = sessions_under([home], AGENTS)
    assert sorted(s.agent for s in sessions) == ["claude-code", "codex"]
    assert unavailable == []
    sessions, unavailable = sessions_under([deep], AGENTS)
    assert [s.agent for s in sessions] == ["codex"]
    assert [(u.path, u.reason) for u in unavailable] == [
        (
            str(deep / ".claude"),
            f"a link to {home}, a folder that holds it: not followed (give its target as a "
            "PATH to read it)",
        )
    ]


def test_replaying_a_linked_history_writes_nothing_there_and_exits_0(tmp_path: Path) -> None:
    _claude_folder(tmp_path / "dotfiles" / "claude")
    home = tmp_path / "me"
    home.mkdir()
    (home / ".claude").symlink_to(tmp_path / "dotfiles" / "claude")
    before = _tree(tmp_path / "dotfiles"), _tree(home)
    env = {"PROCTOR_CACHE_DIR": str(tmp_path / "cache")}
    result = CliRunner().invoke(cli, ["history", str(home), "--json"], env=env)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["total"]["sessions"] == 1
    assert (_tree(tmp_path / "dotfiles"), _tree(home)) == before


def test_a_copy_of_a_claude_folder_under_another_name_is_read_as_claude_code_s(
    tmp_path: Path,
) -> None:
    """claude-backup/ (or a CLAUDE_CONFIG_DIR of any name) in the folder given: its sessions
    are read, its plugins' test fixtures are none."""
    given = tmp_path / "saved"
    session = _claude_folder(given / "claude-backup")
    shutil.copy(ROLLOUT, given / "claude-backup")  # a session beside its projects/: read
    (given / "claude-backup" / ".codex" / "sessions").mkdir(parents=True)
    shutil.copy(OTHER_ROLLOUT, given / "claude-backup" / ".codex" / "sessions")  # a .codex
    for path in (given, tmp_path):
        sessions, unavailable = sessions_under([path], AGENTS)
        assert sorted(s.file for s in sessions) == sorted(
            [
                str(given / "claude-backup" / ".codex" / "sessions" / OTHER_ROLLOUT.name),
                str(given / "claude-backup" / ROLLOUT.name),
                str(session),
            ]
        ), path
        assert unavailable == [], path


def test_control_a_folder_with_a_projects_folder_and_nothing_claude_keeps_is_searched_whole(
    tmp_path: Path,
) -> None:
    """No settings.json, plugins/ or the like beside projects/: no CLI's folder, searched whole."""
    given = tmp_path / "saved"
    _claude_folder(given / "backup")
    (given / "backup" / "settings.json").unlink()
    shutil.move(given / "backup" / "plugins", given / "backup" / "kept")
    sessions, unavailable = sessions_under([given], AGENTS)
    assert sorted(s.agent for s in sessions) == ["claude-code", "codex"]
    assert unavailable == []


def test_a_claude_folder_with_an_empty_projects_and_nothing_else_claude_keeps_is_searched_whole(
    tmp_path: Path,
) -> None:
    """Claude Code keeps its sessions in projects/ only: a .claude whose projects/ is empty,
    with none of what Claude Code keeps beside it (todos/, history.jsonl…), is a copy or a
    repository's folder, searched whole, given or met in the folder given."""
    claude = tmp_path / "repo" / ".claude"
    (claude / "projects").mkdir(parents=True)
    (claude / "kept").mkdir()
    shutil.copy(CLAUDE, claude / "kept")
    for path in (claude, tmp_path / "repo"):
        sessions, unavailable = sessions_under([path], AGENTS)
        assert [s.file for s in sessions] == [str(claude / "kept" / CLAUDE.name)], path
        assert unavailable == [], path
    # ~/.claude before its first session (todos/ beside the empty projects/): the folders
    # Claude Code keeps there (todos/, plugins/…) hold none of its sessions, and are not
    # searched; any other folder is.
    _kept_in(claude / "todos")
    sessions, unavailable = sessions_under([claude], AGENTS)
    assert [s.file for s in sessions] == [str(claude / "kept" / CLAUDE.name)]
    assert unavailable == []
    shutil.rmtree(claude / "kept")
    sessions, unavailable = sessions_under([claude], AGENTS)
    assert sessions == []
    assert [(u.path, u.reason) for u in unavailable] == [(str(claude), "no session transcript")]


def _kept_in(folder: Path) -> Path:
    """A session file that is none of the user's (a Codex rollout as a plugin's test fixture)
    in ``folder``, a folder a CLI keeps beside its sessions. Its path."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(OTHER_ROLLOUT, folder / "fixture.jsonl")
    return folder / "fixture.jsonl"


def test_a_session_in_a_folder_with_an_app_s_settings_and_projects_is_read(
    tmp_path: Path,
) -> None:
    """A folder of an app's settings.json and its data in projects/<name>/events.jsonl (no
    Claude Code record) is no Claude Code folder: a session kept in another of its folders is
    read, met in the folder given or given itself, never lost without a word."""
    work = tmp_path / "me" / "work"
    (work / "projects" / "app").mkdir(parents=True)
    (work / "projects" / "app" / "events.jsonl").write_text('{"event": "click"}\n')
    (work / "settings.json").write_text('{"editor": "x"}')
    (work / "transcripts").mkdir()
    shutil.copy(CLAUDE, work / "transcripts")
    session = str(work / "transcripts" / CLAUDE.name)
    sessions, unavailable = sessions_under([tmp_path / "me"], AGENTS)
    assert [s.file for s in sessions] == [session]
    assert unavailable == []
    # Given itself, its projects/ is read as Claude Code's (the replay says why events.jsonl
    # is no session) and the rest of it as any folder.
    sessions, _ = sessions_under([work], AGENTS)
    assert session in [s.file for s in sessions]


def test_a_backup_of_claude_code_s_folder_reads_the_other_sessions_it_holds(
    tmp_path: Path,
) -> None:
    """A backup of ~/.claude under another name (projects/, history.jsonl) with Codex's
    rollouts saved beside in codex/: both CLIs' sessions are read."""
    logs = tmp_path / "me" / "agent-logs"
    (logs / "projects" / "-work-app").mkdir(parents=True)
    shutil.copy(CLAUDE, logs / "projects" / "-work-app")
    (logs / "history.jsonl").write_text('{"display": "hi", "timestamp": 1}\n')
    (logs / "codex").mkdir()
    shutil.copy(ROLLOUT, logs / "codex")
    expected = [
        str(logs / "codex" / ROLLOUT.name),
        str(logs / "projects" / "-work-app" / CLAUDE.name),
    ]
    for path in (tmp_path / "me", logs):
        sessions, unavailable = sessions_under([path], AGENTS)
        assert sorted(s.file for s in sessions) == expected, path
        assert unavailable == [], path


def test_a_cli_s_own_folder_skips_what_the_cli_keeps_and_searches_the_rest(
    tmp_path: Path,
) -> None:
    """In a CLI's own folder, given or met (named as the CLI names it or not), the folders the
    CLI keeps beside its sessions (plugins/, todos/, file-history/, log/…) are not searched;
    any other folder (saved/) is, as any folder is, and so is a plugins/ deeper in it."""
    claude = tmp_path / "me" / ".claude"
    session = _claude_folder(claude)
    for kept in ("todos", "file-history", "shell-snapshots", "skills", "local"):
        _kept_in(claude / kept / "x")
    saved = _kept_in(claude / "saved" / "plugins")  # the user's own folder: read
    backup = tmp_path / "me" / "claude-backup"
    shutil.copytree(claude, backup)
    codex = tmp_path / "me" / "codex-home"
    (codex / "sessions" / "2026" / "12" / "01").mkdir(parents=True)
    shutil.copy(ROLLOUT, codex / "sessions" / "2026" / "12" / "01")
    (codex / "config.toml").write_text("")
    for kept in ("log", "skills", "worktrees"):
        (codex / kept).mkdir()
        shutil.copy(CLAUDE, codex / kept)
    (codex / "old").mkdir()
    shutil.copy(CLAUDE, codex / "old")
    mine = [str(session), str(saved)]
    for path in (claude, backup):
        sessions, unavailable = sessions_under([path], AGENTS)
        here = [file.replace(str(claude), str(path)) for file in mine]
        assert sorted(s.file for s in sessions) == sorted(here), path
        assert unavailable == [], path
    sessions, unavailable = sessions_under([codex], AGENTS)
    assert sorted(s.file for s in sessions) == [
        str(codex / "old" / CLAUDE.name),
        str(codex / "sessions" / "2026" / "12" / "01" / ROLLOUT.name),
    ]
    # All together (a copy read once, see copies.py): none from a folder kept.
    sessions, unavailable = sessions_under([tmp_path / "me"], AGENTS)
    assert unavailable == []
    for session in sessions:
        folder = Path(session.file).relative_to(tmp_path / "me").parts[1]
        assert folder in ("projects", "saved", "sessions", "old"), session


# Folders each CLI's own release writes beside its sessions, none holding one (the evidence is
# noted in KEPT_FOLDERS).
RELEASE_KEPT = {
    ".claude": (
        "jobs",
        "workflows",
        "routines",
        "uploads",
        "shares",
        "agent-memory",
        "mcp-skill-archives",
    ),
    ".codex": ("generated_images", "attachments", "themes", "agents", "hooks", "packages"),
    ".gemini": ("bin", "whisper_models", "acknowledgments"),
}


def test_what_each_cli_keeps_beside_its_sessions_is_not_searched_and_a_folder_of_yours_is(
    tmp_path: Path,
) -> None:
    """In ``~/.claude``, ``~/.codex`` and ``~/.gemini``, the folders each CLI writes beside its
    sessions (a background job's scratch files, generated images, a voice model…) are not
    searched: a session file there (a job's copy of a rollout) is none of the user's. A session
    saved in a folder of another name beside them (``saved/``, ``logs/``) is read."""
    home = tmp_path / "me"
    claude = _claude_folder(home / ".claude")
    codex = home / ".codex" / "sessions" / "2026" / "12" / "01"
    codex.mkdir(parents=True)
    shutil.copy(ROLLOUT, codex)
    chats = home / ".gemini" / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True)
    shutil.copy(GEMINI, chats)
    (home / ".gemini" / "settings.json").write_text("{}")
    mine = [claude, codex / ROLLOUT.name, chats / GEMINI.name]
    for own, kept in RELEASE_KEPT.items():
        for name in kept:
            _kept_in(home / own / name / "x")
        mine.append(_saved_in(home / own / "saved"))
        mine.append(_saved_in(home / own / "logs"))
    for path in [home, *(home / own for own in RELEASE_KEPT)]:
        sessions, unavailable = sessions_under([path], AGENTS)
        expected = sorted(str(file) for file in mine if path in file.parents)
        assert sorted(s.file for s in sessions) == expected, path
        assert unavailable == [], path


def _saved_in(folder: Path) -> Path:
    """A session of the user's (Claude Code's) saved in ``folder`` under a name of the user's
    (a copy under its id would be read once, wherever it is). Its path."""
    folder.mkdir(parents=True)
    saved = folder / f"{folder.parent.name}-{folder.name}.jsonl"
    shutil.copy(CLAUDE, saved)
    return saved


def test_replaying_a_folder_with_sessions_beside_an_app_s_projects_counts_them(
    tmp_path: Path,
) -> None:
    """`proctor history --json` of a home folder with the backup above: both sessions."""
    logs = tmp_path / "me" / "agent-logs"
    (logs / "projects" / "-work-app").mkdir(parents=True)
    shutil.copy(CLAUDE, logs / "projects" / "-work-app")
    (logs / "history.jsonl").write_text('{"display": "hi", "timestamp": 1}\n')
    (logs / "codex").mkdir()
    shutil.copy(ROLLOUT, logs / "codex")
    before = _tree(tmp_path / "me")
    env = {"PROCTOR_CACHE_DIR": str(tmp_path / "cache")}
    result = CliRunner().invoke(cli, ["history", str(tmp_path / "me"), "--json"], env=env)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["total"]["sessions"] == 2
    assert report["unavailable"] == []
    assert _tree(tmp_path / "me") == before


def test_a_version_control_store_or_installed_packages_are_searched_nowhere(
    tmp_path: Path,
) -> None:
    """A ``~/.claude`` kept in a dotfiles repository holds a ``.git`` of thousands of objects,
    and a folder given may hold ``node_modules``: no session is kept there, so neither is
    listed (a copy of a session in them is not read), in a CLI's own folder or any other;
    the sessions beside them are."""
    claude = tmp_path / "me" / ".claude"
    session = _claude_folder(claude)
    plain = tmp_path / "me" / "work"
    plain.mkdir()
    shutil.copy(CLAUDE, plain / "kept.jsonl")
    for folder in (claude, plain):
        for store in (".git", ".hg", ".svn", "node_modules"):
            _kept_in(folder / store / "objects")
    for given in ([claude], [tmp_path / "me"], [plain]):
        sessions, unavailable = sessions_under(given, AGENTS)
        files = {s.file for s in sessions}
        assert all(
            not set(Path(f).parts) & {".git", ".hg", ".svn", "node_modules"} for f in files
        ), files
        assert unavailable == [], given
    assert {s.file for s in sessions_under([tmp_path / "me"], AGENTS)[0]} >= {
        str(session),
        str(plain / "kept.jsonl"),
    }
