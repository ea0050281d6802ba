"""How ``proctor run --manifest`` stops short: after a pair a Ctrl-C or SIGTERM cut short, or
after a pair one of whose trials met a key a provider refused (each pair after it would meet
the same refusal); what it says then, and whether a pair's run met such a refusal."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from proctor.util.masking import mask
from proctor.util.text import one_line, plural

if TYPE_CHECKING:
    from proctor.models.run import ManifestRun
    from proctor.models.trial import TrialRecord
    from proctor.session.request import RunResult


def manifest_shown(path: Path) -> str:
    """The manifest as notes and errors name it: its path, or, for ``--manifest -``, what
    ``-`` stands for (a sentence naming ``-`` reads as a typo)."""
    return "the manifest read from standard input" if str(path) == "-" else str(path)


def _met_refusal(result: RunResult) -> TrialRecord | None:
    """The first of a pair's trials that ended on a key a provider refused, or None; None too
    for a pair a signal (Ctrl-C, SIGTERM) stopped: the manifest then stopped by hand."""
    from proctor.execute.refused import refused_key
    from proctor.exit_codes import ExitCode

    if result.suite.exit_code == ExitCode.INTERRUPTED and result.stopped_because is None:
        return None
    return next((record for record in result.report_records if refused_key(record)), None)


def _manifest_refused(
    path: Path, runs: list[ManifestRun], stopped: ManifestRun, met: TrialRecord
) -> int:
    """The manifest stopped after the pair ``stopped``, a trial of which (``met``) met a key
    a provider refused: the pairs after it are not started (each would meet the refusal,
    Claude Code's trials each after their whole timeoutSec); exit 130."""
    from proctor.exit_codes import ExitCode

    left = len(runs) - runs.index(stopped) - 1
    trial = f"{met.case}/{met.agent}/{met.condition}/{met.repeat}"
    again = " (the same manifest piped in again)" if str(path) == "-" else ""
    click.echo(
        f"proctor: stopped: a provider refused a key in trial {mask(one_line(trial))} of "
        f"{stopped.session}, and every pair after it would meet the same refusal; "
        f"{plural(left, 'run')} of {manifest_shown(path)} not started: mend the key, then the "
        f"same command{again} keeps the pairs that finished, runs again the trials that met "
        "the refusal and runs the others",
        err=True,
    )
    return int(ExitCode.INTERRUPTED)


def _refused_in(run_dir: Path) -> bool:
    """Whether a trial of the run in ``run_dir`` ended on a key a provider refused (a pair's
    run holds few trials: each record is read)."""
    from proctor.errors import ProctorError
    from proctor.execute.refused import refused_key
    from proctor.models.io import read_record
    from proctor.models.trial import TrialRecord
    from proctor.paths import RunPaths

    try:
        found_records = RunPaths(run_dir).trial_jsons()
    except OSError:  # a folder of it that cannot be listed: as a run without such a trial
        return False
    for found in found_records:
        try:
            if refused_key(read_record(found, TrialRecord)):
                return True
        except (ProctorError, OSError):
            continue
    return False


def _manifest_interrupted(path: Path, runs: list[ManifestRun], stopped: ManifestRun) -> int:
    from proctor.exit_codes import ExitCode

    left = len(runs) - runs.index(stopped) - 1
    again = " (the same manifest piped in again)" if str(path) == "-" else ""
    click.echo(
        f"proctor: interrupted; {plural(left, 'run')} of {manifest_shown(path)} not started: "
        f"the same command{again} keeps the pairs that finished, resumes the one cut short and "
        "runs the others",
        err=True,
    )
    return int(ExitCode.INTERRUPTED)
