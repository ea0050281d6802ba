"""Running an advisor on checkpoints and checking the figures of its advice.

The advisor is a shell command (``/bin/sh -c``). For each checkpoint it reads exactly that
checkpoint's signals as JSON on stdin and prints its advice on stdout. It runs in its own
process group (killed afterwards, with anything it left behind), with a deadline, in a scratch
home, and with the parent's environment minus credentials and provider settings (see
:mod:`proctor.workspace.environment`) except the variables the user forwards by name.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from proctor.models.base import CamelModel
from proctor.util.masking import mask, register_secret
from proctor.util.processes import run_captured
from proctor.workspace.environment import agent_environment

from .checkpoints import Checkpoint, CheckpointFile, Selection, has_waste
from .figures import CHECKED_FROM, ungrounded_figures

NOT_JUDGED = (
    "whether the advice is good, true or useful",
    f"whether figures below {CHECKED_FROM:g} are right (they are not checked)",
    "whether a cited figure is used with its right meaning (a figure copied from the wrong "
    "signal passes)",
    "whether the advice follows from the signals or addresses the waste they show",
)
NOTHING_RAN = (
    "no checkpoint ran, and a grounding check cannot pass without running the advisor on at "
    "least one checkpoint whose signals hold a figure"
)
ERROR_TAIL_CHARS = 300


class UngroundedFigure(CamelModel):
    figure: str
    value: float
    text: str


class CheckpointResult(CamelModel):
    id: str
    waste: bool
    ok: bool
    ungrounded: list[UngroundedFigure] = []
    advice: str = ""
    error: str | None = None


class GroundingReport(CamelModel):
    ok: bool
    checked: int
    failed: int
    errors: int
    results: list[CheckpointResult]
    not_judged: list[str]
    notes: list[str] = []


@dataclass(frozen=True)
class AdvisorSettings:
    """How to run the advisor: the command, its deadline, where, and what it may see."""

    command: str
    timeout: float = 30.0
    cwd: Path = field(default_factory=Path.cwd)
    forward: tuple[str, ...] = ()
    parent_env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))


def check_grounding(
    file: CheckpointFile, selection: Selection, settings: AdvisorSettings
) -> GroundingReport:
    """Run the advisor on each selected checkpoint and check every figure of its advice."""
    for name in settings.forward:
        if name in settings.parent_env:
            register_secret(settings.parent_env[name], named=True)
    with tempfile.TemporaryDirectory(prefix="proctor-grounding-") as scratch:
        env = agent_environment(settings.parent_env, home=Path(scratch), forward=settings.forward)
        results = [
            _check_one(checkpoint, has_waste(checkpoint, file.waste_thresholds), settings, env)
            for checkpoint in selection.checkpoints
        ]
    return summarise(results, selection.notes)


def summarise(results: list[CheckpointResult], notes: Iterable[str]) -> GroundingReport:
    failed = sum(1 for r in results if r.ungrounded)
    errors = sum(1 for r in results if r.error is not None)
    return GroundingReport(
        ok=bool(results) and failed == 0 and errors == 0,
        checked=len(results),
        failed=failed,
        errors=errors,
        results=results,
        not_judged=list(NOT_JUDGED),
        notes=[*notes, *([] if results else [NOTHING_RAN])],
    )


def _check_one(
    checkpoint: Checkpoint, waste: bool, settings: AdvisorSettings, env: dict[str, str]
) -> CheckpointResult:
    signals = json.dumps(checkpoint.signals)
    try:
        outcome = run_captured(
            ["/bin/sh", "-c", settings.command],
            cwd=settings.cwd,
            env=env,
            timeout=settings.timeout,
            stdin=signals,
        )
    except OSError as exc:
        return _error(checkpoint, waste, f"the advisor could not be started ({exc})")
    advice = mask(outcome.stdout.strip())
    if outcome.timed_out:
        return _error(checkpoint, waste, f"the advisor ran past {settings.timeout:g}s", advice)
    if outcome.returncode != 0:
        tail = mask(outcome.stderr.strip())[-ERROR_TAIL_CHARS:]
        detail = f": {tail}" if tail else ""
        return _error(checkpoint, waste, f"the advisor exited {outcome.returncode}{detail}", advice)
    ungrounded = [
        UngroundedFigure(figure=u.figure, value=u.value, text=u.text)
        for u in ungrounded_figures(advice, checkpoint.signals)
    ]
    return CheckpointResult(
        id=checkpoint.id, waste=waste, ok=not ungrounded, ungrounded=ungrounded, advice=advice
    )


def _error(checkpoint: Checkpoint, waste: bool, message: str, advice: str = "") -> CheckpointResult:
    return CheckpointResult(id=checkpoint.id, waste=waste, ok=False, advice=advice, error=message)
