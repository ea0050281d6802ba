"""Markdown for people: an A/B report and a run comparison as tables readable at a glance.

Every rate is printed with its denominator ("2/3"); a comparison without enough samples reads
"fewer than 3 pairs: no claim" instead of a verdict, naming what it counts (pairs of an A/B
report, groups of a run comparison's overall figures, scored trials of one of its groups), and
a count of verdicts says "no claim" where ``suite.json`` says "insufficient-data".
"""

from __future__ import annotations

from collections.abc import Sequence

from proctor.models.ab import (
    ABCase,
    ABGroup,
    ABReport,
    MetricComparison,
    RunComparison,
    RunGroup,
)
from proctor.report.ab.analysis import DIMENSIONS, UNLABELLED, dimension_title, label_value
from proctor.report.ab.measures import ELAPSED_MEANS
from proctor.stats import alpha_of, p_value_text
from proctor.util import argtypes
from proctor.util.text import (
    bound_text,
    code_span,
    count_text,
    markdown_cell,
    markdown_name,
    markdown_text,
    one_line,
    percent_text,
    plural,
    seconds_text,
)

__all__ = [
    "ab_overall_table",
    "metric_label",
    "render_ab_markdown",
    "render_runs_markdown",
    "runs_overall_table",
]

LABELS = {
    "passRate": "pass rate",
    "elapsedSeconds": "median elapsed (s)",
    "toolCalls": "median tool calls",
    "tokens": "median tokens",
    "firstRelevantSeconds": "median time to first relevant file (s)",
    "fileHitRate": "file hit rate",
    "symbolHitRate": "symbol hit rate",
    "patchInAreaRate": "patch in area rate",
    "searchSteps": "median search steps",
    "wrongContextRate": "wrong context rate",
    "abandonedRate": "abandoned rate",
}
"""The name people read for a figure of ``suite.json``'s comparisons (its key stays the
JSON's)."""


def metric_label(name: str) -> str:
    """``"elapsedSeconds"`` → ``"median elapsed (s)"``; a name without a label as it is."""
    return LABELS.get(name, name)


SECONDS = frozenset({"elapsedSeconds", "firstRelevantSeconds"})
"""The figures in seconds; every other figure that is not a rate counts something."""


def _num(metric: str, value: float | None, sign: bool = False, *, bound: bool = False) -> str:
    """A figure of ``metric`` as every report shows its kind: seconds with two decimals
    (``0.33``, see :func:`seconds_text`), counts whole with a thousands separator (``2,749``,
    see :func:`count_text`); a CI's ``bound`` that is not 0 never reads as one."""
    if value is None:
        return "n/a"
    if metric in SECONDS:
        return seconds_text(value, signed=sign, bound=bound)
    return count_text(value, signed=sign)


def _frac(passes: int, n: int) -> str:
    return f"{passes}/{n} ({percent_text(passes / n)}%)" if n else "0/0"


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{percent_text(value)}%"


def _points(value: float | None) -> str:
    return "n/a" if value is None else f"{percent_text(value, signed=True)} pts"


def verdict_word(verdict: str) -> str:
    """A verdict as people read it: ``"insufficient-data"`` (the JSON's) as ``"no claim"``."""
    return "no claim" if verdict == "insufficient-data" else verdict


def no_claim(min_samples: int, noun: str) -> str:
    """``"fewer than 3 groups: no claim"``: a verdict withheld for want of ``noun``s."""
    return f"fewer than {plural(min_samples, noun)}: no claim"


def _exact_withheld(c: MetricComparison) -> str | None:
    """``"exact test p = 0.25: no claim"`` when ``c``'s interval excludes 0 and its exact
    test does not agree (its note says which test), else None. The p-value never reads as
    the threshold it missed (0.05001, not 0.05). A p-value that reaches the threshold withheld
    the claim for pointing the other way than the interval (most pairs lower, the median
    higher): ``"exact test p = 0.0414 the other way: no claim"``."""
    if c.verdict != "insufficient-data" or c.exact_p is None or c.ci_low is None:
        return None
    alpha = alpha_of(c.confidence if c.confidence is not None else 0.95)
    other_way = " the other way" if c.exact_p <= alpha else ""
    return f"exact test p = {p_value_text(c.exact_p, alpha)}{other_way}: no claim"


