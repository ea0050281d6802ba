"""Claude Code: the adapter (:mod:`.adapter`) and how its terminal UI is read (:mod:`.tui`)."""

from proctor.agents.claude_code.adapter import (
    ClaudeCode,
    ClaudeSession,
    seed_home,
    stop_hook_command,
)

__all__ = ["ClaudeCode", "ClaudeSession", "seed_home", "stop_hook_command"]
