"""A/B analysis: which two conditions to pair (:mod:`.choose`), pairing their trials
(:mod:`.pairs`), what each trial measures (:mod:`.measures`), comparing the sides
(:mod:`.sides`), the report and the A/B gate (:mod:`.analysis`), ``proctor compare``
(:mod:`.runs`) and the Markdown of all of it (:mod:`.markdown`)."""

from proctor.report.ab.analysis import DIMENSIONS, UNLABELLED, ab_gate, analyse_ab
from proctor.report.ab.choose import choose_pair, conditions_in, records_for_pair
from proctor.report.ab.markdown import render_ab_markdown, render_runs_markdown
from proctor.report.ab.runs import compare_conditions, compare_runs

__all__ = [
    "DIMENSIONS",
    "UNLABELLED",
    "ab_gate",
    "analyse_ab",
    "choose_pair",
    "compare_conditions",
    "compare_runs",
    "conditions_in",
    "records_for_pair",
    "render_ab_markdown",
    "render_runs_markdown",
]
