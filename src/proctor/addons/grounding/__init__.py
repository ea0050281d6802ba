"""Grounding check for advice: an advisor reads a checkpoint's signals and prints advice; every
figure of 10 or more in the advice must appear among those signals."""

from .checkpoints import (
    DEFAULT_WASTE_THRESHOLDS,
    Checkpoint,
    CheckpointFile,
    Selection,
    has_waste,
    is_eligible,
    load_checkpoints,
    select_all,
    select_live,
)
from .figures import Figure, Ungrounded, figures_in, is_grounded, signal_figures, ungrounded_figures
from .from_run import checkpoints_from_run, trial_signals
from .report import exit_code, render_text
from .runner import (
    NOT_JUDGED,
    NOTHING_RAN,
    AdvisorSettings,
    CheckpointResult,
    GroundingReport,
    UngroundedFigure,
    check_grounding,
)

__all__ = [
    "DEFAULT_WASTE_THRESHOLDS",
    "NOTHING_RAN",
    "NOT_JUDGED",
    "AdvisorSettings",
    "Checkpoint",
    "CheckpointFile",
    "CheckpointResult",
    "Figure",
    "GroundingReport",
    "Selection",
    "Ungrounded",
    "UngroundedFigure",
    "check_grounding",
    "checkpoints_from_run",
    "exit_code",
    "figures_in",
    "has_waste",
    "is_eligible",
    "is_grounded",
    "load_checkpoints",
    "render_text",
    "select_all",
    "select_live",
    "signal_figures",
    "trial_signals",
    "ungrounded_figures",
]
