"""The reader for a measure (``parse_claude_for_measure``) gives every session the measure the
full parse gives: over the Claude Code sessions of the fixtures, and over damaged copies of
them (fields of other types, fields and lines gone, lines moved, bytes that are not UTF-8)."""

from __future__ import annotations

import copy
import itertools
import json
import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from proctor.history import replay
from proctor.history.layout import Session
from proctor.history.parts import forget_listings
from proctor.history.readback import RESPONSES
from proctor.models.pricing import PriceTable
from proctor.models.trajectory import ToolResult
from proctor.transcripts.claude import parse_claude_session, parse_claude_session_plain
from proctor.transcripts.claude.background import polled_result
from proctor.transcripts.claude.measure import parse_claude_for_measure

ROOT = Path(__file__).resolve().parents[2]
SESSIONS = [
    ROOT / "fixtures/transcripts/claude/7f3c2a10-0000-4000-8000-000000000001.jsonl",
    ROOT / "fixtures/transcripts/claude-questions/8a4d3b20-0000-4000-8000-000000000002.jsonl",
    ROOT / "corpus/claude-code-2.1.197-basic.transcript.jsonl",
    ROOT / "corpus/claude-code-2.1.197-failures.transcript.jsonl",
    ROOT / "corpus/claude-code-2.1.197-two-turns.transcript.jsonl",
    ROOT / "fixtures/results-v1/example-suite/trials/ask-a-question/scripted/default/1"
    "/raw-transcript.jsonl",
    ROOT / "fixtures/results-v1/example-suite/trials/find-the-bug/scripted/baseline/1"
    "/raw-transcript.jsonl",
    ROOT / "fixtures/results-v1/example-suite/trials/fix-a-bug/scripted/default/1"
    "/raw-transcript.jsonl",
]
VALUES: list[Any] = [None, 0, 7, -1, 2.5, 2**70, "", "x", "<synthetic>", True, False, [], {}]
VALUES += [["a"], {"a": 1}, "2026-01-01T00:00:00Z", "tool_result", "text", "tool_use"]
VALUES += ["assistant", "user", "summary", "AskUserQuestion", "Skill", "Task", "Edit"]
FLAGS = ["isMeta", "isCompactSummary", "isApiErrorMessage", "isSidechain", "toolDenialKind"]
FLAGS += ["toolUseResult", "requestId", "cwd", "timestamp", "parentUuid", "uuid", "type"]
"""Record fields a damaged line may gain (or have changed)."""


def _measure(
    path: Path,
    reader: Any,
    monkeypatch: pytest.MonkeyPatch,
    inherited: frozenset[str] = frozenset(),
) -> Any:
    monkeypatch.setattr(
        replay,
        "_parse",
        lambda session, _project, copied: reader(session.path, replay.claude_parts(path), copied),
    )
    forget_listings()
    return replay.measure_session(Session("claude-code", path), None, PriceTable(), inherited)


