"""The ``html`` reporter: one self-contained HTML file with a run's page and each trial's
verdict (no server, no network: the style sheet, the chart library and the figures' script are
inlined), rendered from the same Jinja2 templates as the viewer's run and trial pages.

Every piece of agent output goes through autoescaping and :func:`clean_text` (secrets masked,
terminal control characters made visible), so a transcript cannot inject markup.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from functools import cache, partial
from pathlib import Path
from typing import Any

import jinja2

from proctor.models.suite import SuiteRecord
from proctor.models.trial import TrialRecord
from proctor.report.ab.analysis import UNLABELLED, dimension_title
from proctor.report.ab.markdown import (
    ab_overall_table,
    comparison_figure,
    metric_label,
    no_claim,
    runs_overall_table,
    verdict_word,
)
from proctor.report.ab.measures import ELAPSED_MEANS
from proctor.report.annotations import reason_before_annotation
from proctor.report.cut_short import CUT_SHORT, no_scored_trial_of
from proctor.report.eval_rows import eval_row
from proctor.report.html_model import Cell, figures, matrix, point_of
from proctor.report.pooled_runs import gate_line
from proctor.util.masking import mask
from proctor.util.text import (
    bound_text,
    controls_escaped,
    count_text,
    dollars_text,
    percent_text,
    plural,
    seconds_text,
)

TEMPLATES = Path(__file__).with_name("html_templates")
ASSETS = Path(__file__).with_name("html_assets")


def clean_text(value: object) -> str:
    """Text of agent output ready to be escaped into a page: registered secrets masked and
    control characters (terminal escapes among them) shown as ``\\x1b``-style escapes."""
    return controls_escaped(mask("" if value is None else str(value)))


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def template_environment(*extra: Path) -> jinja2.Environment:
    """Jinja2 over the shared templates (and ``extra`` folders first), autoescaping on."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([*extra, TEMPLATES]),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["clean"] = clean_text
    env.filters["pretty"] = _pretty
    env.filters["some_ks"] = some_ks
    env.filters["every_k"] = every_k
    env.filters["percent"] = percent_text
    env.filters["bound"] = partial(bound_text, digits=3, signed=False)
    # A difference: +0.500, -0.0003, and 0.000 with no sign (see `with_sign`).
    env.filters["delta"] = partial(bound_text, digits=3, signed=True)
    env.filters["plural"] = plural
    # Counts, seconds and dollars as `proctor report`'s Markdown shows them: 2,749, 0.33, $0.0123.
    env.filters["count"] = count_text
    env.filters["seconds"] = seconds_text
    env.filters["dollars"] = dollars_text
    env.filters["metric"] = metric_label
    # A group's figure, baseline → treatment (delta, CI), as `proctor compare` prints its kind.
    env.filters["figure"] = comparison_figure
    env.filters["dimension"] = dimension_title
    # A slice table only where some pair carries the label, as the Markdown shows them.
    env.filters["labelled"] = lambda slices: bool(slices) and set(slices) != {UNLABELLED}
    env.filters["verdict"] = verdict_word
    env.filters["reason_before_annotation"] = reason_before_annotation
    env.filters["eval_row"] = eval_row  # an eval's assertion, read as a case's evaluator
    env.filters["ab_overall"] = ab_overall_table
    env.filters["runs_overall"] = runs_overall_table
    env.globals["no_claim"] = no_claim  # a verdict withheld, in the Markdown's words
    env.globals["elapsed_means"] = ELAPSED_MEANS  # what an elapsed time measures, as there
    # The thresholds applied, and a gate given with --config said so with the run's own: the
    # Markdown's Gate line.
    env.globals["gate_line"] = gate_line
    # A group with no scored trial: its trials in error and those a stop cut short, counted
    # apart in the Markdown's words.
    env.globals["no_scored_trial"] = no_scored_trial_of
    env.globals["cut_short_words"] = CUT_SHORT
    return env


