"""Where sessions are listed from: a history folder or a PATH that cannot be looked at is
unavailable with its reason, and every other one is still read."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from proctor.history import sources as sources_module
from proctor.history.layout import Session
from proctor.history.sources import find_sessions, sessions_under
from proctor.models.history import Unavailable
from tests.unit.history.planted import plant


def refuse_under(monkeypatch: pytest.MonkeyPatch, locked: Path, *names: str) -> None:
    """``Path.is_dir``, ``exists`` and ``is_file`` of anything under ``locked`` raise, as they
    do for a user who is not root when ``locked`` (or a folder above) is chmod 000."""
    for name in names or ("is_dir", "exists", "is_file"):
        real = getattr(Path, name)

        def probe(self: Path, *, _real=real) -> bool:  # type: ignore[no-untyped-def]
            if self == locked or locked in self.parents:
                raise PermissionError(13, "Permission denied", str(self))
            return bool(_real(self))

        monkeypatch.setattr(Path, name, probe)


def test_a_history_folder_that_cannot_be_entered_is_unavailable_and_the_others_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    plant(home / ".claude")
    (home / ".codex" / "sessions").mkdir(parents=True)
    refuse_under(monkeypatch, home / ".codex", "is_dir")
    sessions, unavailable = find_sessions(["claude-code", "codex"], home, {})
    assert len(sessions) == 4  # Claude Code's are read all the same
    assert [(u.agent, u.path) for u in unavailable] == [("codex", str(home / ".codex"))]
    assert unavailable[0].reason == f"permission denied: {home / '.codex'}"


def test_control_the_same_history_entered_is_read(tmp_path: Path) -> None:
    home = tmp_path / "home"
    plant(home / ".claude")
    (home / ".codex" / "sessions").mkdir(parents=True)
    sessions, unavailable = find_sessions(["claude-code", "codex"], home, {})
    assert len(sessions) == 4 and unavailable == []


def test_a_gemini_project_folder_that_cannot_be_entered_is_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tmp = tmp_path / "home" / ".gemini" / "tmp"
    for project in ("locked", "open"):
        (tmp / project / "chats").mkdir(parents=True)
        (tmp / project / "chats" / "session-2026-12-01T10-00-aaaa.jsonl").write_text("{}\n")
    refuse_under(monkeypatch, tmp / "locked", "is_dir")
    sessions, unavailable = find_sessions(["gemini-cli"], tmp_path / "home", {})
    assert [s.path.parent.parent.name for s in sessions] == ["open"]
    assert [u.path for u in unavailable] == [str(tmp / "locked" / "chats")]
    assert unavailable[0].reason.startswith("permission denied: ")


def test_one_of_several_config_folders_failing_as_it_is_listed_loses_no_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    plant(first)
    plant(second)
    real = sources_module.agent_sessions

    def failing(agent: str, folder: Path, unreadable: object = None) -> Iterator[Session]:
        for session in real(agent, folder, unreadable):  # type: ignore[arg-type]
            if folder == first:
                raise OSError(5, "Input/output error", session.file)
            yield session

    monkeypatch.setattr(sources_module, "agent_sessions", failing)
    env = {"CLAUDE_CONFIG_DIR": f"{first},{second}"}
    sessions, unavailable = find_sessions(["claude-code"], None, env)
    assert len(sessions) == 4 and all(second in s.path.parents for s in sessions)
    assert [u.path for u in unavailable] == [str(first)]
    assert "cannot be read (Input/output error)" in unavailable[0].reason


def test_a_path_that_cannot_be_looked_at_is_unavailable_and_the_other_paths_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plant(tmp_path / "good" / ".claude")
    locked = tmp_path / "locked"
    (locked / "inner").mkdir(parents=True)
    refuse_under(monkeypatch, locked)
    paths = [locked / "inner", tmp_path / "good" / ".claude", locked]
    sessions, unavailable = sessions_under(paths, ["claude-code"])
    assert len(sessions) == 4
    assert [u.path for u in unavailable] == [str(locked / "inner"), str(locked)]
    for gone in unavailable:
        assert gone.reason == f"permission denied: {gone.path}: its sessions are left out"


def test_a_path_whose_history_layout_cannot_be_looked_at_loses_no_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plant(tmp_path / "good")
    locked = tmp_path / "locked"
    locked.mkdir()
    # The folder itself can be looked at, not what is in it (chmod 000 on ``locked``).
    real = Path.is_dir

    def is_dir(self: Path) -> bool:
        if locked in self.parents:
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "is_dir", is_dir)
    sessions, unavailable = sessions_under([locked, tmp_path / "good"], ["claude-code"])
    assert len(sessions) == 4
    assert unavailable == [
        Unavailable(
            path=str(locked),
            reason=f"permission denied: {locked / 'projects'}: its sessions are left out",
        )
    ]


def test_control_a_config_folder_whose_name_holds_a_comma_is_one_folder(tmp_path: Path) -> None:
    folder = tmp_path / "a,b"
    plant(folder)
    sessions, unavailable = find_sessions(["claude-code"], None, {"CLAUDE_CONFIG_DIR": str(folder)})
    assert len(sessions) == 4 and unavailable == []


@pytest.mark.parametrize("value", [",", " , ", " ", ",,"])
def test_a_config_dir_of_commas_and_spaces_names_no_folder(
    value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``CLAUDE_CONFIG_DIR=","``: said to name no folder, never read as a folder named ``,``
    ("no such folder: ,"); the other agents are still read, and the exit is 0, as for a
    history folder that is not there."""
    import json

    from click.testing import CliRunner

    from proctor.cli.main import cli

    monkeypatch.chdir(tmp_path)
    _, unavailable = find_sessions(["claude-code"], None, {"CLAUDE_CONFIG_DIR": value})
    reason = (
        f"set to {value!r}, which names no folder (only commas and spaces): set it to "
        "Claude Code's configuration folder (several separated by commas), or unset it to "
        "read ~/.claude"
    )
    assert unavailable == [
        Unavailable(agent="claude-code", path="$CLAUDE_CONFIG_DIR", reason=reason)
    ]
    env = {"CLAUDE_CONFIG_DIR": value, "HOME": str(tmp_path), "PROCTOR_DATA_DIR": str(tmp_path)}
    result = CliRunner().invoke(cli, ["history", "--json", "--no-cache"], env=env)
    assert result.exit_code == 0, result.output
    gone = json.loads(result.stdout)["unavailable"]
    assert gone[0] == {"agent": "claude-code", "path": "$CLAUDE_CONFIG_DIR", "reason": reason}
    assert [u["agent"] for u in gone[1:]] == ["codex", "gemini-cli"]  # still looked at


