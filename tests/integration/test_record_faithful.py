"""``proctor record`` keeps what the session did as a trial would: the links it planted in its
workspace diff, the transcript of the agent that ran it (never another CLI's file of a folder
read as its own), and the case as the run's source whatever folder it is recorded from."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import Run
from tests.integration.test_by_hand import CASE

CORPUS = Path(__file__).parents[1] / "corpus"
CLAUDE = CORPUS / "claude-code-2.1.197-basic.transcript.jsonl"
CODEX = CORPUS / "codex-0.171.0-basic.transcript.jsonl"


def _prepared(proctor: Run, out: Path) -> Path:
    done = proctor("prepare", str(CASE), "--agent", "claude-code", "--out", str(out))
    assert done.code == 0, done.err
    return Path(json.loads(done.out)["workingDirectory"])


def test_a_link_the_session_planted_is_in_the_workspace_diff(proctor: Run, tmp_path: Path) -> None:
    """A trial's ``workspace.diff`` shows a symlink the agent made, as git does (mode 120000,
    its target its content); a recorded session's left it out."""
    out = tmp_path / "results"
    workspace = _prepared(proctor, out)
    (workspace / "b.txt").write_text("b\n")
    (workspace / "passwords").symlink_to("/etc/passwd")
    done = proctor(
        "record", str(CASE), "--workspace", str(workspace), "--out", str(out),
        "--transcript", str(CLAUDE),
    )  # fmt: skip
    assert done.code == 0, done.err
    (diff,) = out.glob("run-*/trials/add-b/claude-code/default/1/workspace.diff")
    text = diff.read_text()
    assert "diff --git a/b.txt b/b.txt\nnew file\n" in text
    assert (
        "diff --git a/passwords b/passwords\nnew file mode 120000\n--- /dev/null\n"
        "+++ b/passwords\n@@ -0,0 +1 @@\n+/etc/passwd\n\\ No newline at end of file\n"
    ) in text


@pytest.mark.parametrize("holds", ["codex", "unknown"])
def test_a_folder_without_the_agent_s_session_is_refused(
    proctor: Run, tmp_path: Path, holds: str
) -> None:
    """``--transcript FOLDER`` for a Claude Code session, the folder holding a Codex rollout
    (or a file of no CLI's), recorded that file read as Claude Code's: no step, no token, and
    every record unknown. It is refused, exit 2, naming what the folder holds."""
    folder = tmp_path / "sessions"
    folder.mkdir()
    if holds == "codex":
        (folder / CODEX.name).write_bytes(CODEX.read_bytes())
    else:
        (folder / "notes.jsonl").write_text('{"note": 1}\n')
    workspace = tmp_path / "ws"
    workspace.mkdir()
    out = tmp_path / "results"
    done = proctor(
        "record", str(CASE), "--agent", "claude-code", "--workspace", str(workspace),
        "--transcript", str(folder), "--out", str(out),
    )  # fmt: skip
    assert done.code == 2, done.out
    assert done.err.count("\n") == 1, done.err
    if holds == "codex":
        assert (
            f"{folder}: no claude-code session transcript in this folder: it holds sessions "
            "of other agents only: 1 codex session"
        ) in done.err
    else:
        assert f"{folder / 'notes.jsonl'}: not a Claude Code, Codex or Gemini CLI" in done.err
    assert not out.exists()


def test_sessions_of_one_case_recorded_from_their_workspaces_are_one_suite(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Recorded from its workspace, as ``prepare``'s steps say, a session's run named that
    workspace its source: two sessions of one case read together were "of different suites"."""
    out = tmp_path / "results"
    for name in ("basic", "two-turns"):  # two sessions: one recorded twice is refused
        monkeypatch.chdir(tmp_path)
        workspace = _prepared(proctor, out)
        monkeypatch.chdir(workspace)
        done = proctor(
            "record", str(CASE), "--workspace", str(workspace), "--out", str(out),
            "--transcript", str(CORPUS / f"claude-code-2.1.197-{name}.transcript.jsonl"),
        )  # fmt: skip
        assert done.code == 1, done.err  # b.txt is missing
    runs = sorted(out.glob("run-*"))
    assert len(runs) == 2
    for run in runs:
        assert json.loads((run / "run.json").read_text())["source"] == os.path.realpath(CASE)
    report = proctor("report", *map(str, runs))
    assert "different suites" not in report.err + report.out
