"""What process metrics are computed with and what they produce: the settings (check patterns,
thresholds), a trial's :class:`ProcessMetrics` (``trial.json``'s ``process``), the task rules'
verdicts (``rules``) and expected-trace coverage. The computation is :mod:`proctor.metrics`.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

from proctor.models.base import UserModel
from proctor.models.trajectory import ModelUsage

CheckOutcome = Literal["pass", "fail", "unknown"]
RULE_NAMES: tuple[str, ...] = ("unverified", "long-orientation", "rework", "loops")

_PREFIXES = (
    r"(?:(?:env|time|nice|sudo|timeout\s+\S+|[A-Za-z_]\w*=\S*"
    r"|(?:uv|poetry|pdm|hatch|pipenv|rye)\s+run|npx|bunx|(?:pnpm|yarn)(?:\s+exec)?|bundle\s+exec)\s+)*"
)
_PATH = r"(?:\S*/)?"
_PYTHON_OPTIONS = r"(?:\s+-(?:[WX]\s*\S+|[bBdEiIOPqsSuv]+))*"
"""The interpreter's own options before ``-m`` (``python -X dev -W error -m pytest``)."""
_MAKE_VALUED = r"(?:-[CfIoW]|--(?:directory|file|makefile|include-dir|old-file|new-file|what-if))"
"""Options of ``make`` whose value is the next word (``make -C app test``: ``app`` is no
target)."""
_MAKE_FLAGS = "bBdeiknpqrRsStvw"
_MAKE_DRY = (
    rf"(?!(?:\s+[^\s'\"]+)*?\s+(?:-[{_MAKE_FLAGS}]*[nqt][{_MAKE_FLAGS}]*"
    r"|--(?:dry-run|just-print|recon|question|touch))(?:\s|$))"
)
"""Not a ``make`` that only says what it would do (``-n``, ``-q``, ``-t``, ``--dry-run`` …),
told by make's own words, variables too (``make V=1 -n test``), up to the first quoted word
(``make test ARGS="-x -q"`` runs the tests: the ``-q`` is the variable's)."""
_NODE_VALUED = (
    r"-[CF]|--(?:prefix|dir|filter|cwd|loglevel|registry|cache|userconfig|reporter"
    r"|workspace-concurrency|mutex|network-concurrency)"
)
"""Options of ``npm``, ``pnpm``, ``yarn`` and ``bun`` whose value is the next word (``npm
--prefix test install``: ``test`` is no script); npm's ``-w`` and ``--workspace`` too (pnpm's
``-w`` is a flag)."""


def _node_options(valued: str) -> str:
    """The options of a Node package manager before its script: each known valued one with
    its value; any other, maybe with one (``npm --foo silent test``)."""
    known = f"(?:{valued})"
    return rf"(?:\s+(?:{known}\s+\S+|(?!{known}(?:\s|$))-\S+(?:\s+[^-\s]\S*)?))*"


_NPM_OPTIONS = _node_options(_NODE_VALUED + r"|-w|--workspace")
_NODE_OPTIONS = _node_options(_NODE_VALUED)
_SCRIPTS = r"(?:test|build|lint|check|typecheck|type-check)(?:[:-][\w:-]*)?"
_CARGO_VALUED = r"(?:--(?:manifest-path|color|config|target-dir)|-Z)"
_END = r"(?=$|[\s;&|)`'\"])"
_MVN_VALUED = r"(?:-(?:P|pl|f|s|gs|rf|T|b|l|t|e?D)|--(?:activate-profiles|projects|file|settings"
_MVN_VALUED += r"|global-settings|resume-from|threads|builder|log-file|toolchains))"
"""Options of ``mvn`` whose value is the next word (``mvn -P test run``: ``test`` is a
profile); the words before the goal are words, not comments, redirections or quotes."""
_COVERAGE_OPTIONS = (
    r"(?:\s+--(?:rcfile|source|data-file|context|include|omit)(?:=|\s+)\S+|\s+-\S+)*"
)
"""``coverage run``'s options, those with a value too (``--rcfile .coveragerc``)."""

_RUNS_TESTS = (
    r"(?!(?:\s+[^\s'\"]+)*?\s+(?:--collect-only|--co|--fixtures|--markers|--fixtures-per-test)"
    r"(?:\s|$))"
)
"""After ``pytest``: none of the options that list tests, fixtures or markers and run none."""