def test_each_config_folder_is_named_without_the_spaces_around_it(tmp_path: Path) -> None:
    """``CLAUDE_CONFIG_DIR=" /home/me/.claude "`` (a shell's stray spaces), alone or with a
    second folder: each folder without its spaces, as ccusage reads it."""
    plant(tmp_path / "a")
    for value in (f" {tmp_path / 'a'} ", f" {tmp_path / 'a'} , "):
        sessions, unavailable = find_sessions(["claude-code"], None, {"CLAUDE_CONFIG_DIR": value})
        assert len(sessions) == 4 and unavailable == []


def test_a_file_where_a_cli_keeps_its_history_folder_is_said_to_be_one(tmp_path: Path) -> None:
    (tmp_path / ".gemini").write_text("not a folder")
    _, unavailable = find_sessions(["gemini-cli", "codex"], tmp_path, {})
    reasons = {u.agent: u.reason for u in unavailable}
    assert reasons["gemini-cli"] == "not a folder: gemini-cli keeps no history there"
    assert reasons["codex"].startswith("no such folder: ")  # the control: none there


def test_a_file_where_a_cli_keeps_its_sessions_folder_is_said_to_be_one(tmp_path: Path) -> None:
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex" / "sessions").write_text("not a folder")
    (tmp_path / ".claude").mkdir()  # the control: no projects/ folder at all
    _, unavailable = find_sessions(["codex", "claude-code"], tmp_path, {})
    reasons = {u.agent: u.reason for u in unavailable}
    assert (
        reasons["codex"]
        == f"{tmp_path}/.codex/sessions is not a folder: codex keeps no session there"
    )
    assert reasons["claude-code"] == (
        "no projects/ folder in it: claude-code has recorded no session here; a history kept "
        "elsewhere is read when its folder is given as a PATH"
    )


