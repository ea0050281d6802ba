"""Typed models of everything proctor reads from users or writes to disk."""

from proctor.models.base import SCHEMA_VERSION, RecordModel, UserModel
from proctor.models.config import AgentProfile, CaseConfig, Gate, Provision, TopConfig
from proctor.models.suite import GroupStats, RunManifest, SuiteRecord
from proctor.models.trajectory import Event, ModelUsage, ParseCoverage, Trajectory
from proctor.models.trial import EvaluatorResult, QuestionRecord, TrialRecord

__all__ = [
    "SCHEMA_VERSION",
    "AgentProfile",
    "CaseConfig",
    "EvaluatorResult",
    "Event",
    "Gate",
    "GroupStats",
    "ModelUsage",
    "ParseCoverage",
    "Provision",
    "QuestionRecord",
    "RecordModel",
    "RunManifest",
    "SuiteRecord",
    "TopConfig",
    "Trajectory",
    "TrialRecord",
    "UserModel",
]
