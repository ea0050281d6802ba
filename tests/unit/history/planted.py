"""A planted Claude Code history whose every summary figure is worked out by hand below.

Two projects, four sessions (times UTC; every assistant message reports 100 input and 10
output tokens of ``claude-test-1`` unless said otherwise):

S1  /work/projA  2026-11-02 10:00:00 → 10:05:00 (300 s), ISO week 2026-W45
    Grep foo · Read a.py · Edit a.py · Bash `pytest -q` (passes) · "Done."
    task; 4 tool calls; orientation 2 (a search and a read before the edit); 1 check, 0
    failed; verified; no loop; no rule fired; AUC-Cov (proxy gold {a.py}) = (0+1+1+1)/4 =
    0.75; redundancy 0/1 = 0.0; 5 responses: 500 in, 50 out.
S2  /work/projA  2026-11-03 09:00:00 → 09:06:00 (360 s), 2026-W45
    Edit b.py · Bash `pytest` fails ×4 · "Gave up." — and a subagent file with one answer of
    ``claude-helper-1`` (1000 in, 100 out)
    task; 5 tool calls; orientation 0; 4 checks, 4 failed; not verified; 1 loop (the failing
    command, 4 ≥ 3); rules fired: unverified, rework (4 > 3), loops (1 > 0); AUC-Cov
    (gold {b.py}) = 5/5 = 1.0; redundancy None (no read); 6 responses: 600 in, 60 out.
S3  /work/projB  2026-11-10 12:00:00 → 12:02:00, 2026-W46
    Read c.py · "It does X." — no edit: not a task; 200 in, 20 out.
S4  /work/projB  2026-11-11 12:00:00 → 12:01:00, 2026-W46
    Edit README.md · "Documented." — documentation only: not a task; 200 in, 20 out; plus a
    broken line and a record of an unknown type (counted, not fatal).

Summary: 4 sessions, 2 tasks, 2 without a code change; verified 1/2; median time 330 s
(300–360); median steps 4.5 (4–5); median orientation 1 (0–2); loops 1 in 1 task; rules:
unverified 1, long-orientation 0, rework 1, loops 1; AUC-Cov median 0.875 (0.75–1.0);
redundancy 0.0 (n=1). Tokens: claude-test-1 1500 in / 150 out, claude-helper-1 1000 / 100.
At $1 per million input and $10 per million output for claude-test-1 (claude-helper-1
unpriced): $0.0015 + $0.0015 = $0.003.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

PROJECT_A = "/work/projA"
PROJECT_B = "/work/projB"
MODEL = "claude-test-1"


class ClaudeSession:
    """Writes a Claude Code session file line by line, in the CLI's own record shapes."""

    def __init__(self, session_id: str, cwd: str, day: str) -> None:
        self.session_id, self.cwd, self.day = session_id, cwd, day
        self.lines: list[str] = []
        self.parent: str | None = None
        self.sidechain = False

    def _record(self, kind: str, at: str, message: dict[str, Any], **extra: Any) -> None:
        uid = str(uuid.uuid4())
        record = {
            "parentUuid": self.parent,
            "isSidechain": self.sidechain,
            "type": kind,
            "message": message,
            "uuid": uid,
            "timestamp": f"{self.day}T{at}.000Z",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": "2.1.197",
            **extra,
        }
        self.parent = uid
        self.lines.append(json.dumps(record))

    def user(self, at: str, text: str) -> None:
        self._record("user", at, {"role": "user", "content": text})

    def _assistant(self, at: str, content: list[dict[str, Any]], model: str, tokens: int) -> None:
        message = {
            "id": f"msg_{uuid.uuid4().hex}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "usage": {
                "input_tokens": tokens,
                "output_tokens": tokens // 10,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
        }
        self._record("assistant", at, message, requestId=f"req_{uuid.uuid4().hex}")

    def say(self, at: str, text: str, model: str = MODEL, tokens: int = 100) -> None:
        self._assistant(at, [{"type": "text", "text": text}], model, tokens)

    def tool(self, at: str, name: str, tool_input: dict[str, Any], error: bool = False) -> None:
        tool_id = f"toolu_{uuid.uuid4().hex}"
        self._assistant(
            at, [{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}], MODEL, 100
        )
        result = {"type": "tool_result", "content": "failed" if error else "ok", "is_error": error}
        self._record("user", at, {"role": "user", "content": [{**result, "tool_use_id": tool_id}]})

    def raw(self, line: str) -> None:
        self.lines.append(line)

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(self.lines) + "\n")


def project_folder(config_dir: Path, cwd: str) -> Path:
    return config_dir / "projects" / cwd.replace("/", "-")


def plant(config_dir: Path) -> dict[str, Path]:
    """Write S1–S4 under ``config_dir`` (a ``.claude`` folder); their files by name."""
    files: dict[str, Path] = {}

    s1 = ClaudeSession("11111111-1111-4111-8111-111111111111", PROJECT_A, "2026-11-02")
    s1.user("10:00:00", "Fix a.")
    s1.tool("10:01:00", "Grep", {"pattern": "foo"})
    s1.tool("10:02:00", "Read", {"file_path": f"{PROJECT_A}/a.py"})
    s1.tool(
        "10:03:00", "Edit", {"file_path": f"{PROJECT_A}/a.py", "old_string": "x", "new_string": "y"}
    )
    s1.tool("10:04:00", "Bash", {"command": "pytest -q"})
    s1.say("10:05:00", "Done.")

    s2 = ClaudeSession("22222222-2222-4222-8222-222222222222", PROJECT_A, "2026-11-03")
    s2.user("09:00:00", "Fix b.")
    s2.tool(
        "09:01:00", "Edit", {"file_path": f"{PROJECT_A}/b.py", "old_string": "x", "new_string": "y"}
    )
    for minute in (2, 3, 4, 5):
        s2.tool(f"09:0{minute}:00", "Bash", {"command": "pytest"}, error=True)
    s2.say("09:06:00", "Gave up.")
    helper = ClaudeSession(s2.session_id, PROJECT_A, "2026-11-03")
    helper.sidechain = True
    helper.say("09:01:30", "Looked around.", model="claude-helper-1", tokens=1000)

    s3 = ClaudeSession("33333333-3333-4333-8333-333333333333", PROJECT_B, "2026-11-10")
    s3.user("12:00:00", "What does c do?")
    s3.tool("12:01:00", "Read", {"file_path": f"{PROJECT_B}/c.py"})
    s3.say("12:02:00", "It does X.")

    s4 = ClaudeSession("44444444-4444-4444-8444-444444444444", PROJECT_B, "2026-11-11")
    s4.user("12:00:00", "Document it.")
    s4.raw('{"type": "assistant", "message": {"content": [')  # cut off mid-line
    s4.raw(json.dumps({"type": "mystery-record", "sessionId": s4.session_id, "uuid": "u-1"}))
    s4.tool(
        "12:00:30",
        "Edit",
        {"file_path": f"{PROJECT_B}/README.md", "old_string": "", "new_string": "x"},
    )
    s4.say("12:01:00", "Documented.")

    for name, session in (("S1", s1), ("S2", s2), ("S3", s3), ("S4", s4)):
        path = project_folder(config_dir, session.cwd) / f"{session.session_id}.jsonl"
        session.write(path)
        files[name] = path
    helper_file = files["S2"].parent / s2.session_id / "subagents" / "agent-a1.jsonl"
    helper.write(helper_file)
    files["S2-helper"] = helper_file
    return files
