"""``proctor record`` given what people get wrong: the session recorded twice, the case's
prompt edited after the session was prepared, the prepared session's folder for its
workspace, another CLI run than the one prepared, no CLI run at all. Each is one sentence,
exit 2, and nothing is recorded. And what a recording takes from the transcript."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import Run
from tests.integration.test_by_hand import CASE, prepared_and_driven


def _record(proctor: Run, case: Path, workspace: Path, out: Path) -> tuple[int, str]:
    done = proctor("record", str(case), "--workspace", str(workspace), "--out", str(out))
    return done.code, done.err


def test_a_session_is_recorded_once(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Recorded twice (into the same results or another), a session would count twice; its
    first run folder removed, it may be recorded anew."""
    session, out = prepared_and_driven(proctor, tmp_path, monkeypatch)
    workspace = Path(session["workingDirectory"])
    assert _record(proctor, CASE, workspace, out)[0] == 0
    (first,) = out.glob("run-*")
    for where in (out, tmp_path / "elsewhere"):
        code, err = _record(proctor, CASE, workspace, where)
        assert code == 2, err
        assert err.count("\n") == 1
        assert f"this session was recorded already, in {first}; prepare a new session" in err
    assert [p.name for p in out.glob("run-*")] == [first.name]
    assert not (tmp_path / "elsewhere").exists()
    shutil.rmtree(first)
    assert _record(proctor, CASE, workspace, out)[0] == 0


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_session_recorded_already_in_the_results_folder_is_refused_by_record(
    proctor: Run, tmp_path: Path
) -> None:
    """A session recorded from a folder ``prepare`` did not make (or its transcript given
    again from another workspace, or for another prepared session) made a second run folder
    of it: only ``proctor report`` of the two runs refused them, the results folder counting
    the session twice meanwhile. ``record`` refuses it, exit 2, naming the transcript and the
    earlier record, and writes nothing: the earlier run folder and the prepared session are
    left as they were. Its run folder removed, the session is recorded anew."""
    from tests.integration.test_record_faithful import CLAUDE

    sid = "f7bdf948-f704-420e-a2dc-ec406924e678"  # the session the transcript holds
    out = tmp_path / "results"
    workspace = tmp_path / "ws"
    workspace.mkdir()
    again = proctor("prepare", str(CASE), "--out", str(out)).json()["workingDirectory"]

    def record(folder: Path) -> tuple[int, str]:
        done = proctor(
            "record", str(CASE), "--workspace", str(folder), "--out", str(out),
            "--transcript", str(CLAUDE),
        )  # fmt: skip
        return done.code, done.err

    assert record(workspace)[0] == 1  # b.txt is missing
    (first,) = out.glob("run-*")
    kept, prepared = _tree(out), _tree(Path(again).parent)
    for folder in (workspace, tmp_path / "elsewhere", Path(again)):
        folder.mkdir(exist_ok=True)
        code, err = record(folder)
        assert code == 2, err
        assert err.count("\n") == 1, err
        assert (
            f"the transcript {CLAUDE} is of session {sid}, recorded already in {first} "
            "(trials/add-b/claude-code/default/1/trial.json): a second trial of it would count "
            "twice; record another session, or remove that run folder to record this one anew"
        ) in err
        assert _tree(out) == kept and _tree(Path(again).parent) == prepared
    shutil.rmtree(first)
    assert record(workspace)[0] == 1
    (second,) = out.glob("run-*")
    assert json.loads(next(second.glob(TRIAL)).read_text())["sessionId"] == sid


TRIAL = "trials/*/*/*/*/trial.json"