def _claim(c: MetricComparison, min_samples: int, noun: str) -> str:
    """A metric's verdict; when it withholds a claim, why, counting ``noun``s (the samples
    of the comparison: ``"pair"``, ``"group"``)."""
    if c.verdict != "insufficient-data":
        return c.verdict
    if min(c.n_treatment, c.n_baseline) < min_samples:
        return no_claim(min_samples, noun)
    withheld = _exact_withheld(c)
    if withheld is not None:
        return withheld
    # Enough samples, too few for a bootstrap's claim (its note says why).
    if c.n_treatment == c.n_baseline:
        return f"{plural(c.n_treatment, noun)}: too few for a claim"
    return f"{c.n_treatment} vs {plural(c.n_baseline, noun)}: too few for a claim"


def _is_rate(metric: str) -> bool:
    """A rate's values are 0 or 1 (a pass, a hit): shown in percent and points."""
    return metric.endswith("Rate")


def _ci(c: MetricComparison) -> str:
    if c.ci_low is None or c.ci_high is None:
        return "no CI"
    if _is_rate(c.metric):
        # A bound that rounds to 0 keeps a digit: [+0.006, +81] pts, not a claimed [+0, +81].
        low, high = bound_text(100 * c.ci_low), bound_text(100 * c.ci_high)
        return f"[{low}, {high}] pts"
    low, high = (_num(c.metric, b, True, bound=True) for b in (c.ci_low, c.ci_high))
    return f"[{low}, {high}]"


def _rate_side(share: float | None, n: int, of_trials: bool) -> str:
    """A rate's side: its count of ``n`` ("2/3 (67%)") when it is a share of trials, else (a
    mean over groups) in percent."""
    if share is None:
        return "n/a"
    return _frac(round(share * n), n) if of_trials else _percent(share)


def _rate_delta(c: MetricComparison, *, withheld: bool = True) -> str:
    """A rate's delta and CI; when the CI excludes 0 but the exact test does not agree (and
    ``withheld``: no verdict column beside it says so), that too: ``+100 pts [+21, +100] pts
    (exact test p = 0.1: no claim)``."""
    if c.ci_low is None:
        return _points(c.delta)
    why = _exact_withheld(c) if withheld else None
    shown = f"{_points(c.delta)} {_ci(c)}"
    return shown if why is None else f"{shown} ({why})"


def _samples(c: MetricComparison) -> str:
    if c.n_treatment == c.n_baseline:
        return f"n={c.n_treatment}"
    return f"n={c.n_treatment} vs {c.n_baseline}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    return [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(markdown_cell(cell) for cell in row) + " |" for row in rows),
    ]


def _metric_rows(
    comparisons: dict[str, MetricComparison],
    passes: tuple[tuple[int, int], tuple[int, int]] | None,
    min_samples: int,
    noun: str,
    baseline_first: bool = False,
) -> list[list[str]]:
    """One row per metric; the pass rate's sides as passes of trials, or (``passes`` None: a
    mean over groups) as percentages; ``noun`` names the comparisons' samples."""
    rows = []
    for name, c in comparisons.items():
        if name == "passRate" and passes is not None:
            sides, delta = [_frac(*passes[0]), _frac(*passes[1])], _points(c.delta)
        elif _is_rate(name):
            of_trials = passes is not None
            sides = [
                _rate_side(c.treatment, c.n_treatment, of_trials),
                _rate_side(c.baseline, c.n_baseline, of_trials),
            ]
            delta = _points(c.delta)
        else:
            sides = [_num(name, c.treatment), _num(name, c.baseline)]
            delta = _num(name, c.delta, True)
        if baseline_first:
            sides.reverse()
        rows.append(
            [metric_label(name), *sides, delta, _ci(c), _samples(c), _claim(c, min_samples, noun)]
        )
    return rows