def _both(
    path: Path, monkeypatch: pytest.MonkeyPatch, inherited: frozenset[str] = frozenset()
) -> tuple[Any, Any]:
    return (
        _measure(path, parse_claude_for_measure, monkeypatch, inherited),
        _measure(path, parse_claude_session_plain, monkeypatch, inherited),
    )


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.parent.name + "/" + p.name[:12])
def test_the_fixtures_measure_alike(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, full = _both(path, monkeypatch)
    assert isinstance(fast, bytes)
    assert fast == full


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.parent.name + "/" + p.name[:12])
def test_a_forks_copied_lines_are_left_out_alike(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lines a fork copied (by uuid: here the first half, as a fork's copy is the start of
    its file) give neither reader events nor tokens."""
    uuids = [
        record["uuid"]
        for line in path.read_bytes().splitlines()
        if line.strip()
        and isinstance(record := json.loads(line), dict)
        and isinstance(record.get("uuid"), str)
    ]
    inherited = frozenset(uuids[: len(uuids) // 2])
    fast, full = _both(path, monkeypatch, inherited)
    whole, _ = _both(path, monkeypatch)
    assert isinstance(fast, bytes) and fast == full
    assert inherited and fast != whole  # the control: the copy made a difference


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.parent.name + "/" + p.name[:12])
def test_a_line_written_again_counts_once(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each line written twice in place, then the whole file once more (a sync's or a hand
    edit's copies: Claude Code writes a uuid once a session) measures as the file does, for
    both readers: no call, result or step counts twice."""
    lines = [line for line in path.read_bytes().splitlines() if line.strip()]
    (tmp_path / "once").mkdir()
    (tmp_path / "twice").mkdir()
    (tmp_path / "once" / path.name).write_bytes(path.read_bytes())
    twice = tmp_path / "twice" / path.name
    twice.write_bytes(b"\n".join([x for line in lines for x in (line, line)] + lines) + b"\n")
    once, _ = _both(tmp_path / "once" / path.name, monkeypatch)
    fast, full = _both(twice, monkeypatch)
    assert isinstance(once, bytes)
    assert fast == full == once.replace(b"/once/", b"/twice/")
    tools = json.loads(once.split(RESPONSES)[0])["steps"]["toolCalls"]
    assert tools > 0  # the control: a session with calls, which a repeat would count again


def _paths(value: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a JSON value: keys and indexes from the top."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*at, key)
            yield from _paths(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield (*at, index)
            yield from _paths(item, (*at, index))


def _damaged_line(line: bytes, rng: random.Random) -> bytes:
    try:
        record = json.loads(line)
    except ValueError:  # damaged already
        return line
    if not isinstance(record, dict):
        return line
    places = list(_paths(record))
    if not places:
        return line
    if rng.random() < 0.3:
        record[rng.choice(FLAGS)] = copy.deepcopy(rng.choice([*VALUES, "User rejected tool use"]))
        return json.dumps(record).encode()
    for _ in range(rng.choice([1, 1, 2, 3])):
        place = rng.choice(places)
        holder = record
        for step in place[:-1]:
            holder = holder[step]
        if isinstance(holder, dict) and rng.random() < 0.2:
            holder.pop(place[-1], None)
        else:
            try:
                holder[place[-1]] = copy.deepcopy(rng.choice(VALUES))
            except (IndexError, KeyError, TypeError):
                pass
        places = list(_paths(record))
        if not places:
            break
    return json.dumps(record).encode()


def _damaged(lines: list[bytes], rng: random.Random) -> list[bytes]:
    lines = list(lines)
    for _ in range(rng.choice([1, 2, 4])):
        i = rng.randrange(len(lines))
        roll = rng.random()
        if roll < 0.6:
            lines[i] = _damaged_line(lines[i], rng)
        elif roll < 0.7:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]  # written before its parent
        elif roll < 0.75:
            del lines[i]
        elif roll < 0.8:
            lines.insert(i, lines[i])
        elif roll < 0.85:
            lines[i] = lines[i][: len(lines[i]) // 2]
        elif roll < 0.9:
            lines[i] = lines[i].replace(b'"', b'"\xff', 1)  # not UTF-8
        elif roll < 0.95:
            lines[i] = lines[i].replace(b"\\n", b"\\ud83d", 1)  # a lone surrogate
        else:
            lines[i] = b"[1, 2]"
        if not lines:
            break
    return lines


def _copy(main: Path, into: Path) -> tuple[Path, list[Path]]:
    """The session (and its subagent folder) copied under ``into``: its files to damage."""
    target = into / main.name
    shutil.copy(main, target)
    folder = main.parent / main.stem
    if folder.is_dir():
        shutil.copytree(folder, into / main.stem)
    return target, sorted((into / main.stem).rglob("*.jsonl"))


@pytest.mark.parametrize("seed", range(int(__import__("os").environ.get("SEEDS", "4"))))
def test_damaged_copies_measure_alike(
    seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    checked = 0
    for round_ in range(150):
        source = rng.choice(SESSIONS)
        folder = tmp_path / str(round_)
        folder.mkdir()
        main, parts = _copy(source, folder)
        for file in [main, *parts]:
            if file is main or rng.random() < 0.5:
                lines = [line for line in file.read_bytes().split(b"\n") if line]
                file.write_bytes(b"\n".join(_damaged(lines, rng)) + b"\n")
        fast, full = _both(main, monkeypatch)
        assert fast == full, f"seed {seed}, round {round_}: {main}"
        checked += isinstance(fast, bytes)
    assert checked > 100  # most copies still measure (a control on the damage itself)


_LINES = itertools.count()


def _line(**record: Any) -> str:
    """A record as a line. A uuid it is given is made its own (the shapes name one uuid for
    each kind of line, and a line whose uuid was written already counts for nothing)."""
    base = {"sessionId": "s", "cwd": "/w", "timestamp": "2026-01-01T00:00:05Z"}
    if isinstance(record.get("uuid"), str):
        record["uuid"] += f"-{next(_LINES)}"
    return json.dumps({**base, **record})


def _text_line(text: str, **extra: Any) -> str:
    """A user line whose content is one text block."""
    content = [{"type": "text", "text": text}]
    return _line(type="user", uuid="u9", message={"content": content}, **extra)


def _call(name: str, tool_input: Any, tool_id: Any = "t9", **extra: Any) -> str:
    block = {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}
    message = {"id": "m9", "model": "claude-x", "content": [block], "usage": {"input_tokens": 5}}
    return _line(type="assistant", uuid="a9", requestId="r9", message=message, **extra)


def _result(tool_id: Any = "t9", **extra: Any) -> str:
    block = {"type": "tool_result", "tool_use_id": tool_id, "content": "done"}
    return _line(type="user", uuid="u9", message={"content": [block]}, **extra)


def _notice(status: str, tool_id: str | None = "t9") -> str:
    """A task notification's text, as Claude Code 2.1.197 writes it."""
    named = f"<tool-use-id>{tool_id}</tool-use-id>\n" if tool_id else ""
    return (
        f"<task-notification>\n<task-id>b9</task-id>\n{named}<status>{status}</status>\n"
        f'<summary>Background command "t" {status}</summary>\n</task-notification>'
    )


def _queued(prompt: Any, mode: str = "task-notification") -> str:
    attachment = {"type": "queued_command", "prompt": prompt, "commandMode": mode}
    return _line(type="attachment", uuid="x8", attachment=attachment)


def _read(
    status: str, code: int | None, *, tool: str = "TaskOutput", structured: bool = True
) -> list[str]:
    """A read of task b9's state and its result, as Claude Code 2.1.197 writes a
    ``TaskOutput`` one (``BashOutput``: as the releases before task notifications did). The
    command's own output quotes tags of the same names, which are not read."""
    field = "task_id" if tool == "TaskOutput" else "bash_id"
    call = _call(tool, {field: "b9", "block": True, "timeout": 30000}, tool_id="p9")
    exit_tag = f"\n\n<exit_code>{code}</exit_code>" if code is not None else ""
    quoted = "<status>completed</status> <exit_code>0</exit_code>"
    if tool == "TaskOutput":
        text = (
            "<retrieval_status>success</retrieval_status>\n\n<task_id>b9</task_id>\n\n"
            f"<task_type>local_bash</task_type>\n\n<status>{status}</status>{exit_tag}"
            f"\n\n<output>\n{quoted}\n</output>"
        )
        task = {"task_id": "b9", "task_type": "local_bash", "status": status, "output": quoted}
        result: Any = {"retrieval_status": "success", "task": task}
        if code is not None:
            task["exitCode"] = code
    else:
        text = f"<status>{status}</status>{exit_tag}\n\n<stdout>\n{quoted}\n</stdout>"
        result = {"shellId": "b9", "command": "pytest", "status": status, "exitCode": code}
    block = {"type": "tool_result", "tool_use_id": "p9", "content": text}
    extra = {"toolUseResult": result} if structured else {}
    return [call, _line(type="user", uuid="u7", message={"content": [block]}, **extra)]


_BACKGROUND = _call("Bash", {"command": "pytest", "run_in_background": True})
_GOES_ON = _result(toolUseResult={"stdout": "", "stderr": "", "backgroundTaskId": "b9"})
"""The background call's first result: the command goes on as task b9."""


# One line of each shape a reader for a measure decides on, added to a real session: each one
# read the fast way must measure as the full parse measures it, and each one of another shape
# must go to the full parser.
SHAPES = {
    "subagent label a number": [_call("Agent", {"subagent_type": 7}), _result()],
    "subagent label text": [_call("Task", {"description": "look"}), _result()],
    "question": [_call("AskUserQuestion", {"questions": [{"question": "Go?"}]}), _result()],
    "question answered": [
        _call("AskUserQuestion", {"question": "Go?", "options": [{"label": "yes"}]}),
        _result(toolUseResult={"answers": {"Go?": "yes"}}),
    ],
    "two questions answered": [
        _call("AskUserQuestion", {"questions": [{"question": "Go?"}, {"question": "How?"}]}),
        _result(toolUseResult={"answers": {"Go?": "yes", "How?": "fast"}}),
    ],
    "two questions, the second answered with a number": [
        _call("AskUserQuestion", {"questions": [{"question": "Go?"}, {"question": "How?"}]}),
        _result(toolUseResult={"answers": {"Go?": "yes", "How?": 5}}),
    ],
    "two questions, a number answering none of them": [
        _call("AskUserQuestion", {"questions": [{"question": "Go?"}, {"question": "How?"}]}),
        _result(toolUseResult={"answers": {"Go?": "yes", "Why?": 5}}),
    ],
    "question answered with a number": [
        _call("AskUserQuestion", {"question": "Go?"}),
        _result(toolUseResult={"answers": {"Go?": 5}}),
    ],
    "question answered with a list": [
        _call("AskUserQuestion", {"question": "Go?"}),
        _result(toolUseResult={"answers": {"Go?": ["yes", "no"]}}),
    ],
    "question answered with nothing": [
        _call("AskUserQuestion", {"question": "Go?"}),
        _result(toolUseResult={"answers": {"Go?": ""}}),
    ],
    "question answers not an object": [
        _call("AskUserQuestion", {"question": "Go?"}),
        _result(toolUseResult={"answers": ["yes"]}),
    ],
    "question answered in text": [
        _call("AskUserQuestion", {"question": "Go?"}),
        _result(toolUseResult="User answered: yes"),
    ],
    "question refused": [
        _call("AskUserQuestion", {"question": "Go?"}),
        _result(toolUseResult={"answers": {"Go?": 5}}, toolDenialKind="user"),
    ],
    "tool search": [_call("ToolSearch", {"query": "select:mcp__tiny__add"}), _result()],
    "skill named by a number": [_call("Skill", {"skill": 5}), _result()],
    "call id a number": [_call("Edit", {"file_path": "/w/a.py"}, tool_id=7), _result(tool_id=7)],
    "call name a number": [_call(7, {}), _result()],  # type: ignore[arg-type]
    "input a list": [_call("Edit", ["a"]), _result()],
    "result id a list": [_call("Edit", {}), _result(tool_id=["t9"])],
    "refused": [_call("Bash", {"command": "rm -rf /"}), _result(toolDenialKind="user")],
    "refused in the terminal": [
        _call("Bash", {"command": "ls"}),
        _result(toolUseResult="User rejected tool use"),
    ],
    "failed": [
        _call("Bash", {"command": "pytest"}),
        _line(
            type="user",
            uuid="u9",
            message={"content": [{"type": "tool_result", "tool_use_id": "t9", "is_error": 1}]},
        ),
    ],
    "text null": [
        _line(
            type="assistant",
            uuid="a9",
            message={"id": "m9", "model": "x", "content": [{"type": "text", "text": None}]},
        ),
    ],
    "thinking a number": [
        _line(
            type="assistant",
            uuid="a9",
            message={"id": "m9", "model": "x", "content": [{"type": "thinking", "thinking": 5}]},
        ),
    ],
    "model a number": [
        _line(
            type="assistant",
            uuid="a9",
            message={
                "id": "m9",
                "model": 5,
                "content": [{"type": "text", "text": "hi"}],
                "usage": {"output_tokens": 3},
            },
        ),
    ],
    "message id a number": [
        _line(
            type="assistant",
            uuid="a9",
            requestId="r",
            message={
                "id": 2**70,
                "model": "x",
                "content": [{"type": "text", "text": "hi"}],
                "usage": {"output_tokens": 3},
            },
        ),
    ],
    "request id a list": [
        _line(
            type="assistant",
            uuid="a9",
            requestId=["r"],
            message={
                "id": "m",
                "model": "x",
                "content": [{"type": "text", "text": "hi"}],
                "usage": {"output_tokens": 3},
            },
        ),
    ],
    **{
        f"token count {label}": [
            _line(
                type="assistant",
                uuid="a9",
                requestId="r9",
                message={
                    "id": "m9",
                    "model": "x",
                    "content": [{"type": "text", "text": "hi"}],
                    "usage": {"input_tokens": 4, "output_tokens": value},
                },
            ),
        ]
        for label, value in (
            ("a whole float", 7.0),
            ("a fraction", 7.5),
            ("negative", -3),
            ("past 2**53", 2**53 + 1),
            ("at 2**53", 2**53),
            ("true", True),
            ("text", "7"),
            ("null", None),
        )
    },
    "an unknown block": [
        _line(
            type="assistant",
            uuid="a9",
            message={"id": "m9", "model": "x", "content": [{"type": "image"}]},
        ),
    ],
    "no content": [_line(type="assistant", uuid="a9", message={"id": "m", "model": "x"})],
    "synthetic": [
        _line(
            type="assistant",
            uuid="a9",
            message={
                "id": "m",
                "model": "<synthetic>",
                "content": [{"type": "text", "text": "API Error"}],
            },
        ),
    ],
    "API error": [
        _line(
            type="assistant",
            uuid="a9",
            isApiErrorMessage=True,
            message={"id": "m", "model": "x", "content": [{"type": "text", "text": "overloaded"}]},
        ),
    ],
    "meta text": [_line(type="user", uuid="u9", isMeta=True, message={"content": "caveat"})],
    "meta text block": [_text_line("caveat", isMeta=True)],
    "interrupted": [_text_line("[Request interrupted by user]")],
    "compact summary": [
        _line(type="user", uuid="u9", isCompactSummary=True, message={"content": "summary"}),
    ],
    "user content a number": [_line(type="user", uuid="u9", message={"content": 5})],
    "turn end": [_line(type="system", uuid="y9", subtype="turn_duration", durationMs=900)],
    "turn end a boolean": [
        _line(type="system", uuid="y9", subtype="turn_duration", durationMs=True)
    ],
    "turn end too long": [
        _line(type="system", uuid="y9", subtype="turn_duration", durationMs=2**60)
    ],
    "turn end as text": [
        _line(type="system", uuid="y9", subtype="turn_duration", durationMs="900")
    ],
    "time a number": [_line(type="user", uuid="u9", timestamp=5, message={"content": "hi"})],
    "time not a time": [_line(type="user", uuid="u9", timestamp="soon", message={"content": "hi"})],
    "folder a number": [_line(type="user", uuid="u9", cwd=5, message={"content": "hi"})],
    "type a number": [_line(type=5, uuid="u9")],
    "no type": [_line(uuid="u9")],
    "another agent's record": [json.dumps({"type": "session_meta", "payload": {"cwd": "/x"}})],
    "parent later": [_result(parentUuid="a9"), _call("Edit", {"file_path": "a"})],
    "blank and space": ["", "   ", "\t"],
    "attachment of no event": [
        _line(type="attachment", uuid="x9", attachment={"type": "skill_listing", "content": "a"})
    ],
    "hook attachment": [
        _line(
            type="attachment",
            uuid="x9",
            attachment={"type": "hook_success", "hookName": "PostToolUse:Edit", "exitCode": 0},
        )
    ],
    "hook attachment with a number for a name": [
        _line(type="attachment", uuid="x9", attachment={"type": "hook_error", "hookName": 5})
    ],
    "hook attachment in full": [
        _line(
            type="attachment",
            uuid="x9",
            attachment={
                "type": "hook_non_blocking_error",
                "hookName": "PreToolUse:Bash",
                "hookEvent": "PreToolUse",
                "command": "./guard.sh",
                "exitCode": 2,
                "toolUseID": "t9",
            },
        )
    ],
    "hook attachment with a boolean exit code": [
        _line(type="attachment", uuid="x9", attachment={"type": "hook_success", "exitCode": True})
    ],
    "hook attachment with a fractional exit code": [
        _line(type="attachment", uuid="x9", attachment={"type": "hook_success", "exitCode": 1.5})
    ],
    "hook attachment with a whole float exit code": [
        _line(type="attachment", uuid="x9", attachment={"type": "hook_success", "exitCode": 1.0})
    ],
    "hook attachment with a list for a command": [
        _line(type="attachment", uuid="x9", attachment={"type": "hook_success", "command": []})
    ],
    "hook attachment with a number for an id": [
        _line(type="attachment", uuid="x9", attachment={"type": "hook_success", "toolUseID": 7})
    ],
    "hook attachment without a time": [
        json.dumps({"type": "attachment", "uuid": "x9", "attachment": {"type": "hook_success"}})
    ],
    "invoked skills": [
        _line(
            type="attachment",
            uuid="x9",
            attachment={"type": "invoked_skills", "skills": [{"name": "review"}, 3]},
        )
    ],
    "attachment type a number": [_line(type="attachment", uuid="x9", attachment={"type": 5})],
    "attachment without a type": [_line(type="attachment", uuid="x9", attachment={})],
    "attachment null": [_line(type="attachment", uuid="x9", attachment=None)],
    "attachment a list": [_line(type="attachment", uuid="x9", attachment=["hook_x"])],
    "no attachment": [_line(type="attachment", uuid="x9")],
    "background check notified": [_BACKGROUND, _GOES_ON, _queued(_notice("failed"))],
    "background check notified in a user's line": [
        _BACKGROUND,
        _GOES_ON,
        _line(type="user", uuid="u8", message={"content": _notice("completed")}),
    ],
    "background check notified in text blocks": [
        _BACKGROUND,
        _GOES_ON,
        _text_line(_notice("completed")),
    ],
    "background check notified in a queued command's text blocks": [
        _BACKGROUND,
        _GOES_ON,
        _queued([{"type": "text", "text": _notice("completed")}]),
    ],
    "background check stopped": [_BACKGROUND, _GOES_ON, _queued(_notice("killed"))],
    "background check never notified": [_BACKGROUND, _GOES_ON],
    "check the user sent to the background": [
        _call("Bash", {"command": "pytest"}),
        _result(toolUseResult={"backgroundTaskId": "b9", "backgroundedByUser": True}),
        _queued(_notice("failed")),
    ],
    "notification before the first result": [
        _BACKGROUND,
        _queued(_notice("failed")),
        _GOES_ON,
    ],
    "background check denied, then a notification": [
        _BACKGROUND,
        _result(toolUseResult="User rejected tool use", toolDenialKind="user"),
        _queued(_notice("completed")),
    ],
    "notifications of two calls in one line": [
        _BACKGROUND,
        _GOES_ON,
        _line(
            type="user",
            uuid="u8",
            message={"content": _notice("completed", "t0") + "\n" + _notice("failed")},
        ),
    ],
    "notification quoting another's fields": [
        _BACKGROUND,
        _GOES_ON,
        _queued(
            _notice("completed").replace(
                "</summary>", "</summary>\n<result>says <status>failed</status></result>"
            )
        ),
    ],
    "notification naming no call": [_queued(_notice("completed", None))],
    "notification as a meta line after spaces": [
        _BACKGROUND,
        _GOES_ON,
        _line(type="user", uuid="u8", isMeta=True, message={"content": "\n " + _notice("failed")}),
    ],
    "notification of a call not in the background": [
        _call("Bash", {"command": "pytest"}),
        _result(),
        _queued(_notice("failed")),
    ],
    "background check read, failed": [_BACKGROUND, _GOES_ON, *_read("failed", 2)],
    "background check read, passed": [_BACKGROUND, _GOES_ON, *_read("completed", 0)],
    "background check read while it runs": [_BACKGROUND, _GOES_ON, *_read("running", None)],
    "background check read, stopped": [_BACKGROUND, _GOES_ON, *_read("killed", 137)],
    "background check read from the text": [
        _BACKGROUND,
        _GOES_ON,
        *_read("completed", 1, structured=False),
    ],
    "background check read by BashOutput": [
        _BACKGROUND,
        _GOES_ON,
        *_read("completed", 0, tool="BashOutput"),
    ],
    "background check read by BashOutput, text only": [
        _BACKGROUND,
        _GOES_ON,
        *_read("failed", None, tool="BashOutput", structured=False),
    ],
    "background check read, then notified otherwise": [
        _BACKGROUND,
        _GOES_ON,
        *_read("completed", 0),
        _queued(_notice("failed")),
    ],
    "background check notified, then read otherwise": [
        _BACKGROUND,
        _GOES_ON,
        _queued(_notice("failed")),
        *_read("completed", 0),
    ],
    "background check read, the read failing": [
        _BACKGROUND,
        _GOES_ON,
        _read("completed", 0)[0],
        _line(
            type="user",
            uuid="u7",
            message={
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "p9",
                        "content": "<status>completed</status>\n\n<exit_code>0</exit_code>",
                        "is_error": True,
                    }
                ]
            },
        ),
    ],
    "a read of a task no call started": [
        _call("Bash", {"command": "pytest"}),
        _result(),
        *_read("failed", 1),
    ],
    "queued prompt": [_queued("and the docs too")],
    "queued prompt a number": [_queued(5)],
    "prompt typed while a turn ran": [_queued("and the docs too", mode="prompt")],
    "prompt typed while a turn ran, in text blocks": [
        _queued([{"type": "text", "text": "and the docs"}], mode="prompt")
    ],
    "not UTF-8": ['{"type": "user", "uuid": "u9", "x": "\xff"}'],
    "not ASCII": [_line(type="user", uuid="u9", message={"content": "café ☕"}), "\u00a0"],
    "not an object": ["[1, 2]", "5", '"text"'],
    "local command typed": [
        _line(type="user", uuid="u9", message={"content": "  <command-name>/exit</command-name>"})
    ],
    "local command output": [_text_line("<local-command-stdout>Bye")],
    "local command caveat (meta)": [
        _line(type="user", uuid="u9", isMeta=True, message={"content": "<local-command-caveat>x"})
    ],
    "local command system line": [
        _line(type="system", subtype="local_command", uuid="s9", content="<command-name>/model")
    ],
    "local command late": [
        _line(
            type="user",
            uuid="u9",
            timestamp="2027-01-01T00:00:00Z",
            message={"content": "<command-name>/exit</command-name>"},
        )
    ],
    "a time that is a number": [
        _call("Edit", {"file_path": "/w/a.py", "old_string": "a"}, timestamp=1762077660000),
        _result(),
    ],
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_each_shape_measures_alike(
    shape: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    main, _ = _copy(SESSIONS[1], tmp_path)
    body = main.read_bytes()
    added = "\n".join(SHAPES[shape]).encode("utf-8", "surrogateescape")
    if shape == "not UTF-8":
        added = added.replace("\xff".encode(), b"\xff")
    main.write_bytes(body + added + b"\n")
    fast, full = _both(main, monkeypatch)
    assert isinstance(fast, bytes)
    assert fast == full


def test_lines_after_blank_ones_are_found_in_their_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A block whose lines all decode is read in one call, and a line the full parser reads
    (an API error, a compaction, a line written before its parent, another agent's record) is
    then found among the block's lines by its place among the records: blank lines and lines
    of spaces before it are no records, and must not shift it."""
    main, _ = _copy(SESSIONS[1], tmp_path)
    lines = [line for line in main.read_bytes().split(b"\n") if line.strip()]
    shapes = ["API error", "compact summary", "parent later", "another agent's record"]
    added = [line for shape in shapes for line in ["", "  ", "\t", *SHAPES[shape]]]
    mixed = [b"", b" \r", *lines[:3], *(a.encode() for a in added), *lines[3:]]
    main.write_bytes(b"\n".join(mixed) + b"\n")
    fast, full = _both(main, monkeypatch)
    assert isinstance(fast, bytes)
    assert fast == full


def _handed_to_the_full_parser(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The records the reader for a measure hands to the full parser's own code, from now on."""
    from proctor.transcripts.claude.measure import _MeasureParser

    handed: list[Any] = []
    full_handle = _MeasureParser.handle

    def counted(self: Any, record: Any) -> None:
        handed.append(record)
        full_handle(self, record)

    monkeypatch.setattr(_MeasureParser, "handle", counted)
    return handed


def test_the_common_lines_are_read_the_fast_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """A control on every test above: a reader that handed every line to the full parser
    would pass them all."""
    handed = _handed_to_the_full_parser(monkeypatch)
    for path in SESSIONS:
        lines = [line for line in path.read_bytes().split(b"\n") if line.strip()]
        handed.clear()
        parse_claude_for_measure(path, replay.claude_parts(path))
        kinds = {str(r.get("type")) + "/" + str(r.get("subtype") or "") for r in handed}
        assert len(handed) <= len(lines) // 4, (path.name, kinds)
        assert kinds <= {
            "system/stop_hook_summary",
            "system/api_error",
            "attachment/",
            "system/compact_boundary",
            "system/local_command",
            "user/",
            "assistant/",
            "system/informational",
            "system/None",
        }, kinds


def _subagent_results(tmp_path: Path) -> tuple[Path, list[str]]:
    """A session of subagent calls whose results name the subagent that ran in their text
    only (no ``toolUseResult.agentId``), each subagent's file beside it, and the shapes the
    text takes: a string, text blocks, the name escaped in the JSON, the name in a block that
    is no text (it names none), content that is null or missing, a name no file has. Then a
    task's notification, typed and as a meta line."""
    sid = "22222222-2222-4333-8444-555555555555"
    agents = tmp_path / sid / "subagents"
    agents.mkdir(parents=True)
    texts: list[Any] = [
        "Done.\nagentId: a1 (for resuming)",
        [{"type": "text", "text": "Done."}, {"type": "text", "text": "agentId: a2"}],
        "Done.\nagent\\u0049d: a3",
        [{"type": "image", "source": "agentId: a4"}, {"type": "text", "text": "Done."}],
        None,
        "agentId: nobody",
    ]
    lines = []
    for n, text in enumerate(texts, 1):
        edit = {"file_path": f"/w/sub{n}.py", "old_string": "a", "new_string": "b"}
        at = f"2026-01-01T00:0{n}:"
        (agents / f"agent-a{n}.jsonl").write_text(
            # Earlier than any line of the session: merged by time, it would come first.
            _call("Edit", edit, tool_id=f"e{n}", timestamp="2026-01-01T00:00:01Z", isSidechain=True)
            + "\n"
        )
        lines.append(_call("Agent", {"description": "look"}, tool_id=f"t{n}", timestamp=at + "00Z"))
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": f"t{n}"}
        if text is not None:
            block["content"] = text
        result = _line(type="user", uuid="u9", timestamp=at + "20Z", message={"content": [block]})
        lines.append(result)
    lines[5] = lines[5].replace("agent\\\\u0049d", "agent\\u0049d")  # escaped in the JSON
    lines += [
        _BACKGROUND,
        _GOES_ON,
        _line(type="user", uuid="u8", message={"content": _notice("failed")}),
    ]
    main = tmp_path / f"{sid}.jsonl"
    main.write_text("\n".join(lines) + "\n")
    return main, lines


def test_subagents_named_in_their_results_text_are_read_the_fast_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A subagent's result that names it in its text alone, and a task's notification, are
    read by the reader for a measure itself (they are thousands of lines of a long history)
    and measure as the full parse measures them: each subagent placed before its result."""
    main, _ = _subagent_results(tmp_path)
    handed = _handed_to_the_full_parser(monkeypatch)
    fast, full = _both(main, monkeypatch)
    assert isinstance(fast, bytes) and fast == full
    assert handed == []
    summary = json.loads(fast.split(b"\x00")[0])
    assert summary["steps"]["edits"] == 6 and summary["failedChecks"] == 1
    plain = parse_claude_for_measure(main, replay.claude_parts(main))
    order = [getattr(e, "id", None) for e in plain.events]
    # Each named subagent's edit just before its call's result.
    results = [i for i, e in enumerate(plain.events) if type(e).__name__ == "MeasuredResult"]
    at = {getattr(plain.events[i], "id", None): i for i in results}
    for n in (1, 2, 3):
        assert at[f"t{n}"] - 1 == order.index(f"e{n}"), order
    for n in (4, 5, 6):  # named by none: merged by time, before the first call
        assert order.index(f"e{n}") < order.index("t1"), order


@pytest.mark.parametrize("newline_at_end", [True, False])
def test_a_session_larger_than_a_read_measures_alike(
    newline_at_end: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lines that span the megabyte pieces a file is read in (each piece a block of whole
    lines), and a last line without its newline."""
    from proctor.transcripts.lines import CHUNK

    lines = [line for line in SESSIONS[1].read_bytes().split(b"\n") if line.strip()]
    padded = [
        line[:-1] + b', "pad": "' + b"x" * (i * 7919 % 300_000) + b'"}'
        for i, line in enumerate(lines)
    ]
    body = b"\n".join(padded * (3 * CHUNK // len(b"\n".join(padded)) + 1))
    main = tmp_path / SESSIONS[1].name
    main.write_bytes(body + (b"\n" if newline_at_end else b""))
    assert main.stat().st_size > 2 * CHUNK
    fast, full = _both(main, monkeypatch)
    assert isinstance(fast, bytes)
    assert fast == full


def test_a_subagent_files_lines_are_a_sidechains_without_saying_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A response a subagent's file repeats counts where the main file has it, even when the
    subagent's line does not say it is a sidechain's (its file does), as the full parse
    counts it: else its larger total would win."""
    sid = "11111111-2222-4333-8444-555555555555"
    head = {"sessionId": sid, "version": "2.1.197", "cwd": "/w", "requestId": "req_1"}

    def line(uuid: str, parent: str | None, stamp: str, output: int) -> str:
        message = {
            "id": "msg_1",
            "model": "claude-test-1",
            "content": [{"type": "text", "text": "done"}],
            "usage": {"input_tokens": 3, "output_tokens": output},
            "stop_reason": "end_turn",
        }
        record = {**head, "type": "assistant", "uuid": uuid, "parentUuid": parent}
        return json.dumps({**record, "timestamp": stamp, "message": message}) + "\n"

    main = tmp_path / f"{sid}.jsonl"
    main.write_text(line("a1", None, "2026-11-03T10:00:00Z", 5))
    subagents = tmp_path / sid / "subagents"
    subagents.mkdir(parents=True)
    (subagents / "agent-x1.jsonl").write_text(line("s1", None, "2026-11-03T10:00:01Z", 50))
    fast, full = _both(main, monkeypatch)
    assert isinstance(fast, bytes) and fast == full
    assert json.loads(fast.split(b"\x00")[0])["usage"]["claude-test-1"]["outputTokens"] == 5


@pytest.mark.parametrize(
    ("shape", "outcome"),
    [
        ("background check notified", "fail"),
        ("background check notified in a user's line", "pass"),
        ("background check stopped", "unknown"),
        ("background check never notified", "unknown"),
        ("check the user sent to the background", "fail"),
        # Never a pass: the notification is taken for the first result, and the background
        # flag keeps a first result from settling a check.
        ("notification before the first result", "unknown"),
        ("background check denied, then a notification", "unknown"),
        ("notifications of two calls in one line", "fail"),
        ("background check notified in text blocks", "pass"),
        ("background check notified in a queued command's text blocks", "pass"),
        ("notification quoting another's fields", "pass"),
        ("notification of a call not in the background", "pass"),
        # A read of the task's state that found it ended says how it ended, as a
        # notification does; whichever comes first settles the check.
        ("background check read, failed", "fail"),
        ("background check read, passed", "pass"),
        ("background check read while it runs", "unknown"),
        ("background check read, stopped", "unknown"),
        ("background check read from the text", "fail"),
        ("background check read by BashOutput", "pass"),
        ("background check read by BashOutput, text only", "fail"),
        ("background check read, then notified otherwise", "pass"),
        ("background check notified, then read otherwise", "fail"),
        ("background check read, the read failing", "unknown"),
        ("a read of a task no call started", "pass"),
    ],
)
def test_a_background_check_ends_as_its_notification_says(
    shape: str, outcome: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    main, _ = _copy(SESSIONS[1], tmp_path)
    block = {"type": "tool_use", "id": "t7", "name": "Edit", "input": {"file_path": "/w/a.py"}}
    edit = _line(type="assistant", uuid="a7", message={"id": "m7", "content": [block]})
    added = [edit, _result("t7"), *SHAPES[shape]]
    main.write_bytes(main.read_bytes() + "\n".join(added).encode() + b"\n")
    fast = _measure(main, parse_claude_for_measure, monkeypatch)
    assert isinstance(fast, bytes)
    summary = json.loads(fast.split(b"\x00")[0])
    # An edit of code, then the check: the session's last call.
    assert summary["failedChecks"] == (1 if outcome == "fail" else 0)
    assert summary["verified"] is (outcome == "pass")


def test_a_background_call_has_one_later_result_whichever_tells_its_end_first(
    tmp_path: Path,
) -> None:
    """A notification and a read of the same end: the trajectory holds the first only (the
    measure takes the first anyway)."""
    for told in ([_queued(_notice("failed")), *_read("completed", 0)],
                 [*_read("failed", 2), _queued(_notice("completed"))]):  # fmt: skip
        main = tmp_path / "s.jsonl"
        main.write_text("\n".join([_BACKGROUND, _GOES_ON, *told]) + "\n")
        events = parse_claude_session(main).events
        later = [e for e in events if isinstance(e, ToolResult) and e.id == "t9"][1:]
        assert [e.is_error for e in later] == [True]


def test_an_exit_code_of_thousands_of_digits_is_read_by_the_status() -> None:
    text = "<status>failed</status>\n\n<exit_code>" + "9" * 5000 + "</exit_code>"
    result = polled_result("t9", text, None, "2026-01-01T00:00:00Z")
    assert result is not None and result["isError"] is True
    assert result["output"] == "Background command failed"


def test_a_shell_write_after_a_cd_lands_in_the_folder_claude_code_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code's shell keeps a ``cd`` from one call to the next, and each line records the
    folder (checked against the pinned CLI): a relative write is in that folder, for both
    readers. The call's event names the folder only where it is not the session's own."""
    from tests.unit.history.planted import ClaudeSession

    session = ClaudeSession("99999999-2222-4333-8444-555555555555", "/w", "2026-11-03")
    session.user("10:00:00", "Fix it.")
    session.tool("10:00:01", "Bash", {"command": "mkdir -p sub && cd sub && pwd"})
    session.cwd = "/w/sub"  # the lines after the cd
    session.tool("10:00:02", "Bash", {"command": "cat > f.py <<'EOF'\nx = 1\nEOF"})
    session.tool("10:00:03", "Bash", {"command": "python3 -m pytest -q"})
    main = tmp_path / "s.jsonl"
    session.write(main)
    fast, full = _both(main, monkeypatch)
    assert isinstance(fast, bytes) and fast == full
    summary = json.loads(fast.split(b"\x00")[0])
    assert (summary["editedFiles"], summary["isTask"], summary["verified"]) == (
        ["sub/f.py"],
        True,
        True,
    )
    calls = [e for e in parse_claude_session(main).events if e.type == "tool_call"]
    assert [getattr(call, "cwd", None) for call in calls] == [None, "/w/sub", "/w/sub"]


def test_the_fast_reader_keeps_a_shell_results_output_and_no_other(tmp_path: Path) -> None:
    """A shell's output is kept for a check's summary, as a copy; the rest of the file is let
    go as it is read (a view of each block would keep the whole file in memory)."""
    import tracemalloc

    from tests.unit.history.planted import MODEL, ClaudeSession

    session = ClaudeSession("99999999-3333-4333-8444-555555555555", "/w", "2026-11-03")
    session.user("10:00:00", "Fix it.")
    blob = "x" * 20_000
    for i in range(1500):  # 30 MB of file reads
        tool = {
            "type": "tool_use",
            "id": f"toolu_{i}",
            "name": "Read",
            "input": {"file_path": "/w/a.py"},
        }
        session._assistant("10:00:01", [tool], MODEL, 100)
        result = {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": blob}
        session._record("user", "10:00:02", {"role": "user", "content": [result]})
    session.tool("10:00:03", "Bash", {"command": "pytest -q | tail -1"})
    main = tmp_path / "s.jsonl"
    session.write(main)
    tracemalloc.start()
    try:
        plain = parse_claude_for_measure(main)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert main.stat().st_size > 30_000_000
    assert peak < 12_000_000, peak  # a few blocks at a time, not the file
    results = [e for e in plain.events if getattr(e, "type", None) == "tool_result"]
    assert [r.output for r in results[-2:]] == [None, "ok"]  # a Read's output is not kept


def test_one_line_placing_a_subagent_then_naming_another_in_its_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two Agent results in one user line: the line's `toolUseResult.agentId` names X, which
    the first result places; the second's text names Y. The full parser reads the second's
    text once X is placed, and places Y there; so does the reader for a measure."""
    sid = "33333333-2222-4333-8444-555555555555"
    agents = tmp_path / sid / "subagents"
    agents.mkdir(parents=True)
    for name in ("X", "Y"):
        edit = {"file_path": f"/w/{name}.py", "old_string": "a", "new_string": "b"}
        early = "2026-01-01T00:00:01Z"  # before every line: merged by time, it would be first
        call = _call("Edit", edit, tool_id=f"e-{name}", timestamp=early, isSidechain=True)
        (agents / f"agent-{name}.jsonl").write_text(call + "\n")
    blocks = [
        {"type": "tool_result", "tool_use_id": "t1", "content": "ok"},
        {"type": "tool_result", "tool_use_id": "t2", "content": "agentId: Y"},
    ]
    lines = [
        _call("Agent", {"description": "a"}, tool_id="t1", timestamp="2026-01-01T00:01:00Z"),
        _call("Agent", {"description": "b"}, tool_id="t2", timestamp="2026-01-01T00:01:01Z"),
        _line(
            type="user",
            uuid="u9",
            timestamp="2026-01-01T00:02:00Z",
            message={"content": blocks},
            toolUseResult={"agentId": "X"},
        ),
    ]
    main = tmp_path / f"{sid}.jsonl"
    main.write_text("\n".join(lines) + "\n")
    fast, full = _both(main, monkeypatch)
    assert isinstance(fast, bytes) and fast == full
    plain = parse_claude_for_measure(main, replay.claude_parts(main))
    order = [getattr(e, "id", None) for e in plain.events]
    assert order.index("e-Y") > order.index("t2") - 2 and order.index("e-Y") > order.index("e-X")
    assert order[0] == "t1", order  # neither merged by time (both would come first)


def test_after_a_cd_a_claude_session_s_files_are_named_from_its_own_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code writes each line with the shell's folder (``cwd``), which a ``cd`` of an
    earlier call moves: a Read of /w/src/calc.py on a line of /w/src was named calc.py, and
    `cat calc.py` run there too, so one file had two names (and the context figures were
    wrong). Both readers name it src/calc.py, as Codex CLI's and Gemini CLI's do."""
    lines = [
        _line(type="user", uuid="u0", message={"content": "fix it"}),
        _call("Bash", {"command": "cd src"}, "t1"),
        _result("t1"),
        _call("Read", {"file_path": "/w/src/calc.py"}, "t2", cwd="/w/src"),
        _result("t2", cwd="/w/src"),
        _call("Bash", {"command": "cat calc.py"}, "t3", cwd="/w/src"),
        _result("t3", cwd="/w/src"),
        _call(
            "Edit",
            {"file_path": "/w/src/calc.py", "old_string": "a", "new_string": "b"},
            "t4",
            cwd="/w/src",
        ),
        _result("t4", cwd="/w/src"),
        _call("Read", {"file_path": "/elsewhere/x.py"}, "t5", cwd="/w/src"),
        _result("t5", cwd="/w/src"),
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    trajectory = parse_claude_session(path)
    files = [e.files for e in trajectory.events if e.type == "tool_call"]
    assert files == [[], ["src/calc.py"], ["src/calc.py"], ["src/calc.py"], ["/elsewhere/x.py"]]
    fast, full = _both(path, monkeypatch)
    assert isinstance(fast, bytes) and fast == full


@pytest.mark.parametrize(
    ("shape", "fast"),
    [
        ("two questions answered", True),
        ("two questions, the second answered with a number", False),
        ("two questions, a number answering none of them", True),
    ],
)
def test_each_answer_of_a_call_decides_how_its_result_is_read(
    shape: str, fast: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A call that asks several questions gives an answer event for each: its result is read
    the fast way only when every answer the full parser reads (each question's, by its text)
    is text."""
    main = tmp_path / "s.jsonl"
    main.write_text("\n".join(SHAPES[shape]) + "\n")
    handed = _handed_to_the_full_parser(monkeypatch)
    parse_claude_for_measure(main, replay.claude_parts(main))
    assert [r.get("type") for r in handed] == ([] if fast else ["user"])
