"""The scratch folder each add-on suite runs user code in (an installer, hook commands, a
memory server, an advisor) is removed with the links in it removed, never followed.

The user code leaves ``ro/key`` (a link to a file outside) in a folder it made read-only. A
user other than root cannot unlink it there (simulated: the tests may run as root); Python's
``TemporaryDirectory.cleanup`` then ran ``chmod 0o700`` through the link, on the file outside
it leads to (Python before 3.11.8 and 3.12.2).

The user code's ``TMPDIR`` is a folder in that scratch, so the temporary files it leaves go with
it, never into the user's own ``TMPDIR`` or ``/tmp``."""

from __future__ import annotations

import json
import shlex
import stat
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CliResult, refuse_unlink

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "addons"

Run = Callable[..., CliResult]


def leave_link(outside: Path) -> str:
    """Shell lines that leave ``$HOME/ro/key -> outside`` in a read-only ``$HOME/ro``."""
    return (
        f'mkdir -p "$HOME/ro" && ln -sf {shlex.quote(str(outside))} "$HOME/ro/key" '
        '&& chmod 500 "$HOME/ro"'
    )


def hooks(tmp: Path, line: str) -> list[str]:
    plugin = tmp / "plugin"
    (plugin / "hooks").mkdir(parents=True)
    command = {"type": "command", "command": f"{line}; echo ok"}
    table = {"PreToolUse": [{"matcher": "Read", "hooks": [command]}]}
    (plugin / "hooks" / "hooks.json").write_text(json.dumps({"hooks": table}))
    case = {"id": "c1", "event": "PreToolUse", "tool": "Read", "input": {"file_path": "a"}}
    cases = tmp / "cases.json"
    cases.write_text(json.dumps({"cases": [{**case, "expect": {"exitCode": 0}}]}))
    return ["hooks", "test", str(plugin), "--cases", str(cases)]


def check_install(tmp: Path, line: str) -> list[str]:
    return ["addon", "check-install", "--install", line, "--agent", "claude-code"]


def memory_eval(tmp: Path, line: str) -> list[str]:
    server = tmp / "server.sh"
    program = shlex.join([sys.executable, str(EXAMPLES / "memory" / "memory_server.py")])
    server.write_text(f"#!/bin/sh\n{line}\nexec {program}\n")
    server.chmod(0o755)
    adapter = EXAMPLES / "memory" / "reference.adapter.toml"
    dataset = EXAMPLES / "memory" / "dataset.json"
    return [
        "memory-eval",
        "--dataset",
        str(dataset),
        "--adapter",
        str(adapter),
        "--mcp",
        str(server),
    ]


def grounding(tmp: Path, line: str) -> list[str]:
    checkpoints = EXAMPLES / "advisor" / "checkpoints.json"
    advisor = f"{line}; cat >/dev/null; echo 'Cut the retries.'"
    return ["grounding", "--advisor", advisor, "--checkpoints", str(checkpoints)]


@pytest.mark.parametrize("command", [hooks, check_install, memory_eval, grounding])
def test_the_scratch_is_removed_without_following_a_link_out_of_it(
    command: Callable[[Path, str], list[str]],
    proctor: Run,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    outside = tmp_path / "key"
    outside.write_text("secret")
    outside.chmod(0o400)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    monkeypatch.chdir(tmp_path)
    args = command(tmp_path, leave_link(outside))
    refused = refuse_unlink(monkeypatch, "key")  # the first try, as a user's would be
    result = proctor(*args)
    assert result.code == 0, result.out + result.err
    assert refused, "the user code left no link"
    assert stat.S_IMODE(outside.stat().st_mode) == 0o400
    assert outside.read_text() == "secret"
    assert list(temporary.iterdir()) == []


def leave_temporary_file(seen: Path) -> str:
    """Shell lines that note ``$TMPDIR`` in ``seen`` and leave a file in it (none when it is
    not set: ``${TMPDIR:?}`` stops the program rather than write to ``/x``)."""
    quoted = shlex.quote(str(seen))
    return (
        f'printf "%s\\n" "$TMPDIR" >> {quoted}; mkdir -p "${{TMPDIR:?}}/x" && touch "$TMPDIR/x/y"'
    )


@pytest.mark.parametrize("command", [hooks, check_install, memory_eval, grounding])
def test_a_program_s_temporary_files_go_with_the_scratch_not_the_user_s_tmpdir(
    command: Callable[[Path, str], list[str]],
    proctor: Run,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    temporary = tmp_path / "tmp"  # where proctor makes its scratch folders
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    users = tmp_path / "user-tmp"  # the user's TMPDIR, as a program would see it
    users.mkdir()
    monkeypatch.setenv("TMPDIR", str(users))
    monkeypatch.chdir(tmp_path)
    seen = tmp_path / "seen"
    result = proctor(*command(tmp_path, leave_temporary_file(seen)))
    assert result.code == 0, result.out + result.err
    folders = seen.read_text().split()
    assert folders, "the program did not run"
    for folder in folders:
        assert Path(folder).is_relative_to(temporary), folder
    assert list(users.iterdir()) == []
    assert list(temporary.iterdir()) == []
