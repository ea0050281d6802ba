"""``--dry-run``: the resolved matrix and configuration, for people."""

from __future__ import annotations

from proctor.models.io import escape_surrogates, model_to_json
from proctor.models.plan import RunPlan
from proctor.plan.records import resolved_record
from proctor.util.text import columns, plural

MATRIX_WIDTHS = (30, 14, 12, -7, -7)
"""The least widths of a dry run's columns (case, agent, condition or model, repeats and
timeout, the last two aligned right); a longer cell widens its column."""
MATRIX_GAPS = (" ", " ", " ", "  ", "  ")


def render_dry_run(plan: RunPlan, *, cluster_sized: bool = False) -> str:
    lines = [
        f"{plural(len(plan.trials), 'trial')} in {plural(len(plan.cases), 'case')}; "
        "nothing was run.",
        "",
    ]
    rows = [("case", "agent", "condition", "repeats", "timeout", "evaluators")]
    for rc in plan.cases:
        uses = ", ".join(s.use for s in rc.evaluators) or "-"
        if not rc.evaluated:  # said, or "-" would read as a case with no evaluators
            uses = f"- (not evaluated: {rc.why_not_evaluated})"
        for agent in rc.agents:
            for condition in rc.conditions:
                # A name as printed (\\xff for a byte not UTF-8) sets the width.
                name = escape_surrogates(rc.name)
                rows.append((name, agent, condition, str(rc.repeats), f"{rc.timeout_sec:g}s", uses))
    lines += columns(rows, MATRIX_WIDTHS, MATRIX_GAPS)
    for s in plan.skipped:
        lines.append(f"skipped {s.name}: {s.reason}")
    lines += [
        "",
        "Resolved configuration:",
        model_to_json(resolved_record(plan, cluster_sized=cluster_sized)).rstrip(),
    ]
    return "\n".join(lines)
