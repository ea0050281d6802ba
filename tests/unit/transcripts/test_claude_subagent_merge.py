"""Where a Claude Code subagent's events go, on sessions written by hand to the CLI's shape:
the full parser and the fast reader for a measure agree, times in any form sort as times,
and a result without a time still cuts a resumed subagent's later part off."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from proctor.transcripts.claude.measure import parse_claude_for_measure
from proctor.transcripts.claude.parser import parse_claude_session
from proctor.util.native_paths import claude_subagent_files

SESSION = "11111111-0000-4000-8000-000000000001"
_ids = itertools.count()


class Writer:
    """The lines of one file (the session's, or a subagent's), each the child of the last."""

    def __init__(self, agent: str | None = None) -> None:
        self.lines: list[dict[str, Any]] = []
        self.parent: str | None = None
        self.agent = agent

    def record(self, **fields: Any) -> None:
        uid = f"u{next(_ids):05d}"
        line = {"parentUuid": self.parent, "isSidechain": self.agent is not None, "uuid": uid}
        line |= {"sessionId": SESSION, "version": "2.1.197", "cwd": "/w"}
        if self.agent:
            line["agentId"] = self.agent
        self.lines.append(line | fields)
        self.parent = uid

    def call(self, ts: str, call_id: str, name: str, **given: Any) -> None:
        block = {"type": "tool_use", "id": call_id, "name": name, "input": given}
        message = {"id": f"m{call_id}", "model": "claude-x", "role": "assistant"}
        message |= {"content": [block], "usage": {"input_tokens": 1, "output_tokens": 1}}
        self.record(type="assistant", timestamp=ts, message=message)

    def result(self, ts: str | None, call_id: str, text: str, structured: Any = None) -> None:
        block = {"type": "tool_result", "tool_use_id": call_id, "content": text}
        fields: dict[str, Any] = {"message": {"role": "user", "content": [block]}}
        if ts is not None:
            fields["timestamp"] = ts
        if structured is not None:
            fields["toolUseResult"] = structured
        self.record(type="user", **fields)


def at(seconds: float, offset: str = "Z") -> str:
    if offset == "Z":
        return f"2026-01-01T10:00:{seconds:06.3f}Z"
    return f"2026-01-01T12:00:{seconds:06.3f}{offset}"  # the same moment, two hours east


def write(folder: Path, main: Writer, subagents: dict[str, Writer]) -> Path:
    path = folder / f"{SESSION}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in main.lines))
    (folder / SESSION / "subagents").mkdir(parents=True)
    for agent, writer in subagents.items():
        text = "".join(json.dumps(line) + "\n" for line in writer.lines)
        (folder / SESSION / "subagents" / f"agent-{agent}.jsonl").write_text(text)
    return path


def calls(path: Path) -> tuple[list[str], list[str]]:
    """The call ids in order, as the full parser and as the reader for a measure give them."""
    parts = claude_subagent_files(path)
    full = [e.id for e in parse_claude_session(path, parts).events if e.type == "tool_call"]
    measured = parse_claude_for_measure(path, parts).events
    fast = [e.id for e in measured if type(e) is not dict and e.type == "tool_call"]
    return full, fast


def test_a_background_subagent_named_in_another_result_is_still_merged_by_time(
    tmp_path: Path,
) -> None:
    main, sub = Writer(), Writer("aaa")
    main.call(at(1), "c1", "Agent", prompt="look", run_in_background=True)
    launched = {"isAsync": True, "status": "async_launched", "agentId": "aaa"}
    main.result(at(1.1), "c1", "Async agent launched.\nagentId: aaa", launched)
    main.call(at(3), "e1", "Edit", file_path="/w/x.py", old_string="a", new_string="b")
    main.result(at(3.1), "e1", "ok")
    main.call(at(5), "b1", "Bash", command="grep agentId notes.txt")
    main.result(at(5.1), "b1", "notes.txt: agentId: aaa finished", {"stdout": "x"})
    sub.call(at(2), "r1", "Read", file_path="/w/a.py")
    sub.result(at(2.1), "r1", "a")
    full, fast = calls(write(tmp_path, main, {"aaa": sub}))
    assert full == fast == ["c1", "r1", "e1", "b1"]


def test_times_written_in_another_offset_sort_as_the_times_they_are(tmp_path: Path) -> None:
    main, sub = Writer(), Writer("bbb")
    main.call(at(1), "c1", "Agent", prompt="look")
    sub.call(at(2, "+02:00"), "r1", "Read", file_path="/w/a.py")
    sub.result(at(2.1, "+02:00"), "r1", "a")
    main.result(at(4), "c1", "done", {"status": "completed", "agentId": "bbb"})
    main.call(at(10), "e1", "Edit", file_path="/w/x.py", old_string="a", new_string="b")
    main.result(at(10.1), "e1", "ok")
    full, fast = calls(write(tmp_path, main, {"bbb": sub}))
    assert full == fast == ["c1", "r1", "e1"]  # as text, 12:00 would sort after 10:00:10


def test_a_result_without_a_time_still_leaves_a_resumed_subagent_s_later_part_later(
    tmp_path: Path,
) -> None:
    main, sub = Writer(), Writer("ccc")
    main.call(at(1), "c1", "Agent", prompt="look")
    sub.call(at(2), "r1", "Read", file_path="/w/a.py")
    sub.result(at(2.1), "r1", "a")
    main.result(None, "c1", "done", {"status": "completed", "agentId": "ccc"})
    main.call(at(10), "e1", "Edit", file_path="/w/x.py", old_string="a", new_string="b")
    main.result(at(10.1), "e1", "ok")
    main.call(at(15), "s1", "SendMessage", to="ccc", message="more")
    main.result(at(15.1), "s1", "resumed in the background")
    sub.call(at(21), "r2", "Read", file_path="/w/b.py")  # after the SendMessage
    sub.result(at(21.1), "r2", "b")
    full, fast = calls(write(tmp_path, main, {"ccc": sub}))
    assert full == fast == ["c1", "r1", "e1", "s1", "r2"]
