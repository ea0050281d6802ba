"""Gemini CLI: the adapter (:mod:`.adapter`), how its terminal UI is read (:mod:`.tui`) and
how its ``ask_user`` picker is answered (:mod:`.ask_user`)."""

from proctor.agents.gemini_cli.adapter import (
    HOOK_EVENTS,
    HOOK_TOOLS,
    GeminiCli,
    GeminiSession,
    approval_args,
    reported_usage,
    said_turn_limit,
)

__all__ = [
    "HOOK_EVENTS",
    "HOOK_TOOLS",
    "GeminiCli",
    "GeminiSession",
    "approval_args",
    "reported_usage",
    "said_turn_limit",
]
