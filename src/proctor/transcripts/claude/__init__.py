"""Claude Code's native JSONL transcripts (also the scripted agent's): the parser
(:mod:`.parser`) and token usage counted once per response (:mod:`.usage`)."""

from proctor.transcripts.claude.parser import (
    parse_claude_lines,
    parse_claude_session,
    parse_claude_session_plain,
    parse_claude_transcript,
)
from proctor.transcripts.claude.subagents import subagent_id
from proctor.transcripts.claude.usage import UsageDedup, claude_usage_totals

__all__ = [
    "UsageDedup",
    "claude_usage_totals",
    "parse_claude_lines",
    "parse_claude_session",
    "parse_claude_session_plain",
    "parse_claude_transcript",
    "subagent_id",
]
