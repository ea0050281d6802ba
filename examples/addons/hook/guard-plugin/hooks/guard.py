"""A PreToolUse guard for Claude Code (standard library only).

It adds context, never blocks:
- before a Read of a file larger than LARGE_BYTES with no ``limit``: read a slice instead;
- before a Bash command that already failed FAILURES_BEFORE_NUDGE times in this session
  (read from the transcript at ``transcript_path``): stop and look at the error.
Anything else: no output, exit 0.
"""

import json
import os
import sys

LARGE_BYTES = 256 * 1024
FAILURES_BEFORE_NUDGE = 2


def nudge(text):
    out = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": text}}
    print(json.dumps(out))


def failed_commands(transcript_path):
    """Command → how many times it failed, from the Claude Code session transcript."""
    commands, failures = {}, {}
    try:
        with open(transcript_path, encoding="utf-8") as fh:
            lines = fh.readlines()
    except OSError:
        return failures
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        content = (entry.get("message") or {}).get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_use" and block.get("name") == "Bash":
                commands[block.get("id")] = (block.get("input") or {}).get("command", "")
            elif block.get("type") == "tool_result" and block.get("is_error"):
                command = commands.get(block.get("tool_use_id"))
                if command:
                    failures[command] = failures.get(command, 0) + 1
    return failures


def main():
    event = json.load(sys.stdin)
    tool, args = event.get("tool_name"), event.get("tool_input") or {}
    if tool == "Read":
        path = args.get("file_path", "")
        try:
            size = os.path.getsize(path)
        except OSError:
            return
        if size > LARGE_BYTES and not args.get("limit"):
            nudge(
                f"{path} is {size} bytes. Read a slice (offset/limit) or search it with Grep "
                "instead of reading it whole."
            )
    elif tool == "Bash":
        command = args.get("command", "")
        count = failed_commands(event.get("transcript_path", "")).get(command, 0)
        if count >= FAILURES_BEFORE_NUDGE:
            nudge(
                f"`{command}` already failed {count} times in this session. Read the error "
                "and change something before running it again."
            )


if __name__ == "__main__":
    main()
