"""Gemini CLI chat recordings: the parser (:mod:`.parser`)."""

from proctor.transcripts.gemini.parser import (
    gemini_usage,
    parse_gemini_chat,
    parse_gemini_chat_plain,
    parse_gemini_lines,
    parts_text,
    project_root,
    result_text,
)

__all__ = [
    "gemini_usage",
    "parse_gemini_chat",
    "parse_gemini_chat_plain",
    "parse_gemini_lines",
    "parts_text",
    "project_root",
    "result_text",
]