AB_OVERALL_HEADER = ("metric", "treatment", "baseline", "delta", "95% CI", "samples", "verdict")
RUNS_OVERALL_HEADER = (
    "metric",
    "before (baseline)",
    "after (candidate)",
    "delta",
    "95% CI",
    "groups",
    "verdict",
)


def ab_overall_table(report: ABReport) -> tuple[tuple[str, ...], list[list[str]]]:
    """The header and rows of an A/B report's overall figures, as its Markdown prints them
    (and the viewer's Run and Compare pages show them): the pairs' pass rates as passes of
    the pairs, a withheld verdict as why ("fewer than 3 pairs: no claim")."""
    o = report.overall
    passes = ((o.treatment_passes, o.pairs), (o.baseline_passes, o.pairs))
    return AB_OVERALL_HEADER, _metric_rows(o.comparisons, passes, report.min_samples, "pair")


def runs_overall_table(comparison: RunComparison) -> tuple[tuple[str, ...], list[list[str]]]:
    """The header and rows of a run comparison's overall figures (the groups in both runs),
    as ``proctor compare`` prints them and the viewer's Compare page shows them."""
    rows = _metric_rows(comparison.overall, None, comparison.min_samples, "group", True)
    return RUNS_OVERALL_HEADER, rows


def _delta(group: ABGroup | ABCase, metric: str) -> str:
    return _num(metric, group.comparisons[metric].delta, True)


def render_ab_markdown(report: ABReport) -> str:
    """The A/B report as Markdown; an empty report still renders its (empty) sections."""
    argtypes.instance(report, "render_ab_markdown()", "report", ABReport, "an ABReport")
    r, n = report, report.min_samples
    lines = [
        f"# A/B: {code_span(r.treatment)} (treatment) vs {code_span(r.baseline)} (baseline)",
        "",
        f"- Pairs: {r.overall.pairs} complete, {len(r.incomplete)} incomplete "
        "(same case, agent and repeat under both conditions).",
        "- Deltas are treatment − baseline; CIs are 95% paired: a score interval (Newcombe's) "
        f"for pass rates and other rates, an expanded bootstrap with seed {r.seed} for the "
        "rest.",
        f"- Claims need at least {plural(n, 'pair')}, and a measure that "
        "varies from pair to pair at least 6 pairs.",
        "- A claim needs an exact test at p ≤ 0.05 as well as its CI: McNemar's of the pairs "
        "whose outcome differs for a rate, the sign test of the pairs that differ for another "
        "measure. Either takes at least 6 such pairs all one way, or more with some the other "
        "way (8 against 1).",
        f"- Elapsed is {ELAPSED_MEANS}.",
        "",
        "## Overall",
        "",
    ]
    lines += _table(*ab_overall_table(r))
    case_rows = [
        [
            code_span(c.case),
            markdown_name(c.agent),
            f"{c.treatment_passes}/{c.pairs}",
            f"{c.baseline_passes}/{c.pairs}",
            str(c.incomplete),
            _rate_delta(c.comparisons["passRate"]),
            _delta(c, "elapsedSeconds"),
            _delta(c, "toolCalls"),
            _delta(c, "tokens"),
            c.classification
            if c.classification != "insufficient-data"
            else no_claim(n, "complete pair"),
        ]
        for c in r.cases
    ]
    lines += ["", "## Cases", ""]
    lines += _table(
        [
            "case",
            "agent",
            "treatment passed",
            "baseline passed",
            "incomplete",
            "Δ pass rate (95% CI)",
            "Δ median elapsed (s)",
            "Δ median tool calls",
            "Δ median tokens",
            "classification",
        ],
        case_rows,
    )
    lines += ["", "## Incomplete pairs", ""]
    if r.incomplete:
        lines += _table(
            ["case", "agent", "repeat", "reason"],
            [[code_span(i.case), i.agent, str(i.repeat), i.reason] for i in r.incomplete],
        )
    else:
        lines.append("None: every case × agent × repeat has a usable trial on both sides.")
    for dimension, slices in r.by_dimension.items():
        if not slices or set(slices) == {UNLABELLED}:
            continue
        rows = [
            [
                markdown_name(value),
                str(g.pairs),
                f"{g.treatment_passes}/{g.pairs}",
                f"{g.baseline_passes}/{g.pairs}",
                _rate_delta(g.comparisons["passRate"], withheld=False),
                _claim(g.comparisons["passRate"], n, "pair"),
                _delta(g, "elapsedSeconds"),
                _delta(g, "toolCalls"),
                _delta(g, "tokens"),
            ]
            for value, g in slices.items()
        ]
        title = dimension_title(dimension)
        lines += ["", f"## By {title}", ""]
        lines += _table(
            [
                title,
                "pairs",
                "treatment passed",
                "baseline passed",
                "Δ pass rate (95% CI)",
                "pass-rate verdict",
                "Δ median elapsed (s)",
                "Δ median tool calls",
                "Δ median tokens",
            ],
            rows,
        )
    return "\n".join(lines) + "\n"


