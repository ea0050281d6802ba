"""The ``scripted`` agent: a real terminal program that plays a plan in its workspace.

It is started by proctor in a pseudo-terminal, shows a prompt, reads the user's message as a
person would type or paste it, then plays its steps, printing what it does and writing its
transcript in Claude Code's native JSONL dialect at the path Claude Code would use. So the same
parser serves this agent and the real CLI.

Signals for the driver (and any terminal user): the window title is set to
``scripted · ready · N`` when it waits for message N+1, ``scripted · question · K`` while it waits
for the answer to question K, and ``scripted · working`` otherwise. ``/exit`` quits.

Run as ``python -I -S agent.py --steps FILE --session-id ID``: the standard library and
:mod:`proctor.util.native_paths` only (no site packages), so that it starts in a few milliseconds.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import re
import stat
import subprocess
import sys
import termios
import time
import tty
import uuid
from pathlib import Path
from typing import Any

if not __package__:  # run as a file (``python -I -S agent.py``): find proctor's own tree
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from proctor.scripted import AGENT_VERSION as VERSION
from proctor.scripted.plan import NOTHING_LEFT, filled_input, inside_workspace
from proctor.util.clock import now_iso
from proctor.util.files import open_regular
from proctor.util.json_shown import json_text
from proctor.util.native_paths import claude_transcript

PASTE_START, PASTE_END = b"\x1b[200~", b"\x1b[201~"
MAX_SHOWN_LINES = 8
NOT_REGULAR = "Path is not a regular file (a named pipe or a device)."


class Terminal:
    """Raw-mode input with a tiny line editor that understands bracketed paste."""

    def __init__(self) -> None:
        self.fd = sys.stdin.fileno()
        self.saved: list[Any] | None = None
        self.buffer = b""
        if os.isatty(self.fd):
            self.saved = termios.tcgetattr(self.fd)
            tty.setraw(self.fd)
        self.write("\x1b[?2004h")

    def restore(self) -> None:
        self.write("\x1b[?2004l")
        if self.saved is not None:
            termios.tcsetattr(self.fd, termios.TCSADRAIN, self.saved)

    def write(self, text: str) -> None:
        os.write(sys.stdout.fileno(), text.replace("\r\n", "\n").replace("\n", "\r\n").encode())

    def title(self, text: str) -> None:
        self.write(f"\x1b]0;{text}\x07")

    def _more(self) -> bytes:
        chunk = os.read(self.fd, 65536)
        if not chunk:
            raise EOFError
        return chunk

    def read_message(self, prompt: str) -> str:
        self.write(prompt)
        line = bytearray()
        while True:
            if not self.buffer:
                self.buffer = self._more()
            data, self.buffer = self.buffer, b""
            i = 0
            while i < len(data):
                if data.startswith(PASTE_START, i):
                    rest = data[i + len(PASTE_START) :]
                    while PASTE_END not in rest:
                        rest += self._more()
                    pasted, after = rest.split(PASTE_END, 1)
                    line += pasted
                    self.write(pasted.decode("utf-8", "replace"))
                    data, i = after, 0
                    continue
                byte = data[i : i + 1]
                i += 1
                if byte in (b"\r", b"\n"):
                    self.buffer = data[i:]
                    self.write("\n")
                    return line.decode("utf-8", "replace")
                if byte == b"\x03":
                    raise KeyboardInterrupt
                if byte == b"\x04" and not line:
                    raise EOFError
                if byte in (b"\x7f", b"\x08"):
                    if line:
                        del line[-1]
                        self.write("\b \b")
                    continue
                if byte == b"\x1b":
                    continue
                line += byte
                self.write(byte.decode("utf-8", "replace"))


class Transcript:
    """Claude Code's JSONL dialect: one content block per assistant line, results on user lines."""

    def __init__(self, path: Path, session_id: str, cwd: str, model: str) -> None:
        self.path, self.session_id, self.cwd, self.model = path, session_id, cwd, model
        path.parent.mkdir(parents=True, exist_ok=True)
        self.fh = open(path, "a", encoding="utf-8")  # noqa: SIM115
        self.parent: str | None = None
        self.context_chars = 0
        self.results: list[str] = []
        """The texts of the tool results so far (what a ``tool`` step's ``fromResults`` reads)."""
        self.messages = 0
        self.prompt_id = ""

    def _line(self, record: dict[str, Any]) -> str:
        line_uuid = str(uuid.uuid4())
        envelope = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": VERSION,
            "entrypoint": "proctor-scripted",
            **record,
            "uuid": line_uuid,
            "timestamp": now_iso(),
        }
        # Compact, as Claude Code writes its lines: some readers of Claude Code transcripts
        # (ccusage 20) skip a line written with spaces after the colons.
        self.fh.write(json.dumps(envelope, ensure_ascii=False, separators=(",", ":")) + "\n")
        self.fh.flush()
        self.parent = line_uuid
        return line_uuid

    def user_prompt(self, text: str) -> None:
        self.prompt_id = str(uuid.uuid4())
        self.context_chars += len(text)
        self._line(
            {
                "type": "user",
                "promptId": self.prompt_id,
                "message": {"role": "user", "content": text},
            }
        )

    def assistant(self, block: dict[str, Any], stop_reason: str) -> str:
        self.messages += 1
        out_chars = len(json.dumps(block))
        usage = {
            "input_tokens": max(1, self.context_chars // 4),
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": max(1, out_chars // 4),
            "service_tier": "standard",
        }
        self.context_chars += out_chars
        n = self.messages
        return self._line(
            {
                "type": "assistant",
                "requestId": f"req_scripted_{self.session_id[:8]}_{n}",
                "message": {
                    "id": f"msg_scripted_{self.session_id[:8]}_{n}",
                    "type": "message",
                    "role": "assistant",
                    "model": self.model,
                    "content": [block],
                    "stop_reason": stop_reason,
                    "stop_sequence": None,
                    "usage": usage,
                },
            }
        )

    def tool_result(
        self, tool_id: str, content: str, is_error: bool, structured: Any, source: str
    ) -> None:
        self.context_chars += len(content)
        self.results.append(content)
        self._line(
            {
                "type": "user",
                "promptId": self.prompt_id,
                "sourceToolAssistantUUID": source,
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": tool_id,
                            "content": content,
                            "is_error": is_error,
                        }
                    ],
                },
                "toolUseResult": structured,
            }
        )

    def turn_end(self, duration_ms: float) -> None:
        self._line(
            {
                "type": "system",
                "subtype": "turn_duration",
                "durationMs": round(duration_ms),
                "messageCount": self.messages,
            }
        )


