"""What ``proctor record`` says in the trial of a transcript that may not be the session of
its workspace, or not the whole session: one that ran in another folder (a workspace moved
since, or another folder's session), one whose last line is cut short (the CLI was still
writing it). Both are recorded, with a warning; ``proctor parse`` says the second too."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Run
from tests.integration.test_by_hand import CASE

CORPUS = Path(__file__).parents[1] / "corpus"
SESSIONS = [
    ("claude-code", "claude-code-2.1.197-basic", "/tmp/proctor-u1fdudjh/0/workspace"),
    ("codex", "codex-0.171.0-basic", "/tmp/proctor-aioarnny/0/workspace"),
    ("gemini-cli", "gemini-cli-0.61.0-basic", "/tmp/proctor-j57clfyj/0/workspace"),
]
IDS = [agent for agent, _, _ in SESSIONS]
CUT = "its last line is cut short (the CLI was still writing it, or the file was copied"


def _record(
    proctor: Run, tmp_path: Path, agent: str, transcript: Path, workspace: Path
) -> dict[str, Any]:
    out = tmp_path / "results"
    args = ["record", str(CASE), "--agent", agent, "--workspace", str(workspace)]
    result = proctor(*args, "--transcript", str(transcript), "--out", str(out))
    assert result.code == 1, result.err  # recorded; b.txt is missing: the case fails
    (found,) = out.glob(f"run-*/trials/add-b/{agent}/default/1/trial.json")
    trial: dict[str, Any] = json.loads(found.read_text())
    return trial


def _moved(name: str, ran_in: str, workspace: Path, into: Path) -> Path:
    """The corpus session as if it had run in ``workspace`` (its folder, Gemini CLI's project
    hash, replaced)."""
    text = (CORPUS / f"{name}.transcript.jsonl").read_text()
    real = os.path.realpath(workspace)
    text = text.replace(ran_in, real)
    old, new = (hashlib.sha256(p.encode()).hexdigest() for p in (ran_in, real))
    path = into / f"{name}.jsonl"
    path.write_text(text.replace(old, new))
    return path


@pytest.mark.parametrize(("agent", "name", "ran_in"), SESSIONS, ids=IDS)
def test_a_transcript_of_another_folder_is_recorded_with_a_warning_naming_both(
    proctor: Run, tmp_path: Path, agent: str, name: str, ran_in: str
) -> None:
    """The session ran in ``ran_in`` (Claude Code's and Codex's ``cwd``, Gemini CLI's project
    hash and the folder its context names): recorded, as a workspace moved since the session
    is, with a warning naming both folders."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    trial = _record(proctor, tmp_path, agent, CORPUS / f"{name}.transcript.jsonl", workspace)
    (note,) = [w for w in trial["warnings"] if w.startswith("the transcript's session ran in")]
    assert note.startswith(
        f"the transcript's session ran in {ran_in}, not in the --workspace {workspace}: the "
        f"evaluators judged {workspace} (right if the workspace was moved"
    )
    assert not [w for w in trial["warnings"] if CUT in w]  # the whole file: not cut
    # The paths the session named in the folder it ran in are its workspace's files, so the
    # process metrics of a moved workspace are those of the session.
    context = trial["process"]["context"]
    assert context["filesRead"] == context["editedFiles"] == ["notes.txt"], context


