"""Running an advisor on checkpoints and checking the figures of its advice.

The advisor is a shell command (``/bin/sh -c``). For each checkpoint it reads exactly that
checkpoint's signals as JSON on stdin and prints its advice on stdout. It runs in its own
process group (killed afterwards, with anything it left behind), with a deadline, in a scratch
home, its ``TMPDIR`` beside that home in the same scratch folder (so its temporary files go
with it), and with the parent's environment minus credentials and provider settings (see
:mod:`proctor.workspace.environment`) except the variables the user forwards by name.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from proctor.models.base import CamelModel
from proctor.util.cutting import secret_spans
from proctor.util.files import temporary_folder
from proctor.util.masking import mask, register_secret
from proctor.util.processes import OUTPUT_LIMIT_BYTES, byte_size, run_captured
from proctor.util.text import plural
from proctor.workspace.environment import agent_environment

from .checkpoints import Checkpoint, CheckpointFile, Selection, has_waste, is_eligible
from .figures import CHECKED_FROM, check_advice

NOT_JUDGED = (
    "whether the advice is good, true or useful",
    f"whether figures below {CHECKED_FROM:g} are right (they are not checked)",
    "whether a cited figure is used with its right meaning (a figure copied from the wrong "
    "signal passes)",
    "whether the advice follows from the signals or addresses the waste they show",
)
NOTHING_RAN = (
    "no checkpoint whose signals hold a figure ran, and a grounding check cannot pass without "
    "running the advisor on at least one"
)
SAID_NOTHING = (
    "the advisor printed nothing on any checkpoint whose signals hold a figure: nothing was "
    "checked, and an advisor that says nothing (a broken one, silently) does not pass"
)
ERROR_TAIL_CHARS = 300
#: The advice kept of a checkpoint; an advisor printing more is stopped there.
ADVICE_LIMIT_BYTES = OUTPUT_LIMIT_BYTES
#: The ungrounded figures of a checkpoint listed in ``--json`` (all are counted).
LISTED_FIGURES = 100


class UngroundedFigure(CamelModel):
    figure: str
    value: float | None
    """None when the figure is a forwarded variable's value (``--env``), shown masked."""
    text: str


class CheckpointResult(CamelModel):
    id: str
    waste: bool
    ok: bool
    ungrounded: list[UngroundedFigure] = []
    """The first :data:`LISTED_FIGURES` ungrounded figures."""
    ungrounded_count: int = 0
    """How many ungrounded figures the advice holds in all."""
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
    with temporary_folder("proctor-grounding-") as scratch:  # links in it never followed
        env = _advisor_environment(scratch, settings)
        notes: list[str] = []
        results = [
            _check_one(
                checkpoint, has_waste(checkpoint, file.waste_thresholds), settings, env, notes
            )
            for checkpoint in selection.checkpoints
        ]
    eligible = [r for r, c in zip(results, selection.checkpoints, strict=True) if is_eligible(c)]
    return summarise(results, [*selection.notes, *notes], eligible=eligible)


def _advisor_environment(scratch: Path, settings: AdvisorSettings) -> dict[str, str]:
    """The advisor's environment: ``HOME`` in ``scratch/home``, and ``TMPDIR`` in
    ``scratch/tmp`` (the user's own, or one forwarded with ``--env``, would keep the temporary
    files it leaves after the check)."""
    home, temp = scratch / "home", scratch / "tmp"
    home.mkdir()
    temp.mkdir()
    env = agent_environment(settings.parent_env, home=home, forward=settings.forward)
    env["TMPDIR"] = str(temp)
    return env


