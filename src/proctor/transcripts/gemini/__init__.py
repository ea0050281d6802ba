"""Gemini CLI chat recordings: the parser (:mod:`.parser`)."""

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
