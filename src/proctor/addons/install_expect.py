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
from typing import Any

from pydantic import ConfigDict, Field, ValidationError, field_validator

from proctor.errors import ConfigError
from proctor.models.base import UserModel
from proctor.models.errors_format import describe_validation_error, json_error

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
    commands: list[str] = []
    """Slash commands as the audit names them (``tidy:tidy`` for a plugin's, ``gcs:sync``)."""
    subagents: list[str] = []

    def is_empty(self) -> bool:
        return not (
            self.skills or self.hooks or self.mcp or self.plugins or self.commands or self.subagents
        )


class InstallExpectation(UserModel):
    model_config = ConfigDict(populate_by_name=False)
    """Only the file's names: ``claude_code`` (the Python name) is an unknown key there."""

    claude_code: AgentExpectation | None = Field(default=None, alias="claude-code")
    codex: AgentExpectation | None = None
    gemini_cli: AgentExpectation | None = Field(default=None, alias="gemini-cli")
    project: list[str] = []
    """Paths (relative to the project, ``*`` matching across folders) the installer may write."""
    ignore: list[str] = []
    """Paths (relative to the scratch: ``home/…`` or ``project/…``) no check looks at, such as a
    cache the installer's own tools keep."""

    @field_validator("claude_code", "codex", "gemini_cli", mode="before")
    @classmethod
    def _not_null(cls, value: object) -> object:
        if value is None:
            raise ValueError("expected an object; leave an agent out rather than give null")
        return value

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
    raw = parse_expectation(text, path)
    if not isinstance(raw, dict):
        raise ConfigError(f"--expect {path}: expected an object at the top level")
    for key in AGENT_IDS:
        if key in raw and raw[key] is None:
            raise ConfigError(f"--expect {path}: field '{key}': expected an object, got null")
    try:
        return InstallExpectation.model_validate(raw)
    except ValidationError as exc:
        message = describe_validation_error(str(path), exc, InstallExpectation)
        raise ConfigError(f"--expect {message}") from exc


def parse_expectation(text: str, path: Path) -> object:
    """The expect file's data (TOML when the name ends in ``.toml``, else JSON); malformed,
    nested too deeply, an integer too long to read, or a key given twice is a ConfigError."""
    toml = path.suffix.lower() == ".toml"
    try:
        if toml:
            return tomllib.loads(text)
        return json.loads(text, object_pairs_hook=lambda pairs: unique_keys(pairs, path))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"--expect {path}: malformed TOML ({exc})") from exc
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"--expect {path}: malformed JSON at line {exc.lineno}, column {exc.colno}: "
            f"{json_error(exc)}"
        ) from exc
    except RecursionError:
        kind = "TOML" if toml else "JSON"
        raise ConfigError(f"--expect {path}: {kind} nested too deeply to read") from None
    except ValueError:  # an integer of more digits than Python converts (4300)
        raise ConfigError(
            f"--expect {path}: a number too long to read (over 4300 digits)"
        ) from None


def unique_keys(pairs: list[tuple[str, Any]], path: Path) -> dict[str, Any]:
    """A JSON object whose keys are all different; a key given twice is a ConfigError."""
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise ConfigError(f"--expect {path}: key '{key}' is given twice")
        found[key] = value
    return found
