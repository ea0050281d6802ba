"""Codex CLI: the adapter (:mod:`.adapter`), its ``config.toml`` (:mod:`.config`) and how its
terminal UI is read (:mod:`.tui`)."""

from proctor.agents.codex.adapter import Codex, CodexSession
from proctor.agents.codex.config import interactive_permissions

__all__ = ["Codex", "CodexSession", "interactive_permissions"]