_SHOWN_KS = frozenset({1, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000})


def some_ks(ks: Any) -> list[str]:
    """The ``k`` of pass@k and pass^k a table shows: 1, 2, 3, 5, 10, 20, 50, … and the
    largest (a group of 120 repeats would otherwise need 240 columns; the JSON keeps every
    one)."""
    keys = [str(k) for k in ks]
    numbers = [int(k) for k in keys if k.isdecimal()]
    largest = max(numbers, default=0)
    return [k for k in keys if not k.isdecimal() or int(k) in _SHOWN_KS or int(k) == largest]


def every_k(groups: Any, table: str) -> list[str]:
    """Every ``k`` of the groups' ``table`` (``pass_at_k`` or ``pass_hat_k``), in order: a group
    of five repeats has its pass@5 shown beside groups of one (the suite's mean table stops
    at the fewest repeats)."""
    ks = {str(k) for group in groups for k in getattr(group, table)}
    return sorted(ks, key=lambda k: (not k.isdecimal(), int(k) if k.isdecimal() else 0, k))


@cache
def asset(name: str) -> str:
    """One of the shared static files (style sheet, chart library, figures' script)."""
    return (ASSETS / name).read_text(encoding="utf-8")


def _anchor(key: str) -> str:
    return f"#trial-{key}"


def render_html(
    suite: SuiteRecord,
    records: Sequence[TrialRecord],
    run_dir: Path | None = None,
    folders: Mapping[tuple[str, str, str, int], Path] | None = None,
    runs_read: Sequence[str] = (),
    *,
    command: str = "run",
) -> str:
    """The whole report as one HTML document; with ``run_dir`` (one run's records) or
    ``folders`` (each trial's folder, for records pooled from several runs), each trial also
    shows its first steps, its diff and its terminal (read from its folder, bounded).
    ``runs_read``: what the page says, under its title, of the runs the records were pooled
    from (which runs, what they do not share), one sentence each. ``command``: what made the
    records, in the page's title (``eval``: ``proctor eval run-…``, else ``Run run-…``)."""
    from proctor.report.html_artifacts import Artifacts, folder_artifacts, trial_artifacts

    def artifacts(record: TrialRecord) -> object:
        if folders is not None:
            folder = folders.get((record.case, record.agent, record.condition, record.repeat))
            return folder_artifacts(folder) if folder is not None else Artifacts()
        assert run_dir is not None
        return trial_artifacts(run_dir, record)

    def folder_of(record: TrialRecord) -> str | None:
        # Pooled, a trial's repeat is numbered on across runs: its own folder names it.
        key = (record.case, record.agent, record.condition, record.repeat)
        folder = folders.get(key) if folders is not None else None
        if folder is None:
            return None
        folder = Path(os.path.abspath(folder))  # <run>/trials/<case>/<agent>/<condition>/<n>
        return str(folder.relative_to(folder.parents[5]))

    points = [point_of(r, _anchor(f"{r.case}/{r.agent}/{r.condition}/{r.repeat}")) for r in records]

    first: dict[tuple[str, str, str], str] = {}
    for p in points:
        first.setdefault((p.case, p.agent, p.condition), p.url)

    def group_url(case: str, agent: str, condition: str) -> str:
        return first.get((case, agent, condition), "#trials")

    def cell_url(cell: Cell) -> str:
        return group_url(cell.case, cell.agent, cell.condition)

    return (
        template_environment()
        .get_template("report.html")
        .render(
            suite=suite,
            command=command,
            records=records,
            runs_read=runs_read,
            points=points,
            cells=matrix(points, suite),
            figures=figures(points, suite, group_url),
            cell_url=cell_url,
            filters=None,
            step_url=None,
            folder_of=folder_of,
            artifacts=artifacts if run_dir is not None or folders is not None else None,
            assets={
                "css": asset("style.css"),
                "chart": asset("chart.umd.min.js"),
                "charts": asset("charts.js"),
            },
        )
    )
