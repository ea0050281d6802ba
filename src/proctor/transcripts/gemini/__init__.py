"""Gemini CLI chat recordings: the parser (:mod:`.parser`), its first pass (:mod:`.layout`),
what records say (:mod:`.records`) and what a call's result says (:mod:`.results`), the
questions of ``ask_user`` (:mod:`.questions`), the calls of subagents (:mod:`.subagents`) and
how a background command ended (:mod:`.background`)."""

from proctor.transcripts.gemini.parser import (
    parse_gemini_chat,
    parse_gemini_chat_plain,
    parse_gemini_lines,
    project_root,
)
from proctor.transcripts.gemini.records import gemini_usage, parts_text, result_text

__all__ = [
    "gemini_usage",
    "parse_gemini_chat",
    "parse_gemini_chat_plain",
    "parse_gemini_lines",
    "parts_text",
    "project_root",
    "result_text",
]