@pytest.mark.parametrize(
    ("agent", "variable"),
    [
        ("claude-code", "CLAUDE_CONFIG_DIR set to its folder"),
        ("codex", "CODEX_HOME set to its folder"),
        ("gemini-cli", "GEMINI_CLI_HOME set to the folder that holds its .gemini"),
    ],
)
def test_a_missing_history_folder_says_where_else_it_is_read_from(
    agent: str, variable: str, tmp_path: Path
) -> None:
    """A history folder that is not there is said once (the line names it: its reason does
    not again) with the next step: the variable that moves the CLI's history, or a PATH; under
    ``--home``, which no variable moves, the PATH alone."""
    _, unavailable = find_sessions([agent], None, {"HOME": str(tmp_path)})
    assert [u.reason for u in unavailable] == [
        f"no such folder: {agent} has recorded no session here; a history kept elsewhere is "
        f"read with {variable}, or with its folder given as a PATH"
    ]
    assert str(tmp_path) not in unavailable[0].reason
    _, under_home = find_sessions([agent], tmp_path, {})
    assert [u.reason for u in under_home] == [
        f"no such folder: {agent} has recorded no session here; a history kept elsewhere is "
        "read when its folder is given as a PATH"
    ]


def test_a_plain_folders_sessions_come_in_the_order_their_paths_sort(tmp_path: Path) -> None:
    # Part by part, as Path objects sort: "a/z" before "a-b" ("a" is a prefix of "a-b"),
    # where the names as text would put "a-b" first ("-" sorts before "/").
    line = '{"type":"user","sessionId":"s","cwd":"/w","message":{"role":"user","content":"hi"}}\n'
    names = ["a/z.jsonl", "a-b.jsonl", "a.b/c.jsonl", "a/b/c.jsonl", "A.jsonl", "a b.jsonl"]
    # Parts, read with their sessions, are left out wherever they sort.
    parts = ["a/agent-1.jsonl", "x/tool-results/t.json", "chats/p/sub.json", "a/s.meta.json"]
    for name in names + parts:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(line)
    sessions, unavailable = sessions_under([tmp_path], ["claude-code"])
    assert unavailable == []
    found = [Path(s.file).relative_to(tmp_path) for s in sessions]
    assert found == sorted(Path(name) for name in names)
    assert [str(p) for p in found] != sorted(names)  # (the text's order differs)


@pytest.mark.parametrize(
    ("agent", "variable", "to"),
    [
        ("claude-code", "CLAUDE_CONFIG_DIR", "its folder"),
        ("codex", "CODEX_HOME", "its folder"),
        ("gemini-cli", "GEMINI_CLI_HOME", "the folder that holds its .gemini"),
    ],
)
def test_a_missing_history_folder_its_variable_named_is_not_advised_to_set_it(
    agent: str, variable: str, to: str, tmp_path: Path
) -> None:
    """``CODEX_HOME=/x`` with no /x: the next step does not advise setting CODEX_HOME as if it
    were not, when it led to the folder looked in: it says so, and to set it elsewhere."""
    env = {"HOME": str(tmp_path), variable: str(tmp_path / "moved")}
    _, unavailable = find_sessions([agent], None, env)
    assert [u.reason for u in unavailable] == [
        f"no such folder: {agent} has recorded no session here; {variable}, as set, leads "
        f"here: a history kept elsewhere is read with {variable} set to {to} instead, or with "
        "its folder given as a PATH"
    ]
