"""Codex CLI rollouts: the parser (:mod:`.parser`), what a first pass reads (:mod:`.facts`),
what a call is given (:mod:`.calls`) and what its result says (:mod:`.results`), the questions
of ``request_user_input`` (:mod:`.questions`), which usage lines count (:mod:`.usage`), the
copy of a parent's history (:mod:`.copies`) and the shapes of its records (:mod:`.shapes`)."""

from proctor.transcripts.codex.parser import (
    codex_usage_check,
    parse_codex_lines,
    parse_codex_rollout,
    parse_codex_rollout_checked,
    parse_codex_rollout_plain,
    parse_codex_threads_plain,
)

__all__ = [
    "codex_usage_check",
    "parse_codex_lines",
    "parse_codex_rollout",
    "parse_codex_rollout_checked",
    "parse_codex_rollout_plain",
    "parse_codex_threads_plain",
]