#: Tools recognised as checks (tests, builds, linters, type checkers), one regex each.
DEFAULT_CHECK_TOOLS: tuple[str, ...] = (
    rf"(?:pytest|py\.test){_RUNS_TESTS}",
    rf"python[\d.]*{_PYTHON_OPTIONS}\s+-m\s*(?:pytest{_RUNS_TESTS}|unittest|mypy|flake8|pylint"
    rf"|tox|nox|coverage\s+run{_COVERAGE_OPTIONS}\s+-m\s*(?:pytest{_RUNS_TESTS}|unittest))",
    rf"python[\d.]*{_PYTHON_OPTIONS}\s+manage\.py\s+test",
    rf"npm{_NPM_OPTIONS}\s+(?:(?:run{_NPM_OPTIONS}\s+)?{_SCRIPTS}|t|tst)",
    rf"(?:pnpm|yarn|bun){_NODE_OPTIONS}(?:\s+workspace\s+\S+)?\s+(?:run{_NODE_OPTIONS}\s+)?"
    rf"{_SCRIPTS}",
    rf"cargo(?:\s+(?:{_CARGO_VALUED}\s+\S+|(?!{_CARGO_VALUED}\s)[+-]\S+))*"
    r"\s+(?:test|build|check|clippy|nextest)",
    r"go(?:\s+-C\s*\S+)?\s+(?:test|build|vet)",
    rf"make{_MAKE_DRY}(?:\s+(?:{_MAKE_VALUED}\s+\S+|(?!{_MAKE_VALUED}\s)\S+))*?"
    r"\s+(?:(?:test|tests|check)(?:[-_:][\w:-]*)?|lint|build)",
    r"tox|nox",
    r"hatch\s+test",
    rf"coverage\s+run{_COVERAGE_OPTIONS}\s+(?:-m\s*(?:pytest{_RUNS_TESTS}|unittest)"
    r"|manage\.py\s+test)",
    r"ruff\s+(?:check|format\s+--check)",
    r"mypy|pyright|flake8|pylint",
    r"black\s+--check",
    r"eslint|tsc|jest|vitest|mocha|prettier\s+--check|playwright\s+test",
    rf"mvnw?(?:\s+(?:{_MVN_VALUED}\s+[^\s#'\"<>|]+|(?!{_MVN_VALUED}\s)[^\s#'\"<>|]+))*?"
    r"\s+(?:test|verify|package|compile|install)",
    r"gradlew?\s+(?:-\S+\s+)*(?:[\w-]*:)*(?:test|build(?!Environment)|check)\w*",
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


class MetricsConfig(UserModel):
    """Check patterns, the loop threshold and the task-rule thresholds (camelCase in files)."""

    model_config = ConfigDict(frozen=True)

    # Not strict: the tuple arrives as a JSON list (and a lenient str still refuses a number).
    check_patterns: tuple[str, ...] = Field(default=DEFAULT_CHECK_PATTERNS, strict=False)
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


DEFAULT_METRICS_CONFIG = MetricsConfig()
"""The defaults, made once (frozen): a history replay measures thousands of sessions."""

ContextBasis = Literal["expected", "edited-proxy", "none"]


class MetricsModel(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="ignore",
        frozen=True,
        allow_inf_nan=False,  # no metric is infinite or NaN; one read back so is a damaged file
    )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with camelCase keys."""
        return self.model_dump(mode="json", by_alias=True)


class StepCounts(MetricsModel):
    tool_calls: int = 0
    by_kind: dict[str, int] = {}
    """Tool calls per normalised kind; a call without a kind counts as ``other``."""
    reads: int = 0
    searches: int = 0
    edits: int = 0
    """Calls of kind ``edit`` or ``write``, whatever their outcome."""
    checks: int = 0


class CheckRun(MetricsModel):
    step: int
    """Index of the tool call, counting tool calls from 0."""
    command: str
    """The command with whitespace collapsed."""
    outcome: CheckOutcome


class Orientation(MetricsModel):
    """What happened before the first edit; all None when the trial changed no code."""

    reads_before_first_edit: int | None = None
    steps_before_first_edit: int | None = None
    seconds_to_first_edit: float | None = None


class LoopInstance(MetricsModel):
    kind: Literal["command", "edit"]
    key: str
    """The normalised command, or the edited files joined by ``, ``."""
    count: int
    steps: list[int] = []


class ContextMetrics(MetricsModel):
    basis: ContextBasis = "none"
    expected_files: list[str] = []
    files_read: list[str] = []
    edited_files: list[str] = []
    """Files named by edit and write calls (the final patch's files, as far as calls tell)."""
    recall: float | None = None
    precision: float | None = None
    f1: float | None = None
    auc_cov: float | None = None
    redundancy: float | None = None
    first_relevant_step: int | None = None
    first_relevant_seconds: float | None = None
    first_relevant_file: str | None = None
    """The first expected file the agent read, in the order it read them."""
    correct_file_hit: bool | None = None
    correct_symbol_hit: bool | None = None
    irrelevant_file_opens: int | None = None
    wrong_context_events: int | None = None


class Effort(MetricsModel):
    elapsed_seconds: float | None = None
    tool_calls: int = 0
    tokens: dict[str, ModelUsage] = {}
    cost: float | None = None


class TraceMetrics(MetricsModel):
    """Expected traces (``from`` → ``to``) the agent followed; coverage is None when none is
    expected."""

    expected: int = 0
    followed: int = 0
    coverage: float | None = None
    missed: list[str] = []


class ProcessMetrics(MetricsModel):
    """Every process metric of one trial."""

    is_task: bool = False
    """The trial changed code: an edit or write of code that was neither rejected nor failed."""
    steps: StepCounts = Field(default_factory=StepCounts)
    checks: list[CheckRun] = []
    orientation: Orientation = Field(default_factory=Orientation)
    verified: bool | None = None
    rework: int = 0
    loops: int = 0
    loop_details: list[LoopInstance] = []
    context: ContextMetrics = Field(default_factory=ContextMetrics)
    effort: Effort = Field(default_factory=Effort)
    traces: TraceMetrics | None = None
    """Expected traces followed, when the case expects any."""


class RuleResult(MetricsModel):
    """The verdict of one rule on one trial."""

    rule: str
    fired: bool
    value: bool | int | float | None = None
    threshold: int | float | None = None
    message: str = ""
    applicable: bool = True
    """False for a trial that changed no code; such a rule never fires."""