def test_a_session_is_not_recorded_under_a_prompt_edited_since_it_was_prepared(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = tmp_path / "cases" / "add-b"
    shutil.copytree(CASE, case)
    config_dir = tmp_path / "home" / ".claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config_dir))
    out = tmp_path / "results"
    prepared = proctor("prepare", str(case), "--out", str(out))
    assert prepared.code == 0, prepared.err
    workspace = Path(prepared.json()["workingDirectory"])
    from tests.integration.test_by_hand import drive_by_hand

    handed = (workspace.parent / "prompt.md").read_text()
    drive_by_hand(workspace, handed.strip(), config_dir, tmp_path / "steps.json")
    original = (case / "prompt.md").read_text()
    (case / "prompt.md").write_text(original + "Also say hello.\n")
    code, err = _record(proctor, case, workspace, out)
    assert code == 2, err
    assert "the case's prompt changed since the session was prepared" in err
    assert str(workspace.parent / "prompt.md") in err
    assert not list(out.glob("run-*"))
    assert (workspace.parent / "prompt.md").read_text() == handed  # the person's copy kept
    (case / "prompt.md").write_text(original)  # put back: recorded
    assert _record(proctor, case, workspace, out)[0] == 0


def test_record_names_the_workspace_of_a_prepared_session_s_folder(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session, out = prepared_and_driven(proctor, tmp_path, monkeypatch)
    workspace = Path(session["workingDirectory"])
    code, err = _record(proctor, CASE, workspace.parent, out)
    assert code == 2, err
    assert "a prepared session's folder, not its workspace; give --workspace" in err
    assert err.rstrip().endswith(str(workspace))
    assert not list(out.glob("run-*"))


def _codex_rollout(codex_home: Path, cwd: Path) -> None:
    folder = codex_home / "sessions" / "2026" / "12" / "06"
    folder.mkdir(parents=True)
    sid = "01a24c62-4b71-7270-a6e1-eb3a73252393"
    meta = {"id": sid, "timestamp": "2026-12-06T17:23:59Z", "cwd": str(cwd), "cli_version": "1"}
    lines = [{"timestamp": "2026-12-06T17:24:00Z", "type": "session_meta", "payload": meta}]
    (folder / f"rollout-2026-12-06T17-23-59-{sid}.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines)
    )


def test_record_says_another_cli_ran_in_the_workspace_or_none_did(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "pass --transcript PATH" alone sent the person to give the Codex rollout, which is then
    refused as no Claude Code session; and a session never run was told as one misplaced."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "gemini"))
    out = tmp_path / "results"
    prepared = proctor("prepare", str(CASE), "--out", str(out))
    workspace = Path(prepared.json()["workingDirectory"])
    code, err = _record(proctor, CASE, workspace, out)
    assert code == 2, err
    assert f"no claude-code session found for {workspace} in its history: start `claude`" in err
    _codex_rollout(tmp_path / "codex", workspace)
    code, err = _record(proctor, CASE, workspace, out)
    assert code == 2, err
    assert "but a codex session ran there; the session was prepared for claude-code: " in err
    assert "prepare one for codex" in err
    mine = tmp_path / "mine"  # a folder prepare did not make: it may be recorded as codex's
    mine.mkdir()
    _codex_rollout(tmp_path / "codex" / "other", mine)
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex" / "other"))
    code, err = _record(proctor, CASE, mine, out)
    assert code == 2 and "a codex session ran there; record it with --agent codex" in err
    assert not list(out.glob("run-*"))


def test_a_recorded_session_names_the_cli_version_its_transcript_gives(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A trial proctor runs names the version of the CLI it ran; a recorded one was left
    without, though its transcript names it (as ``proctor parse`` shows)."""
    session, out = prepared_and_driven(proctor, tmp_path, monkeypatch)
    workspace = Path(session["workingDirectory"])
    (transcript,) = (tmp_path / "home" / ".claude" / "projects").glob("*/*.jsonl")
    lines = [json.loads(line) for line in transcript.read_text().splitlines() if line.strip()]
    transcript.write_text("".join(json.dumps({**r, "version": "2.1.197"}) + "\n" for r in lines))
    assert _record(proctor, CASE, workspace, out)[0] == 0
    (trial,) = out.glob("run-*/trials/add-b/claude-code/default/1/trial.json")
    assert json.loads(trial.read_text())["agentVersion"] == "2.1.197"


def test_a_file_given_for_the_workspace_is_one_sentence_of_proctor_s(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a missing folder is said (``--workspace PATH: no such folder``); click's wording was
    ``Invalid value for '--workspace': Directory 'afile' is a file``."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("")
    code, err = _record(proctor, CASE, Path("afile"), tmp_path / "results")
    assert code == 2
    assert err == f"proctor: error: --workspace {tmp_path / 'afile'}: a file, not a folder\n"
    assert not (tmp_path / "results").exists()


def test_the_scripted_agents_session_is_found_where_it_writes_it(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``record --agent scripted`` without --transcript was a KeyError: its session is looked
    for where its program writes it, Claude Code's history, and a Claude Code session that ran
    there is not taken for it; an agent that keeps no history (an ACP agent) is asked for its
    transcript. Each refusal is one sentence, exit 2."""
    from tests.integration.test_by_hand import drive_by_hand

    config_dir = tmp_path / "home" / ".claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config_dir))
    out = tmp_path / "results"
    prepared = proctor("prepare", str(CASE), "--agent", "scripted", "--out", str(out))
    assert prepared.code == 0, prepared.err
    workspace = Path(prepared.json()["workingDirectory"])
    code, err = _record(proctor, CASE, workspace, out)
    assert code == 2 and err.count("\n") == 1, err
    assert f"no session of the scripted agent found for {workspace} in Claude Code's" in err
    handed = (workspace.parent / "prompt.md").read_text().strip()
    drive_by_hand(workspace, handed, config_dir, tmp_path / "steps.json")
    (played,) = (config_dir / "projects").glob("*/*.jsonl")
    # A Claude Code session of the same folder, newer: not the scripted agent's.
    other = played.with_name("00000000-0000-4000-8000-000000000001.jsonl")
    text = played.read_text().replace('"entrypoint":"proctor-scripted"', '"entrypoint":"cli"')
    other.write_text(text.replace(played.stem, other.stem))
    code, err = _record(proctor, CASE, workspace, out)
    assert code == 0, err
    (trial,) = out.glob("run-*/trials/add-b/scripted/default/1/trial.json")
    assert json.loads(trial.read_text())["sessionId"] == played.stem
    plain = tmp_path / "plain"
    plain.mkdir()
    acp = proctor(
        "record", str(CASE), "--workspace", str(plain), "--agent", "acp:claude", "--out", str(out)
    )
    assert acp.code == 2 and acp.err.count("\n") == 1, acp.err
    assert "--agent acp:claude: an ACP agent keeps no history of its sessions" in acp.err
    assert "give its transcript with --transcript PATH" in acp.err
    config = tmp_path / "profiles.json"  # a profile's sessions: in its CLI's history
    config.write_text(json.dumps({"codingagents": {"mine": {"agent": "claude-code"}}}))
    mine = proctor(
        "record", str(CASE), "--workspace", str(plain), "--agent", "mine", "--config",
        str(config), "--out", str(out),
    )  # fmt: skip
    assert mine.code == 2 and mine.err.count("\n") == 1, mine.err
    assert f"no mine session found for {plain} in its history: start `claude`" in mine.err
