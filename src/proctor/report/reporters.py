"""The reporter registry: how a run's results are rendered, by name (``--reporter``).

=========== ============== ==============================================================
name        file           what
=========== ============== ==============================================================
markdown    ``suite.md``   the aggregate for people (the default)
json        ``suite.json`` the aggregate as a record
junit       ``junit.xml``  one testsuite per group, one testcase per trial (for CI)
=========== ============== ==============================================================
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from proctor.errors import ConfigError
from proctor.models.io import model_to_json, write_text_atomic
from proctor.models.suite import SuiteRecord
from proctor.models.trial import TrialRecord
from proctor.report.junit import render_junit
from proctor.report.markdown import render_markdown

Render = Callable[[SuiteRecord, Sequence[TrialRecord]], str]


@dataclass(frozen=True)
class Reporter:
    name: str
    file_name: str
    """The file the reporter's output is written to in a run folder."""
    render: Render


def _json(suite: SuiteRecord, records: Sequence[TrialRecord]) -> str:
    return model_to_json(suite)


REPORTERS: dict[str, Reporter] = {
    r.name: r
    for r in (
        Reporter("markdown", "suite.md", render_markdown),
        Reporter("json", "suite.json", _json),
        Reporter("junit", "junit.xml", render_junit),
    )
}
ALWAYS_WRITTEN = ("json", "markdown")
"""Every run folder holds ``suite.json`` and ``suite.md``; other reporters write when asked."""


def reporter_names(values: Iterable[str]) -> list[str]:
    """Names from ``--reporter`` values (repeatable, each may be comma-separated), in order,
    without repeats; ConfigError for a name that is not registered."""
    names: list[str] = []
    for value in values:
        for name in (n.strip() for n in value.split(",")):
            if name and name not in names:
                names.append(name)
    unknown = [n for n in names if n not in REPORTERS]
    if unknown:
        raise ConfigError(
            f"--reporter: unknown reporter(s) {', '.join(unknown)} "
            f"(known: {', '.join(sorted(REPORTERS))})"
        )
    return names


def render_into(
    folder: Path, suite: SuiteRecord, records: Sequence[TrialRecord], names: Iterable[str]
) -> dict[str, str]:
    """Render each named reporter (once, in order) and write its file into ``folder``; the
    rendered texts by name."""
    outputs: dict[str, str] = {}
    for name in dict.fromkeys(names):
        reporter = REPORTERS[name]
        outputs[name] = reporter.render(suite, records)
        write_text_atomic(folder / reporter.file_name, outputs[name])
    return outputs
