"""What ``--repeat-check`` found (:class:`RepeatCheck`): its repetitions' runs, what was compared
and left out, every difference, its exit code, and how it is said: the ``--json`` object and the
markdown summary.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proctor.exit_codes import ExitCode
from proctor.session.repeat_comparison import Difference, Exclusion
from proctor.util.text import plural


@dataclass(frozen=True)
class Repetition:
    number: int
    folder: Path | None
    """The repetition's run folder; None when it only re-evaluated recorded trials."""
    exit_code: int
    """The run's own exit code (its gates); it does not decide the repeat check's."""
    finished: bool = True
    """False for the repetition an interrupt cut short."""


@dataclass
class RepeatCheck:
    """What ``--repeat-check`` found: the runs, what was compared and left out, every
    difference."""

    repetitions: int
    runs: list[Repetition] = field(default_factory=list)
    trials: int = 0
    evaluators: int = 0
    excluded_trials: list[Exclusion] = field(default_factory=list)
    excluded_evaluators: list[Exclusion] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)
    interrupted: bool = False
    recorded: Path | None = None
    """The stored run whose trials were re-evaluated (``--recorded``)."""
    recorded_trials: int = 0
    """Its trials re-evaluated in each repetition."""

    @property
    def exit_code(self) -> int:
        if self.interrupted:
            return ExitCode.INTERRUPTED
        return ExitCode.GATE_FAILED if self.differences else ExitCode.OK

    @property
    def finished(self) -> int:
        """The repetitions that ran to their end."""
        return sum(1 for r in self.runs if r.finished)

    @property
    def compared(self) -> bool:
        """Whether two repetitions finished, so that anything was compared."""
        return self.finished >= 2

    @property
    def verdict(self) -> str:
        if self.interrupted:
            return f"interrupted after {self.finished} of {self.repetitions} repetitions finished"
        if self.differences:
            return f"different ({plural(len(self.differences), 'difference')})"
        return "identical"

    def to_dict(self) -> dict[str, Any]:
        return {
            "repetitions": self.repetitions,
            "runs": [
                {
                    "repetition": r.number,
                    "folder": str(r.folder) if r.folder is not None else None,
                    "exitCode": r.exit_code,
                }
                for r in self.runs
            ],
            "recorded": str(self.recorded) if self.recorded is not None else None,
            "recordedTrials": self.recorded_trials,
            "trialsCompared": self.trials if self.compared else 0,
            "evaluatorsCompared": self.evaluators if self.compared else 0,
            "excludedTrials": [e.to_dict() for e in self.excluded_trials],
            "excludedEvaluators": [e.to_dict() for e in self.excluded_evaluators],
            "identical": not self.differences and not self.interrupted,
            "interrupted": self.interrupted,
            "differenceCount": len(self.differences),
            "firstDifference": self.differences[0].to_dict() if self.differences else None,
            "differences": [d.to_dict() for d in self.differences],
            "exitCode": self.exit_code,
        }

    def markdown(self) -> str:
        lines = [
            "# proctor repeat check",
            "",
            f"- verdict: **{self.verdict}**",
            f"- repetitions: {self.repetitions}",
        ]
        if self.compared:
            lines += [
                f"- trials compared: {self.trials} per repetition",
                f"- evaluators compared: {self.evaluators} per repetition",
                f"- differences: {len(self.differences)}",
            ]
            if self.evaluators == 0:
                lines.append(
                    "- note: no evaluator result was compared (none ran, or every one is "
                    "model-backed): only statuses, process metrics and rules were"
                )
        else:
            lines.append("- nothing compared: fewer than two repetitions finished")
        if self.differences:
            lines.append(f"- first difference: {self.differences[0].sentence()}")
        for title, items in (
            ("Excluded trials", self.excluded_trials),
            ("Excluded evaluators", self.excluded_evaluators),
        ):
            if items:
                lines += ["", f"## {title}", "", *(f"- `{e.what}`: {e.reason}" for e in items)]
        lines += ["", "## Runs", ""]
        lines += [_run_line(r) for r in self.runs]
        if self.recorded is not None:
            lines.append(
                f"- recorded trials of `{self.recorded}` re-evaluated in each: "
                f"{self.recorded_trials}"
            )
        return "\n".join(lines) + "\n"


def _run_line(run: Repetition) -> str:
    if run.folder is not None:
        stopped = not run.finished or run.exit_code == ExitCode.INTERRUPTED  # (its reports)
        cut = ", interrupted" + " after its trials ended" * run.finished if stopped else ""
        return f"- {run.number}: `{run.folder}` (its own exit code {run.exit_code}{cut})"
    if not run.finished:
        return f"- {run.number}: interrupted"
    return f"- {run.number}: recorded trials re-evaluated only"