class Agent:
    def __init__(self, steps: list[dict[str, Any]], transcript: Transcript, term: Terminal) -> None:
        self.steps = steps
        self.pos = 0
        self.t = transcript
        self.term = term
        self.calls = 0
        self.questions = 0

    def _tool(self, name: str, tool_input: dict[str, Any]) -> tuple[str, str]:
        self.calls += 1
        tool_id = f"toolu_scripted_{self.t.session_id[:8]}_{self.calls}"
        block = {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}
        return tool_id, self.t.assistant(block, "tool_use")

    def _show(self, head: str, body: str) -> None:
        lines = body.rstrip("\n").splitlines() or ["(no output)"]
        shown = lines[:MAX_SHOWN_LINES]
        if len(lines) > MAX_SHOWN_LINES:
            shown.append(f"… +{len(lines) - MAX_SHOWN_LINES} lines")
        self.term.write(f"● {head}\n" + "".join(f"  ⎿  {line}\n" for line in shown))

    def _path(self, rel: str) -> Path:
        return Path(self.t.cwd) / rel

    def _outside(self, rel: str, itself: bool = False) -> bool:
        """Whether a file step's path leads out of the workspace (a plan validated refuses
        one; a link in the workspace to elsewhere leads out too): never read or written. With
        ``itself``, a search's folder, the workspace itself is inside."""
        if not inside_workspace(rel, itself):
            return True
        root = os.path.realpath(self.t.cwd)
        return os.path.commonpath([root, os.path.realpath(self._path(rel))]) != root

    def _searched(self, file: str) -> bool:
        """Whether a search reads ``file``: a regular file, not a link (to the machine's file,
        a private key) nor a named pipe or device (reading one would wait for ever)."""
        try:
            return stat.S_ISREG(os.lstat(file).st_mode)
        except OSError:
            return False

    def run_turn(self) -> int | None:
        """Play steps until the plan ends or an ``endTurn``; return an exit code to crash."""
        if self.pos >= len(self.steps):
            self.say(NOTHING_LEFT)
            return None
        while self.pos < len(self.steps):
            step = self.steps[self.pos]
            self.pos += 1
            if "endTurn" in step:
                return None
            if "exit" in step:
                self.term.write(f"scripted agent exiting with code {step['exit']}\n")
                return int(step["exit"])
            getattr(self, "do_" + next(k for k in step if hasattr(self, "do_" + k)))(step)
        return None

    def say(self, text: str) -> None:
        # Shown first: once the transcript holds the text, the terminal holds it too (a stop
        # that a watcher of the transcript sends then finds it on the screen it keeps).
        self.term.write(f"● {text}\n")
        self.t.assistant({"type": "text", "text": text}, "end_turn")

    def do_say(self, step: dict[str, Any]) -> None:
        self.say(step["say"])

    def do_sleep(self, step: dict[str, Any]) -> None:
        time.sleep(float(step["sleep"]))

    def do_shell(self, step: dict[str, Any]) -> None:
        command = step["shell"]
        tool_id, source = self._tool("Bash", {"command": command, "description": command[:60]})
        try:
            proc = subprocess.run(
                ["/bin/sh", "-c", command],
                cwd=self.t.cwd,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=float(step.get("timeoutSec", 120)),
            )
            out, err, code, interrupted = proc.stdout, proc.stderr, proc.returncode, False
        except subprocess.TimeoutExpired as exc:
            out, err, code, interrupted = exc.stdout or b"", exc.stderr or b"", 124, True
        stdout, stderr = out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
        text = (stdout + stderr).rstrip("\n")
        content = text if code == 0 else f"Exit code {code}\n{text}"
        structured = {
            "stdout": stdout,
            "stderr": stderr,
            "interrupted": interrupted,
            "isImage": False,
            "exitCode": code,
        }
        self.t.tool_result(tool_id, content, code != 0, structured, source)
        self._show(f"Bash({command})", content)

    def do_read(self, step: dict[str, Any]) -> None:
        path = self._path(step["read"])
        tool_id, source = self._tool("Read", {"file_path": str(path)})
        if self._outside(step["read"]):  # through a link in the workspace: the machine's file
            msg = "<tool_use_error>Path is outside the workspace.</tool_use_error>"
            self.t.tool_result(tool_id, msg, True, "Error: Path is outside the workspace.", source)
            self._show(f"Read({step['read']})", "Path is outside the workspace.")
            return
        try:  # open_regular: a named pipe is refused, never waited on
            with open_regular(path) as fh:
                text = fh.read().decode("utf-8", "replace")
        except OSError as exc:
            reason = _file_error(exc)
            msg = f"<tool_use_error>{reason}</tool_use_error>"
            self.t.tool_result(tool_id, msg, True, f"Error: {reason}", source)
            self._show(f"Read({step['read']})", reason)
            return
        lines = text.splitlines()
        numbered = "\n".join(f"{i:6d}\t{line}" for i, line in enumerate(lines, 1))
        structured = {
            "type": "text",
            "file": {
                "filePath": str(path),
                "content": text,
                "numLines": len(lines),
                "startLine": 1,
                "totalLines": len(lines),
            },
        }
        self.t.tool_result(tool_id, numbered, False, structured, source)
        self._show(f"Read({step['read']})", f"Read {len(lines)} lines")

    def do_search(self, step: dict[str, Any]) -> None:
        pattern, base = step["search"], step.get("path", ".")
        tool_id, source = self._tool("Grep", {"pattern": pattern, "path": base})
        # A link to a folder elsewhere (``lnk -> /``) would walk the machine's files.
        if self._outside(base, itself=True):
            msg = "<tool_use_error>Path is outside the workspace.</tool_use_error>"
            self.t.tool_result(tool_id, msg, True, "Error: Path is outside the workspace.", source)
            self._show(f"Search({pattern})", "Path is outside the workspace.")
            return
        try:
            regex = re.compile(pattern)
        except re.error as exc:  # a failed call, as a search tool answers a bad pattern
            said = f"Invalid regular expression {json_text(pattern, limit=10_000)}: {exc}"
            msg = f"<tool_use_error>{said}</tool_use_error>"
            self.t.tool_result(tool_id, msg, True, f"Error: {said}", source)
            self._show(f"Search({pattern})", said)
            return
        hits = []
        for dirpath, dirnames, filenames in os.walk(self._path(base)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                file = os.path.join(dirpath, name)
                if not self._searched(file):
                    continue
                try:
                    with open_regular(file) as fh:
                        text = fh.read().decode("utf-8", "ignore")
                except OSError:
                    continue
                if regex.search(text):
                    hits.append(os.path.relpath(file, self.t.cwd))
        content = f"Found {len(hits)} files\n" + "\n".join(hits) if hits else "No files found"
        structured = {"mode": "files_with_matches", "filenames": hits, "numFiles": len(hits)}
        self.t.tool_result(tool_id, content, False, structured, source)
        self._show(f"Search({pattern})", content)

    def do_edit(self, step: dict[str, Any]) -> None:
        spec = step["edit"]
        path = self._path(spec["path"])
        tool_input = {
            "file_path": str(path),
            "old_string": spec["old"],
            "new_string": spec["new"],
            "replace_all": bool(spec.get("replaceAll")),
        }
        tool_id, source = self._tool("Edit", tool_input)
        old, new = spec["old"], spec["new"]
        original: str | None = None
        reason = "Path is outside the workspace." if self._outside(spec["path"]) else None
        try:
            if reason is None:
                # The file's own line endings are kept (a CRLF file stays CRLF); open_regular:
                # a named pipe is refused, never waited on.
                with open_regular(path) as fh:
                    original = fh.read().decode("utf-8")
        except OSError as exc:
            original, reason = None, _file_error(exc)
        except UnicodeDecodeError:
            original, reason = None, "File is not UTF-8 text."
        if original is not None and old not in original and "\r\n" in original:
            old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
        if original is not None and old not in original:
            reason = "String to replace not found."
        if original is None or reason is not None:
            msg = f"<tool_use_error>{reason}</tool_use_error>"
            self.t.tool_result(tool_id, msg, True, f"Error: {reason}", source)
            self._show(f"Update({spec['path']})", str(reason))
            return
        count = -1 if spec.get("replaceAll") else 1
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(original.replace(old, new, count))
        structured = {
            "filePath": str(path),
            "oldString": spec["old"],
            "newString": spec["new"],
            "originalFile": original,
        }
        msg = f"The file {path} has been updated."
        self.t.tool_result(tool_id, msg, False, structured, source)
        self._show(f"Update({spec['path']})", "Updated")

    def do_write(self, step: dict[str, Any]) -> None:
        spec = step["write"]
        path = self._path(spec["path"])
        tool_id, source = self._tool("Write", {"file_path": str(path), "content": spec["content"]})
        if self._outside(spec["path"]):
            msg = "<tool_use_error>Path is outside the workspace.</tool_use_error>"
            self.t.tool_result(tool_id, msg, True, "Error: Path is outside the workspace.", source)
            self._show(f"Write({spec['path']})", "Path is outside the workspace.")
            return
        existed = path.exists()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            _write_regular(path, spec["content"])
        except OSError as exc:
            pipe = exc.errno in (errno.EINVAL, errno.ENXIO)  # ENXIO: a pipe no one reads
            reason = NOT_REGULAR if pipe else exc.strerror
            msg = f"<tool_use_error>{reason}</tool_use_error>"
            self.t.tool_result(tool_id, msg, True, f"Error: {reason}", source)
            self._show(f"Write({spec['path']})", str(reason))
            return
        kind = "update" if existed else "create"
        structured = {"type": kind, "filePath": str(path), "content": spec["content"]}
        msg = f"File {'updated' if existed else 'created successfully'} at: {path}"
        self.t.tool_result(tool_id, msg, False, structured, source)
        self._show(f"Write({spec['path']})", f"Wrote {len(spec['content'].splitlines())} lines")

    def do_tool(self, step: dict[str, Any]) -> None:
        tool_id, source = self._tool(step["tool"], filled_input(step, self.t.results))
        output = str(step.get("output", "ok"))
        is_error = bool(step.get("isError", False))
        self.t.tool_result(tool_id, output, is_error, output, source)
        self._show(f"{step['tool']}()", output)

    def do_ask(self, step: dict[str, Any]) -> None:
        question, options = step["ask"], list(step.get("options", []))
        tool_input = {
            "questions": [
                {
                    "question": question,
                    "header": "Question",
                    "options": [{"label": o} for o in options],
                    "multiSelect": False,
                }
            ]
        }
        tool_id, source = self._tool("AskUserQuestion", tool_input)
        self.questions += 1
        self.term.write(f"? {question}\n")
        for i, option in enumerate(options, 1):
            self.term.write(f"  {i}. {option}\n")
        self.term.title(f"scripted · question · {self.questions}")
        reply = self.term.read_message("answer> ").strip()
        self.term.title("scripted · working")
        if reply.isdigit() and 1 <= int(reply) <= len(options):
            reply = options[int(reply) - 1]
        content = f'User has answered your questions: "{question}"="{reply}".'
        structured = {"questions": tool_input["questions"], "answers": {question: reply}}
        self.t.tool_result(tool_id, content, False, structured, source)


def _file_error(exc: OSError) -> str:
    """Why a file step could not open its file, as its tool result says it."""
    if isinstance(exc, FileNotFoundError):
        return "File does not exist."
    if isinstance(exc, IsADirectoryError):
        return "Path is a folder, not a file."
    if exc.errno == errno.EINVAL:  # open_regular's refusal: a named pipe, a device
        return NOT_REGULAR
    return f"File cannot be read: {exc.strerror}."


def _write_regular(path: Path, content: str) -> None:
    """Write ``content`` to ``path``, created when missing; a named pipe or a device is refused
    (EINVAL) rather than waited on (opening a pipe to write waits for a reader)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK, 0o666)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        os.ftruncate(fd, 0)
        with open(fd, "w", encoding="utf-8", closefd=False) as fh:
            fh.write(content)
    finally:
        os.close(fd)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripted-agent")
    parser.add_argument("--steps", required=True, help="JSON file with the resolved steps")
    parser.add_argument("--session-id", default=None)
    parser.add_argument("--model", default="scripted")
    args = parser.parse_args(argv)
    steps = json.loads(Path(args.steps).read_text(encoding="utf-8"))
    session_id = args.session_id or str(uuid.uuid4())
    cwd = os.getcwd()
    config_dir = os.environ.get("CLAUDE_CONFIG_DIR") or str(Path.home() / ".claude")
    transcript = Transcript(
        claude_transcript(config_dir, cwd, session_id), session_id, cwd, args.model
    )
    term = Terminal()
    agent = Agent(steps, transcript, term)
    turns = 0
    try:
        term.write(f"scripted agent {VERSION} · session {session_id[:8]} · {len(steps)} steps\n")
        while True:
            term.title(f"scripted · ready · {turns}")
            message = term.read_message("❯ ").strip()
            if message in ("/exit", "/quit"):
                return 0
            if not message:
                continue
            term.title("scripted · working")
            started = time.monotonic()
            transcript.user_prompt(message)
            code = agent.run_turn()
            if code is not None:
                return code
            transcript.turn_end((time.monotonic() - started) * 1000)
            turns += 1
    except EOFError:
        return 0
    except KeyboardInterrupt:
        return 130
    finally:
        term.restore()
        transcript.fh.close()


if __name__ == "__main__":
    sys.exit(main())