@pytest.mark.parametrize(("agent", "name", "ran_in"), SESSIONS, ids=IDS)
def test_control_a_transcript_of_the_workspace_named_through_a_link_has_no_warning(
    proctor: Run, tmp_path: Path, agent: str, name: str, ran_in: str
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (tmp_path / "link").symlink_to(workspace)
    given = _moved(name, ran_in, workspace, tmp_path)
    trial = _record(proctor, tmp_path, agent, given, tmp_path / "link")
    assert not [w for w in trial.get("warnings", []) if "ran in" in w and "--workspace" in w]


@pytest.mark.parametrize(("agent", "name", "ran_in"), SESSIONS[:2], ids=IDS[:2])
def test_a_session_started_in_a_subfolder_of_the_workspace_has_no_warning(
    proctor: Run, tmp_path: Path, agent: str, name: str, ran_in: str
) -> None:
    """A session started in ``ws/sub`` was said to have run in another folder, "the
    transcript of another folder's session"."""
    workspace = tmp_path / "ws"
    (workspace / "sub").mkdir(parents=True)
    given = _moved(name, ran_in, workspace / "sub", tmp_path)
    trial = _record(proctor, tmp_path, agent, given, workspace)
    assert not [w for w in trial.get("warnings", []) if "ran in" in w and "--workspace" in w]


@pytest.mark.parametrize(("agent", "name", "ran_in"), SESSIONS, ids=IDS)
def test_a_transcript_whose_last_line_is_cut_short_is_said_incomplete(
    proctor: Run, tmp_path: Path, agent: str, name: str, ran_in: str
) -> None:
    """A copy made while the CLI was writing its last line: recorded (what it holds is the
    session so far) with a warning, and ``parse`` says so in one line; it said only
    ``coverage: … 1 unparsed``."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    data = _moved(name, ran_in, workspace, tmp_path).read_bytes().rstrip(b"\n")
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(data[: data.rfind(b"\n") + 40])
    trial = _record(proctor, tmp_path, agent, cut, workspace)
    assert trial["warnings"][-1] == (
        f"the transcript {cut}: {CUT} while it was): the session may have gone on after it"
    )
    parsed = proctor("parse", str(cut))
    assert parsed.code == 0, parsed.err
    assert (
        parsed.err
        == f"proctor: note: {cut}: {CUT} while it was): the session may have gone on after it\n"
    )
    assert proctor("parse", str(CORPUS / f"{name}.transcript.jsonl")).err == ""


@pytest.mark.parametrize(
    ("last", "cut"),
    [
        (b'{"type": "user", "message": {"content": "hel', True),
        (b'{"type": "user", "n": 12', True),
        (b"garbage, not JSON\n", False),
        (b'{"type": "user"}}\n', False),  # wrong before its end: not cut
        (b"", False),
    ],
)
def test_only_a_last_line_stopped_inside_its_record_is_said_cut(
    tmp_path: Path, last: bytes, cut: bool
) -> None:
    from proctor.transcripts.cut_short import last_line_cut

    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"type": "user", "message": {"content": "hi"}}\n' + last)
    assert last_line_cut(path) is cut


def _long_last_line(path: Path, length: int, inner_at: int | None = None) -> None:
    """A file whose last line, ``length`` bytes and no newline after it, is a record cut
    short (``{"type":"user","x":[1,1,…,"cut``); with ``inner_at``, an object begun and cut
    short itself (``{"y":[1,1,…,"cut``) starts that many bytes before the file's end, as a
    window of the file's end that begins there reads it. Written from a repeated block."""
    head, tail = b'{"type":"user","x":[', b'"cut'
    if inner_at is None:
        body = b"1," * ((length - len(head) - len(tail)) // 2)
        line = head + body + b" " * (length - len(head) - len(body) - len(tail)) + tail
    else:
        inner = b'{"y":['
        after = b"1," * ((inner_at - len(inner) - len(tail)) // 2)
        after += b" " * (inner_at - len(inner) - len(after) - len(tail))
        before = b"1," * ((length - inner_at - len(head)) // 2)
        before += b" " * (length - inner_at - len(head) - len(before))
        line = head + before + inner + after + tail
    assert len(line) == length
    path.write_bytes(b'{"type": "user", "message": {"content": "hi"}}\n' + line)


def test_a_last_line_as_long_as_what_is_read_is_judged(tmp_path: Path) -> None:
    """A last line of exactly LAST_LINE_MAX bytes was not judged (the newline before it was
    not read, so where it began was not seen); one byte longer, it is not judged."""
    from proctor.transcripts.cut_short import LAST_LINE_MAX, last_line_cut

    path = tmp_path / "t.jsonl"
    _long_last_line(path, LAST_LINE_MAX)
    assert last_line_cut(path) is True
    _long_last_line(path, LAST_LINE_MAX + 1)
    assert last_line_cut(path) is False


@pytest.mark.parametrize("off", [-1, 0, 1, 2])
def test_a_last_line_that_begins_before_what_is_read_is_not_judged(
    tmp_path: Path, off: int
) -> None:
    """The end read of a last line longer than LAST_LINE_MAX may begin with an object of its
    own, cut short (``{"y":[1,…,"cut``): it is not judged (no crash, not said cut), wherever
    around the window's start that object begins."""
    from proctor.transcripts.cut_short import LAST_LINE_MAX, last_line_cut

    path = tmp_path / "t.jsonl"
    _long_last_line(path, LAST_LINE_MAX + 100, inner_at=LAST_LINE_MAX + off)
    assert last_line_cut(path) is False
