"""proctor: evaluate coding agents and the add-ons built for them.

The public API (:mod:`proctor.api`) and the record models are importable from here; they load
on first use, so ``import proctor`` stays cheap::

    import proctor

    result = proctor.run("examples/cases")
    run = proctor.load_run(result.paths.root)
    trajectory = proctor.parse_transcript("path/to/session.jsonl")
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from proctor._version import __version__

if TYPE_CHECKING:
    from proctor.api import load_run, parse_transcript, recompute_run, run
    from proctor.errors import ConfigError, ProctorError, SchemaVersionError
    from proctor.exit_codes import ExitCode
    from proctor.models.ab import ABGateResult, ABReport
    from proctor.models.case import Case, EvaluatorSpec
    from proctor.models.config import AgentProfile, CaseConfig, Gate, TopConfig
    from proctor.models.plan import RunPlan, TrialSpec
    from proctor.models.process import ProcessMetrics, RuleResult
    from proctor.models.run import ConfigRecord, ResolvedRecord, RunManifest
    from proctor.models.suite import GroupStats, SuiteRecord
    from proctor.models.trajectory import Event, ModelUsage, Trajectory
    from proctor.models.trial import (
        EvalResultRecord,
        EvaluatorResult,
        QuestionRecord,
        TrialRecord,
    )
    from proctor.report.stored import StoredRun
    from proctor.session.request import RunResult

_EXPORTS: dict[str, str] = {
    "run": "proctor.api",
    "load_run": "proctor.api",
    "recompute_run": "proctor.api",
    "parse_transcript": "proctor.api",
    "RunResult": "proctor.session.request",
    "StoredRun": "proctor.report.stored",
    "ExitCode": "proctor.exit_codes",
    "ProctorError": "proctor.errors",
    "ConfigError": "proctor.errors",
    "SchemaVersionError": "proctor.errors",
    "TrialRecord": "proctor.models.trial",
    "EvaluatorResult": "proctor.models.trial",
    "EvalResultRecord": "proctor.models.trial",
    "QuestionRecord": "proctor.models.trial",
    "SuiteRecord": "proctor.models.suite",
    "GroupStats": "proctor.models.suite",
    "RunManifest": "proctor.models.run",
    "ConfigRecord": "proctor.models.run",
    "ResolvedRecord": "proctor.models.run",
    "ABReport": "proctor.models.ab",
    "ABGateResult": "proctor.models.ab",
    "ProcessMetrics": "proctor.models.process",
    "RuleResult": "proctor.models.process",
    "Trajectory": "proctor.models.trajectory",
    "Event": "proctor.models.trajectory",
    "ModelUsage": "proctor.models.trajectory",
    "Case": "proctor.models.case",
    "EvaluatorSpec": "proctor.models.case",
    "RunPlan": "proctor.models.plan",
    "TrialSpec": "proctor.models.plan",
    "TopConfig": "proctor.models.config",
    "CaseConfig": "proctor.models.config",
    "AgentProfile": "proctor.models.config",
    "Gate": "proctor.models.config",
}

__all__ = [
    "ABGateResult",
    "ABReport",
    "AgentProfile",
    "Case",
    "CaseConfig",
    "ConfigError",
    "ConfigRecord",
    "EvalResultRecord",
    "EvaluatorResult",
    "EvaluatorSpec",
    "Event",
    "ExitCode",
    "Gate",
    "GroupStats",
    "ModelUsage",
    "ProcessMetrics",
    "ProctorError",
    "QuestionRecord",
    "ResolvedRecord",
    "RuleResult",
    "RunManifest",
    "RunPlan",
    "RunResult",
    "SchemaVersionError",
    "StoredRun",
    "SuiteRecord",
    "TopConfig",
    "Trajectory",
    "TrialRecord",
    "TrialSpec",
    "__version__",
    "load_run",
    "parse_transcript",
    "recompute_run",
    "run",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'proctor' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