def _arrow(c: MetricComparison) -> str:
    return f"{_num(c.metric, c.baseline)} → {_num(c.metric, c.treatment)}"


def comparison_figure(c: MetricComparison) -> str:
    """One group's figure, baseline first, as ``proctor compare`` prints its kind: ``67% → 100%
    (+33 pts, CI [-21, +81] pts)`` for a rate, ``1.41 → 1.38 (-0.03)`` in seconds and ``2,749 →
    956 (-1,793, CI [-1,793, -1,793])`` for a count (the viewer's Compare page, per group);
    a CI that excludes 0 without its exact test's agreement adds it: ``0% → 100% (+100 pts, CI
    [+21, +100] pts; exact test p = 0.1: no claim)``."""
    if _is_rate(c.metric):
        sides, delta = f"{_percent(c.baseline)} → {_percent(c.treatment)}", _points(c.delta)
    else:
        sides, delta = _arrow(c), _num(c.metric, c.delta, True)
    if c.ci_low is None:
        return f"{sides} ({delta})"
    why = _exact_withheld(c)
    return f"{sides} ({delta}, CI {_ci(c)}{'' if why is None else f'; {why}'})"


def _renamed_line(c: RunComparison) -> list[str]:
    renamed = [g for g in c.groups if g.candidate_condition is not None]
    if not renamed:
        return []
    pairs = sorted(
        {f"{code_span(g.condition)} → {code_span(g.candidate_condition or '')}" for g in renamed}
    )
    return [
        f"- Of these, {len(renamed)} ran under one condition in each run, named differently "
        f"({', '.join(pairs)}), and are compared as one group."
    ]