def summarise(
    results: list[CheckpointResult],
    notes: Iterable[str],
    *,
    eligible: list[CheckpointResult] | None = None,
) -> GroundingReport:
    """The report of the checkpoints run. It passes only when the advisor ran on at least one
    checkpoint whose signals hold a figure (``eligible``: those results; default all) and said
    something there: advice of no figure about signals of none checks nothing, and an advisor
    that printed nothing anywhere (broken, silently) passes nothing."""
    failed = sum(1 for r in results if r.ungrounded)
    errors = sum(1 for r in results if r.error is not None)
    eligible = results if eligible is None else eligible
    said = [r for r in eligible if r.error is None and r.advice]
    extra = [] if eligible else [NOTHING_RAN]
    if eligible and not said and not errors:
        extra.append(SAID_NOTHING)
    return GroundingReport(
        ok=bool(said) and failed == 0 and errors == 0,
        checked=len(results),
        failed=failed,
        errors=errors,
        results=results,
        not_judged=list(NOT_JUDGED),
        notes=[*notes, *extra],
    )


def _check_one(
    checkpoint: Checkpoint,
    waste: bool,
    settings: AdvisorSettings,
    env: dict[str, str],
    notes: list[str],
) -> CheckpointResult:
    """The advisor's advice on one checkpoint and its ungrounded figures; a note appended to
    ``notes`` when figures within a masked value were left out."""
    signals = json.dumps(checkpoint.signals)
    try:
        outcome = run_captured(
            ["/bin/sh", "-c", settings.command],
            cwd=settings.cwd,
            env=env,
            timeout=settings.timeout,
            stdin=signals,
            output_limit=ADVICE_LIMIT_BYTES,
        )
    except OSError as exc:
        return _error(checkpoint, waste, f"the advisor could not be started ({exc})")
    said = outcome.stdout.strip()
    advice = mask(said)
    if outcome.stdout_cut:
        limit = byte_size(ADVICE_LIMIT_BYTES)
        message = f"the advisor printed more than {limit} of advice and was stopped there"
        return _error(checkpoint, waste, f"{message} (its first {limit} are kept)", advice)
    if outcome.timed_out:
        return _error(checkpoint, waste, f"the advisor ran past {settings.timeout:g}s", advice)
    if outcome.returncode != 0:
        tail = error_tail(mask(outcome.stderr.strip()))
        detail = f": {tail}" if tail else ""
        return _error(checkpoint, waste, f"the advisor exited {outcome.returncode}{detail}", advice)
    # Checked as the advisor said it, shown masked: a figure that is a forwarded key's value
    # is checked like any other (masked first, it was never checked). A figure inside a key
    # (the digit runs of a token) is part of the key, not a figure: left out, never shown.
    secrets = secret_spans(said)
    found = check_advice(said, checkpoint.signals, secrets, limit=LISTED_FIGURES)
    ungrounded = [
        UngroundedFigure(
            figure=mask(u.figure),
            value=None if u.hidden or mask(u.figure) != u.figure else u.value,
            text=mask(u.text),
        )
        for u in found.shown
    ]
    if found.left_out:
        notes.append(
            f"{checkpoint.id}: {plural(found.left_out, 'figure')} within a masked value of the "
            "advice left out (part of a secret, not figures it cites)"
        )
    return CheckpointResult(
        id=checkpoint.id,
        waste=waste,
        ok=not found.ungrounded,
        ungrounded=ungrounded,
        ungrounded_count=found.ungrounded,
        advice=advice,
    )


def error_tail(stderr: str, room: int = ERROR_TAIL_CHARS) -> str:
    """The last lines of ``stderr`` that fit in ``room`` characters, whole (a traceback's last
    line says what broke); a last line longer than ``room`` is its end after ``…``."""
    lines = stderr.splitlines()
    kept: list[str] = []
    while lines and len("\n".join([lines[-1], *kept])) <= room:
        kept.insert(0, lines.pop())
    if not kept and lines:
        return "…" + lines[-1][-(room - 1) :]
    return "\n".join(kept)


def _error(checkpoint: Checkpoint, waste: bool, message: str, advice: str = "") -> CheckpointResult:
    return CheckpointResult(id=checkpoint.id, waste=waste, ok=False, advice=advice, error=message)
