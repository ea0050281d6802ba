"""Configuration of process metrics and task rules: check patterns, loop and rule thresholds."""

from __future__ import annotations

import re
from functools import lru_cache

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

from proctor.metrics.shell import ShellCommand, split_commands

_PREFIXES = (
    r"(?:(?:env|time|nice|sudo|timeout\s+\S+|[A-Za-z_]\w*=\S*"
    r"|(?:uv|poetry|pdm|hatch|pipenv|rye)\s+run|npx|bunx|(?:pnpm|yarn)\s+exec|bundle\s+exec)\s+)*"
)
_PATH = r"(?:\S*/)?"
_END = r"(?=$|[\s;&|)`'\"])"

#: Tools recognised as checks (tests, builds, linters, type checkers), one regex each.
DEFAULT_CHECK_TOOLS: tuple[str, ...] = (
    r"pytest|py\.test",
    r"python[\d.]*\s+-m\s+(?:pytest|unittest|mypy|flake8|pylint|tox|nox)",
    r"python[\d.]*\s+manage\.py\s+test",
    r"(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:test|build|lint|check|typecheck|type-check)(?:[:-][\w:-]*)?",
    r"cargo\s+(?:test|build|check|clippy|nextest)",
    r"go\s+(?:test|build|vet)",
    r"make\s+(?:test|tests|check|lint|build)",
    r"tox|nox",
    r"ruff\s+(?:check|format\s+--check)",
    r"mypy|pyright|flake8|pylint",
    r"black\s+--check",
    r"eslint|tsc|jest|vitest|mocha|prettier\s+--check",
    r"mvnw?\s+(?:-\S+\s+)*(?:test|verify|package|compile|install)",
    r"gradlew?\s+(?:-\S+\s+)*(?:test|build|check)",
    r"dotnet\s+(?:test|build)",
    r"rspec|phpunit|ctest|golangci-lint",
)


def check_pattern(tool: str) -> str:
    """Wrap a tool regex so that it matches only at the start of a command.

    Patterns are searched in each command of a shell line (see :func:`split_commands`), so
    ``^`` is the start of a command. The tool may be preceded by environment assignments,
    runners (``uv run``, ``npx``, ``timeout 60``, ...) and a directory (``.venv/bin/``). So
    ``cd app && uv run pytest -q`` is a check; ``pip install pytest`` and
    ``echo "done && pytest"`` are not.
    """
    return f"^{_PREFIXES}{_PATH}(?:{tool}){_END}"


DEFAULT_CHECK_PATTERNS: tuple[str, ...] = tuple(check_pattern(t) for t in DEFAULT_CHECK_TOOLS)


@lru_cache(maxsize=64)
def _compiled(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p) for p in patterns)


class MetricsConfig(BaseModel):
    """Check patterns, the loop threshold and the task-rule thresholds (camelCase in files)."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True
    )

    check_patterns: tuple[str, ...] = DEFAULT_CHECK_PATTERNS
    """Regexes searched in each command of a shell line; any match makes the line a check."""
    loop_repeat: int = Field(default=3, ge=2)
    """Repeats of one failing command, or of one edit, that make a loop."""
    long_orientation_max: int = Field(default=20, ge=0)
    """``long-orientation`` fires above this many reads and searches before the first edit."""
    rework_max: int = Field(default=3, ge=0)
    """``rework`` fires above this many failed checks."""
    loops_max: int = Field(default=0, ge=0)
    """``loops`` fires above this many loop instances."""

    @field_validator("check_patterns")
    @classmethod
    def _valid_patterns(cls, patterns: tuple[str, ...]) -> tuple[str, ...]:
        for pattern in patterns:
            try:
                re.compile(pattern)
            # A huge repeat count overflows, deep nesting recurses: all mean "not a usable regex".
            except (re.error, OverflowError, RecursionError, ValueError) as exc:
                raise ValueError(f"invalid check pattern {pattern!r}: {exc}")
        return patterns

    def check_commands(self, line: str) -> list[ShellCommand]:
        """The commands of a shell line that a check pattern matches; quoted text is no command."""
        patterns = _compiled(self.check_patterns)
        return [c for c in split_commands(line) if any(p.search(c.text) for p in patterns)]

    def is_check(self, line: str) -> bool:
        """Whether a shell line runs a test, build or lint."""
        return bool(self.check_commands(line))