def render_runs_markdown(comparison: RunComparison) -> str:
    """The run comparison as Markdown; no common group still renders the (empty) sections."""
    where = "render_runs_markdown()"
    argtypes.instance(comparison, where, "comparison", RunComparison, "a RunComparison")
    c, n = comparison, comparison.min_samples
    counts = ", ".join(f"{verdict_word(k)} {v}" for k, v in c.summary.items())
    lines = [
        "# Run comparison: baseline run → candidate run",
        "",
        f"- Groups (case × agent × condition) in both runs: {len(c.groups)} ({counts}).",
        *_renamed_line(c),
        f"- Only in the baseline run: {len(c.only_in_baseline)}; "
        f"only in the candidate run: {len(c.only_in_candidate)}.",
        f"- Deltas are candidate − baseline; a group's CIs are 95% unpaired (a score interval "
        f"for pass rates, an expanded bootstrap with seed {c.seed} for the rest). Claims need "
        f"at least {plural(n, 'scored trial')} on each side (4 for a median that varies), "
        "and the overall comparison at least 6 groups for a figure that varies.",
        "- A claim needs an exact test at p ≤ 0.05 as well as its CI: for a rate Fisher's in a "
        "group and McNemar's of the groups whose outcome differs overall, for another figure "
        "the rank-sum test in a group and the sign test of the groups overall.",
        f"- Elapsed is {ELAPSED_MEANS}.",
        "",
        "## Overall (groups in both runs)",
        "",
        "Each group is one paired sample: its pass rate (or median) in each run, every group "
        "weighing the same, so the mix of cases cannot move the figures. "
        f"Claims need at least {plural(n, 'group')} (6 for a figure that varies).",
        "",
    ]
    lines += _table(*runs_overall_table(c))
    group_rows = [
        [
            code_span(g.case),
            g.agent,
            g.condition
            if g.candidate_condition is None
            else f"{g.condition} → {g.candidate_condition}",
            f"{g.before_passes}/{g.before_scored}",
            f"{g.after_passes}/{g.after_scored}",
            _rate_delta(g.comparisons["passRate"]),
            _arrow(g.comparisons["elapsedSeconds"]),
            _arrow(g.comparisons["toolCalls"]),
            _arrow(g.comparisons["tokens"]),
            f"{g.before_errors}/{g.after_errors}",
            g.classification
            if g.classification != "insufficient-data"
            else no_claim(n, "scored trial"),
        ]
        for g in c.groups
    ]
    lines += ["", "## Groups", ""]
    lines += _table(
        [
            "case",
            "agent",
            "condition",
            "before passed",
            "after passed",
            "Δ pass rate (95% CI)",
            "median elapsed (s)",
            "median tool calls",
            "median tokens",
            "errors before/after",
            "classification",
        ],
        group_rows,
    )
    lines += _runs_by_label(c)
    for title, only in (
        ("Only in the baseline run", c.only_in_baseline),
        ("Only in the candidate run", c.only_in_candidate),
    ):
        lines += ["", f"## {title}", ""]
        lines += [
            f"- {code_span(one_line(o.case))} / {markdown_text(one_line(o.agent))} / "
            f"{markdown_text(one_line(o.condition))} ({plural(o.trials, 'trial')})"
            for o in only
        ]
        if not only:
            lines.append("None.")
    return "\n".join(lines) + "\n"


def _runs_by_label(c: RunComparison) -> list[str]:
    """A section per label (bucket, goal shape, category, …) that some compared group carries
    (as ``--buckets FILE`` or ``--goal-labels FILE`` sets it): each value's groups, their
    classifications and the trials that passed in each run, as the A/B report's slices."""
    lines: list[str] = []
    for dimension in DIMENSIONS:
        slices: dict[str, list[RunGroup]] = {}
        for g in c.groups:
            slices.setdefault(label_value(g.labels, dimension) or UNLABELLED, []).append(g)
        if not slices or set(slices) == {UNLABELLED}:
            continue
        rows = []
        for value in sorted(slices):
            groups = slices[value]
            counts = {k: sum(g.classification == k for g in groups) for k in c.summary}
            rows.append(
                [
                    markdown_name(value),
                    str(len(groups)),
                    f"{sum(g.before_passes for g in groups)}/"
                    f"{sum(g.before_scored for g in groups)}",
                    f"{sum(g.after_passes for g in groups)}/{sum(g.after_scored for g in groups)}",
                    ", ".join(f"{verdict_word(k)} {v}" for k, v in counts.items() if v),
                ]
            )
        title = dimension_title(dimension)
        lines += ["", f"## By {title}", ""]
        lines += _table([title, "groups", "before passed", "after passed", "classifications"], rows)
    return lines
