"""The reporter registry: how a run's results are rendered, by name (``--reporter``).

=========== ============== ==============================================================
name        file           what
=========== ============== ==============================================================
markdown    ``suite.md``   the aggregate for people (the default)
json        ``suite.json`` the aggregate as a record
junit       ``junit.xml``  one testsuite per group, one testcase per trial (for CI)
html        ``report.html`` the run and its trials as one self-contained page (no network)
=========== ============== ==============================================================
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from proctor.errors import ConfigError, ProctorError
from proctor.models.io import model_to_json, write_text_atomic
from proctor.util.files import read_head
from proctor.util.json_shown import name_shown
from proctor.util.masking import mask
from proctor.util.text import blank_in_list, noun_for

if TYPE_CHECKING:
    from proctor.models.run import RunManifest
    from proctor.models.suite import SuiteRecord
    from proctor.models.trial import TrialRecord
    from proctor.report.pooled_runs import PooledRead

Render = Callable[..., str]
"""``render(suite, records, run_dir=None)``: ``run_dir`` is the run's folder when the records
come from one (the HTML report reads the trials' files from it). The Markdown, JUnit and HTML
reporters also take ``pooled``, the runs read as one sample set the records were pooled from
(:class:`proctor.report.pooled_runs.PooledRead`): each trial's own run, repeat and folder, and
what the runs do not share. Each titles its report for the command that made the records
(:func:`command_of`): ``# proctor eval run-…`` for a run of ``proctor eval``."""


@dataclass(frozen=True)
class Reporter:
    name: str
    file_name: str
    """The file the reporter's output is written to in a run folder."""
    render: Render


def _json(suite: SuiteRecord, records: Sequence[TrialRecord], run_dir: Path | None = None) -> str:
    return model_to_json(suite)


def command_of(run_dir: Path | None, pooled: PooledRead | None = None) -> str:
    """The command that made the records, as a report's title names it: ``eval`` for a run of
    ``proctor eval``, ``record`` for a session ``proctor record`` recorded (of runs pooled,
    when every one is), else ``run`` (also when the run's ``run.json`` does not read: its
    title was always ``run``)."""
    from proctor.models.io import read_record
    from proctor.models.run import RunManifest

    if pooled is not None:
        manifests = [run.manifest for run in pooled.runs]
        if not manifests or any(m is None for m in manifests):
            return "run"
        commands = {_command(m) for m in manifests if m is not None}
        return commands.pop() if len(commands) == 1 else "run"
    if run_dir is None:
        return "run"
    try:
        manifest = read_record(run_dir / "run.json", RunManifest)
    except (ProctorError, OSError):
        return "run"
    return _command(manifest)


def _command(manifest: RunManifest) -> str:
    return "eval" if manifest.by_eval else "record" if manifest.by_record else "run"


# Each renderer's module is imported when the reporter is used: `proctor run` checks the
# names given to --reporter before any trial, and the JUnit reporter's xml is seldom needed.
def _markdown(
    suite: SuiteRecord,
    records: Sequence[TrialRecord],
    run_dir: Path | None = None,
    pooled: PooledRead | None = None,
) -> str:
    from proctor.report.markdown import render_markdown

    command = command_of(run_dir, pooled)
    if pooled is None:
        return render_markdown(suite, records, command=command)
    return render_markdown(suite, records, pooled.folders, pooled.markdown, command=command)


def _junit(
    suite: SuiteRecord,
    records: Sequence[TrialRecord],
    run_dir: Path | None = None,
    pooled: PooledRead | None = None,
) -> str:
    from proctor.report.junit import render_junit

    trials = pooled.trials if pooled is not None else None
    return render_junit(suite, records, trials, command=command_of(run_dir, pooled))


def _html(
    suite: SuiteRecord,
    records: Sequence[TrialRecord],
    run_dir: Path | None = None,
    pooled: PooledRead | None = None,
) -> str:
    from proctor.report.html import render_html

    command = command_of(run_dir, pooled)
    if pooled is None:
        return render_html(suite, records, run_dir, command=command)
    return render_html(suite, records, run_dir, pooled.folders, pooled.sentences, command=command)


REPORTERS: dict[str, Reporter] = {
    r.name: r
    for r in (
        Reporter("markdown", "suite.md", _markdown),
        Reporter("json", "suite.json", _json),
        Reporter("junit", "junit.xml", _junit),
        Reporter("html", "report.html", _html),
    )
}
ALWAYS_WRITTEN = ("json", "markdown")
"""Every run folder holds ``suite.json`` and ``suite.md``; other reporters write when asked."""


def reporter_names(values: Iterable[str]) -> list[str]:
    """Names from ``--reporter`` values (repeatable, each may be comma-separated), in order,
    without repeats; ConfigError for a name that is not registered."""
    values = list(values)
    names: list[str] = []
    for value in values:
        blank = blank_in_list(value, "reporter name", "markdown,junit", " \t")
        if blank:
            raise ConfigError(f"--reporter: {blank}")
        for name in (n.strip(" \t") for n in value.split(",")):  # (a no-break space is kept)
            if name and name not in names:
                names.append(name)
    if not names and values:  # only commas or blanks
        raise ConfigError(f"--reporter: no reporter named (known: {', '.join(sorted(REPORTERS))})")
    unknown = [n for n in names if n not in REPORTERS]
    if unknown:
        raise ConfigError(
            f"--reporter: unknown {noun_for(len(unknown), 'reporter')} "
            f"{', '.join(map(name_shown, unknown))} "
            f"(known: {', '.join(sorted(REPORTERS))})"
        )
    return names


def printed(names: Sequence[str], as_json: bool = False) -> str:
    """The one reporter whose output goes to stdout, of the ``names`` chosen: JSON with
    ``--json``, else the Markdown report when it is among them, else the first named. One
    document on stdout, whatever else is written (JSON after JUnit XML reads as neither)."""
    if as_json:
        return "json"
    return "markdown" if "markdown" in names or not names else names[0]


_HEADS = {
    "markdown": re.compile(r"# proctor (?:run|eval|record) "),
    "json": re.compile(r'\{\s*"schemaVersion":\s*\d+,\s*"runId":'),
    "junit": re.compile(r"<\?xml[^>]*\?>\s*<testsuites name=\"proctor "),
    "html": re.compile(r"<!doctype html>\s*<html[^>]*><head><meta [^>]*><title>proctor "),
}
"""How each reporter's output begins, as proctor renders it (the title naming proctor)."""


def written_by_proctor(name: str, path: Path) -> bool:
    """Whether the file ``path`` begins as reporter ``name``'s output does: a report of that
    kind proctor wrote (``proctor report --output`` replaces one, and nothing else, unasked)."""
    try:  # a regular file only: a named pipe is not opened (it would block until a writer came)
        head = read_head(path, 1024).decode("utf-8", errors="replace")
    except OSError:
        return False
    return _HEADS[name].match(head) is not None


def render_into(
    folder: Path, suite: SuiteRecord, records: Sequence[TrialRecord], names: Iterable[str]
) -> dict[str, str]:
    """Render each named reporter (once, in order) and write its file into ``folder``; the
    rendered texts by name."""
    outputs: dict[str, str] = {}
    for name in dict.fromkeys(names):
        reporter = REPORTERS[name]
        # Masked as written (every registered key): the text printed is the file's.
        outputs[name] = mask(reporter.render(suite, records, run_dir=folder))
        write_text_atomic(folder / reporter.file_name, outputs[name])
    return outputs
