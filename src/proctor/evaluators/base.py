"""The evaluator protocol, its registry and the parsing of evaluator entries.

An evaluator entry in a case's ``config.json`` is ``{"use": NAME, "gate": bool, "weight": number,
...parameters of that evaluator}``. Parameters are validated against the evaluator's own
``Params`` model when the case is loaded, so a typo fails before any trial runs.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, NamedTuple, Protocol, Self

from pydantic import ValidationError

from proctor.errors import ConfigError
from proctor.llm.roles import RoleSet
from proctor.models.base import MAX_TIMEOUT_SEC as MAX_TIMEOUT_SEC  # evaluators' timeoutSec cap
from proctor.models.base import UserModel
from proctor.models.case import EvaluatorSpec
from proctor.models.config import ProgramText as ProgramText  # evaluators' program text
from proctor.models.errors_format import describe_validation_error, json_text
from proctor.models.findings import numbered_checks
from proctor.models.io import write_record
from proctor.models.logs import EvaluatorLog
from proctor.models.trajectory import Trajectory
from proctor.models.trial import EvaluatorResult
from proctor.paths import TrialPaths
from proctor.util.processes import Outcome, run_captured
from proctor.util.text import unknown_name

COMMON_KEYS = {"use", "gate", "weight", "label", "conditions"}
MAX_WEIGHT = 1_000_000.0
"""The largest evaluator ``weight``: weights only count relative to each other, and a huge
one (``1e307``) overflowed the weighted mean to NaN, crashing every trial."""
RESERVED_LABELS = ("rule:", "eval:")
"""How the findings ledger names a task rule's check and an eval's assertion: no label may
start so (see :func:`proctor.report.checks.evaluator_checks`)."""


class CaseProblem(NamedTuple):
    """What the case folder lacks for an evaluator's parameters: the parameter the message is
    about, as a JSON path below the entry (``rubric``, ``args[1]``; empty for the entry as a
    whole, a default left out), and what is wrong."""

    field: str
    text: str


class EvaluatorParams(UserModel):
    """Base of every evaluator's parameter model: user configuration like the rest of
    ``config.json`` (:class:`~proctor.models.base.UserModel`): camelCase keys, unknown keys
    rejected, no number that is infinite or NaN, and every value of its field's JSON type."""

    @classmethod
    def of(cls, spec: EvaluatorSpec) -> Self:
        """The parameters of ``spec``, read back through this model (they were checked, strictly,
        when the case was loaded; read back leniently, as proctor's own JSON)."""
        return cls.model_validate(spec.params, strict=False)

    def case_problem(self, case_dir: Path) -> CaseProblem | None:
        """What the case folder lacks for these parameters (a file they name), and the
        parameter it is about; checked when the case is loaded so that it fails before any
        trial; None when nothing is missing."""
        return None

    def agent_problem(self, agent: str) -> str | None:
        """Why these parameters cannot judge a trial of ``agent`` (a pattern given per agent,
        none for it), checked for each agent a run plans before any trial; None when they can."""
        return None


@dataclass
class EvaluationContext:
    """What an evaluator may look at once the agent has finished."""

    workspace: Path
    trial: TrialPaths
    case_dir: Path
    agent: str
    trajectory: Trajectory
    raw_transcript: Path | None
    env: dict[str, str] = field(default_factory=dict)
    timed_out: bool = False
    roles: RoleSet | None = None
    case_evaluators: Sequence[EvaluatorSpec] = ()
    """The case's evaluator entries, as loaded (a case folder's ``config.json`` or a task of a
    ``tasks.json``, its ``successCriteria`` too): what ``expect`` reads the hidden files of."""


class Evaluator(Protocol):
    name: ClassVar[str]
    Params: ClassVar[type[EvaluatorParams]]

    def evaluate(self, spec: EvaluatorSpec, ctx: EvaluationContext) -> EvaluatorResult: ...


_REGISTRY: dict[str, type[Evaluator]] = {}
_BUILTIN_MODULES = (
    "proctor.evaluators.file_exists",
    "proctor.evaluators.command",
    "proctor.evaluators.trajectory_check",
    "proctor.evaluators.external",
    "proctor.evaluators.addons",
    "proctor.evaluators.llm_judge",
    "proctor.evaluators.expect",
)
_loaded = False


