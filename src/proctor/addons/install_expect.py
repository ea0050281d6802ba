"""The expect file of ``proctor addon check-install --expect FILE`` (JSON, or TOML when the
name ends in ``.toml``): per agent, the components the installer must write, and the project
paths it may write.

.. code-block:: json

    {
      "claude-code": {"skills": ["lint"], "mcp": ["notes"],
                      "hooks": [{"event": "PreToolUse", "matcher": "Bash",
                                 "command": "{home}/.claude/hooks/guard.sh"}]},
      "codex": {"skills": ["lint"], "mcp": ["notes"]},
      "project": [".mcp.json"],
      "ignore": ["home/.npm/*"]
    }

Hooks name their event as the agent itself does (``BeforeTool`` for Gemini CLI). A hook's
``command`` may use ``{home}`` and ``{project}``, and ``*`` as a wildcard.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from pydantic import Field, ValidationError

from proctor.errors import ConfigError
from proctor.models.base import UserModel
from proctor.models.errors_format import describe_validation_error

AGENT_IDS = ("claude-code", "codex", "gemini-cli")


class ExpectedHook(UserModel):
    event: str = Field(min_length=1)
    """The event as the agent names it (``PreToolUse``, ``BeforeTool``, …)."""
    command: str | None = None
    matcher: str | None = None

    def describe(self) -> str:
        where = f"{self.event}:{self.matcher}" if self.matcher else self.event
        return f"hook {where}" + (f" running {self.command!r}" if self.command else "")


class AgentExpectation(UserModel):
    skills: list[str] = []
    hooks: list[ExpectedHook] = []
    mcp: list[str] = []
    plugins: list[str] = []

    def is_empty(self) -> bool:
        return not (self.skills or self.hooks or self.mcp or self.plugins)


class InstallExpectation(UserModel):
    claude_code: AgentExpectation | None = Field(default=None, alias="claude-code")
    codex: AgentExpectation | None = None
    gemini_cli: AgentExpectation | None = Field(default=None, alias="gemini-cli")
    project: list[str] = []
    """Paths (relative to the project, ``*`` matching across folders) the installer may write."""
    ignore: list[str] = []
    """Paths (relative to the scratch: ``home/…`` or ``project/…``) no check looks at, such as a
    cache the installer's own tools keep."""

    def for_agent(self, agent: str) -> AgentExpectation | None:
        found: AgentExpectation | None = getattr(self, agent.replace("-", "_"), None)
        return found

    def agents(self) -> list[str]:
        return [a for a in AGENT_IDS if self.for_agent(a) is not None]


def load_expectation(path: Path) -> InstallExpectation:
    """Read and validate an expect file; anything wrong is one sentence naming file and field."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"--expect {path}: not UTF-8 text ({exc.reason})") from exc
    except OSError as exc:
        raise ConfigError(f"--expect {path}: cannot be read ({exc.strerror or exc})") from exc
    raw: object
    if path.suffix.lower() == ".toml":
        try:
            raw = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"--expect {path}: malformed TOML ({exc})") from exc
    else:
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"--expect {path}: malformed JSON at line {exc.lineno}, column {exc.colno}: "
                f"{exc.msg}"
            ) from exc
    if not isinstance(raw, dict):
        raise ConfigError(f"--expect {path}: expected an object at the top level")
    try:
        return InstallExpectation.model_validate(raw)
    except ValidationError as exc:
        message = describe_validation_error(str(path), exc, InstallExpectation)
        raise ConfigError(f"--expect {message}") from exc