def register(cls: type[Evaluator]) -> type[Evaluator]:
    """Class decorator: make an evaluator available under ``cls.name``."""
    _REGISTRY[cls.name] = cls
    return cls


def registry() -> dict[str, type[Evaluator]]:
    global _loaded
    if not _loaded:
        for module in _BUILTIN_MODULES:
            importlib.import_module(module)
        _loaded = True
    return _REGISTRY


def get_evaluator(name: str) -> Evaluator:
    return registry()[name]()


def _numbered_clash(loc: str, use: str, label: str | None, name: str) -> str:
    """What is wrong when a label takes the check name the ledger numbers a repeated
    evaluator by (``command#2``), said at whichever of the two comes second."""
    of, _, number = name.rpartition("#")
    if label:
        told = f"field '{loc}.label': {label!r} is the check name of {of!r} evaluator number"
        told += f" {number} before it (an evaluator used again unlabelled is numbered)"
    else:
        told = f"field '{loc}.use': as {use!r} evaluator number {number}, its check name is "
        told += f"{name!r}, which a label before it takes too"
    return (
        f"{told}; a label names one evaluator's check, in the findings ledger and the "
        "reports: give the label another name"
    )


def parse_evaluator_specs(
    entries: list[dict[str, Any]],
    where: str,
    case_dir: Path | None = None,
    start: int = 0,
    earlier: Sequence[dict[str, Any]] = (),
    problems: list[str] | None = None,
    key: str = "evaluators",
) -> list[EvaluatorSpec]:
    """Validate evaluator entries against the registry (and, given the case folder, the files
    they name); raise ConfigError naming the field. Entries are numbered from ``start`` (a
    second list of the same case continues the first's numbers, so their logs stay apart);
    ``earlier``: that first list's entries, whose names a label of this one may not take
    either; ``key``: the list's field (a task's ``successCriteria``), each entry's field path
    (``successCriteria[0]``) counted within it. Given ``problems``, each bad entry's sentence
    is added to it and the others are read on (``validate`` names every one); without, the
    first raises."""
    known = registry()
    specs = []
    for i, entry in enumerate(entries):
        try:
            specs.append(
                _entry_spec(entry, i, entries, where, case_dir, start, earlier, known, key)
            )
        except ConfigError as exc:
            if problems is None:
                raise
            problems.append(str(exc))
    return specs


def _entry_spec(
    entry: dict[str, Any],
    i: int,
    entries: list[dict[str, Any]],
    where: str,
    case_dir: Path | None,
    start: int,
    earlier: Sequence[dict[str, Any]],
    known: dict[str, Any],
    key: str,
) -> EvaluatorSpec:
    """Entry ``i`` of ``entries`` as a spec (see :func:`parse_evaluator_specs`); ConfigError
    naming its field."""
    index = start + i
    loc = f"{key}[{i}]"
    use = entry.get("use")
    if not isinstance(use, str):
        said = (
            "is required but missing"
            if "use" not in entry
            else f"must be a string, got {json_text(use)}"
        )
        raise ConfigError(
            f"{where}: field '{loc}.use' {said}: it names the evaluator, such as \"command\""
        )
    if use not in known:
        raise ConfigError(
            f"{where}: field '{loc}.use': {unknown_name('evaluator', use, sorted(known))}"
        )
    gate = entry.get("gate", False)
    if not isinstance(gate, bool):
        raise ConfigError(
            f"{where}: field '{loc}.gate': expected true or false, got {json_text(gate)}"
        )
    weight = entry.get("weight", 1.0)
    if (
        isinstance(weight, bool)
        or not isinstance(weight, int | float)
        or not 0 <= weight <= MAX_WEIGHT
    ):
        raise ConfigError(
            f"{where}: field '{loc}.weight': expected a number from 0 to {MAX_WEIGHT:.0f} "
            f"(weights count relative to each other), got {json_text(weight)}"
        )
    label = entry.get("label")
    if label is not None and not isinstance(label, str):
        raise ConfigError(
            f"{where}: field '{loc}.label': expected a string, got {json_text(label)}"
        )
    if label and label.startswith(RESERVED_LABELS):
        raise ConfigError(
            f"{where}: field '{loc}.label': {label!r}: a label starting 'rule:' or "
            "'eval:' would share its name with a task rule's check or an eval's assertion "
            "in the findings ledger; choose another label"
        )
    conditions = entry.get("conditions", [])
    if "conditions" in entry and (
        not isinstance(conditions, list)
        or not conditions
        or not all(isinstance(c, str) and c for c in conditions)
        or len(set(conditions)) != len(conditions)
    ):
        raise ConfigError(
            f"{where}: field '{loc}.conditions': expected a non-empty list of condition "
            f"names, each once, got {json_text(conditions)}"
        )
    name = label or use
    before = [
        (e.get("label") or e.get("use"), bool(e.get("label"))) for e in (*earlier, *entries[:i])
    ]
    if any(name == other and (label or labelled) for other, labelled in before):
        field = "label" if label else "use"
        raise ConfigError(
            f"{where}: field '{loc}.{field}': {name!r} names an evaluator before it too "
            "(a label, or an unlabelled evaluator's use); a label names one evaluator's "
            "check, in the findings ledger and the reports: give one another label"
        )
    numbered = numbered_checks(
        [str(e.get("label") or e.get("use")) for e in (*earlier, *entries[: i + 1])]
    )
    if numbered[-1] in numbered[:-1]:
        raise ConfigError(f"{where}: {_numbered_clash(loc, use, label, numbered[-1])}")
    cls = known[use]
    raw = {k: v for k, v in entry.items() if k not in COMMON_KEYS}
    try:
        params = cls.Params.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(
            describe_validation_error(where, exc, cls.Params, prefix=loc, also=COMMON_KEYS)
        )
    problem = params.case_problem(case_dir) if case_dir is not None else None
    if problem:
        at = f"{loc}.{problem.field}" if problem.field else loc
        raise ConfigError(f"{where}: field '{at}': {problem.text}")
    return EvaluatorSpec(
        use=use,
        params=params.model_dump(mode="json", by_alias=True),
        gate=gate,
        weight=float(weight),
        index=index,
        field=loc,
        label=label,
        conditions=conditions,
    )


def error_result(spec: EvaluatorSpec, message: str, **details: Any) -> EvaluatorResult:
    """An evaluator **error**: not a low score. The trial becomes ``eval-error``."""
    return EvaluatorResult(
        use=spec.use,
        label=spec.label or None,
        passed=False,
        score=0.0,
        gate=spec.gate,
        weight=spec.weight,
        error=True,
        message=message,
        details=details,
    )


def scored_result(
    spec: EvaluatorSpec,
    passed: bool,
    score: float | None = None,
    message: str = "",
    metrics: dict[str, float] | None = None,
    **details: Any,
) -> EvaluatorResult:
    return EvaluatorResult(
        use=spec.use,
        label=spec.label or None,
        passed=passed,
        score=(100.0 if passed else 0.0) if score is None else score,
        gate=spec.gate,
        weight=spec.weight,
        message=message,
        metrics=metrics or {},
        details=details,
    )


CombinerFn = Callable[[list[EvaluatorResult], float], tuple[bool, float]]


def run_logged(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    log: Path,
    stdin: str | None = None,
) -> Outcome:
    """Run a program for an evaluator and write what it ran and printed to ``log`` (an
    :class:`~proctor.models.logs.EvaluatorLog`); OSError when it cannot be started (also
    logged)."""
    started = time.monotonic()
    record = EvaluatorLog(argv=list(argv), cwd=str(cwd))
    try:
        outcome = run_captured(argv, cwd=cwd, env=env, timeout=timeout, stdin=stdin)
    except OSError as exc:
        record.error = str(exc)
        write_record(log, record)
        raise
    record.exit_code = outcome.returncode
    record.timed_out = outcome.timed_out
    record.stdout, record.stderr = outcome.stdout, outcome.stderr
    record.stdout_bytes, record.stderr_bytes = outcome.stdout_bytes, outcome.stderr_bytes
    record.stopped = outcome.stopped_for_output()
    record.duration_ms = round((time.monotonic() - started) * 1000, 3)
    write_record(log, record)
    return outcome
