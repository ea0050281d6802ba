"""``suite.md``: the suite aggregate for people."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from proctor.exit_codes import meaning
from proctor.llm.failures import retried_attempt
from proctor.models.suite import (
    CI,
    FindingChange,
    GroupStats,
    OutcomeRate,
    Spread,
    SuiteRecord,
    SuiteTotals,
)
from proctor.models.trial import ERROR_STATUSES, TrialRecord, not_evaluated_cause
from proctor.report.ab.markdown import render_ab_markdown
from proctor.report.ab.measures import ELAPSED_MEANS
from proctor.report.cut_short import (
    CUT_SHORT,
    cut_short_by_group,
    no_scored_trial,
    statuses_cut_short,
)
from proctor.report.pooled_runs import gate_line
from proctor.util.text import (
    cache_write_text,
    code_span,
    count_text,
    dollars_text,
    markdown_cell,
    markdown_name,
    markdown_quoting,
    markdown_text,
    one_line,
    percent_text,
    plural,
    seconds_text,
    spread_text,
)

if TYPE_CHECKING:
    from proctor.report.pooled_runs import RunsRead


def _name(text: str) -> str:
    """A name in a table cell (see :func:`markdown_cell`), its emphasis marks escaped too (see
    :func:`markdown_name`): ``__init__`` is no bold ``init``."""
    return markdown_cell(markdown_name(text))


def _text(text: str) -> str:
    """A reason, on one line (see :func:`one_line`), shown as written on a web page too: the
    names and globs it quotes no emphasis (see :func:`markdown_quoting`), no tag in it
    dropped."""
    return markdown_text(markdown_quoting(one_line(text)))


def _line_name(text: str) -> str:
    """A name in a line of text, not a table (a metric an ``external`` program named, a model
    as the agent's transcript names it): on
    one line, its emphasis marks and tags shown as written (see :func:`markdown_name`), a
    backtick too: several names share the line, and one backtick each would pair into a code
    span across them."""
    name = markdown_name(one_line(text))
    if "\\`" not in name:  # (one backtick, which markdown_name leaves as it is)
        name = name.replace("`", "\\`")
    return markdown_text(name)


def _exit_reason(text: str) -> str:
    """The run's exit reason as :func:`_text` shows a reason, its backticks all the names'
    (proctor writes no code span in it): two names holding one each (``a`b``, ``c`d``)
    are no code span (see :func:`markdown_name`)."""
    return markdown_text(markdown_name(one_line(text)))


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{percent_text(value)}%"


def _num(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _secs(ms: float | None) -> str:
    return "n/a" if ms is None else f"{seconds_text(ms / 1000)}s"


def _ci(ci: CI | None) -> str:
    return "" if ci is None else f" [{percent_text(ci.low)}–{percent_text(ci.high)}%]"


def _spread(s: Spread, *, seconds: bool = False) -> str:
    if s.median is None or s.min is None or s.max is None:
        return "n/a"
    return spread_text(s.median, s.min, s.max, seconds=seconds)


def _process_table(suite: SuiteRecord) -> list[str]:
    lines = [
        "",
        "## Repeats, effort and process",
        "",
        "pass@k: at least one of k runs passes; pass^k: all k runs pass (k = scored trials). "
        "Pass-rate intervals are 95% Wilson score intervals. Effort columns are median (range) "
        f"over the scored trials. Elapsed s is {ELAPSED_MEANS}; a trial's time (the median "
        "trial above) also counts preparing, collecting and evaluating.",
        "",
        "| case | agent | condition | pass rate [95% CI] | pass@k | pass^k | elapsed s "
        "| tool calls | tokens | rules fired / tasks |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for g in suite.groups:
        k = str(g.scored)
        at = f"{g.pass_at_k[k]:.2f} (k={k})" if k in g.pass_at_k else "n/a"
        hat = f"{g.pass_hat_k[k]:.2f}" if k in g.pass_hat_k else "n/a"
        fired = ", ".join(f"{name} {n}" for name, n in g.rule_counts.items() if n) or "none"
        e = g.effort
        lines.append(
            f"| {_name(g.case)} | {_name(g.agent)} | {_name(g.condition)} "
            f"| {g.passes}/{g.scored} {_pct(g.pass_rate)}{_ci(g.pass_rate_ci)} "
            f"| {at} | {hat} | {_spread(e.elapsed_seconds, seconds=True)} "
            f"| {_spread(e.tool_calls)} | {_spread(e.tokens)} | {fired} / {g.tasks} |"
        )
    return lines


def _ab_section(suite: SuiteRecord) -> list[str]:
    lines: list[str] = []
    if suite.ab_gate is not None:
        verdict = "passed" if suite.ab_gate.passed else "FAILED"
        lines += ["", f"**A/B gate {verdict}**: {suite.ab_gate.message}"]
    if suite.ab is not None:
        body = render_ab_markdown(suite.ab)
        lines += ["", *("#" + line if line.startswith("#") else line for line in body.splitlines())]
    return lines


def _rate(o: OutcomeRate) -> str:
    if o.rate is None:
        return "–"
    text = f"{o.k}/{o.n} {percent_text(o.rate)}%"
    return text + _ci(o.ci)


def _outcomes(suite: SuiteRecord) -> list[str]:
    """Outcome rates per group, when some case names its expected files or symbols."""
    rows = [g for g in suite.groups if any(
        r.n for r in (g.outcomes.file_hit, g.outcomes.symbol_hit, g.outcomes.abandoned)
    )]  # fmt: skip
    if not rows:
        return []
    out = [
        "",
        "## Outcome rates",
        "",
        "Over scored trials whose case names expected files (symbols for the symbol hit); "
        "rates with 95% Wilson score intervals. Patch in area: every edited file is an expected "
        "one or under its folder.",
        "",
        "| case | agent | condition | file hit | symbol hit | patch in area | wrong context | "
        "abandoned | search steps |",
        "|---" * 9 + "|",
    ]
    for g in rows:
        o = g.outcomes
        steps = "–" if o.search_steps.median is None else count_text(o.search_steps.median)
        out.append(
            f"| {_name(g.case)} | {_name(g.agent)} | {_name(g.condition)} | {_rate(o.file_hit)} | "
            f"{_rate(o.symbol_hit)} | {_rate(o.patch_in_area)} | {_rate(o.wrong_context)} | "
            f"{_rate(o.abandoned)} | {steps} |"
        )
    return out


def _by_source(t: SuiteTotals) -> list[str]:
    """Tokens and dollars per source × model, where the time went, and the turns."""
    if not t.by_source:
        return []
    out = [
        "",
        "## Tokens, dollars and time by source",
        "",
        "| source | model | in | out | cache read | cache write | $ |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in t.by_source:
        u = row.tokens
        dollars = "n/a" if row.cost_usd is None else dollars_text(row.cost_usd)
        out.append(
            f"| {_name(row.source)} | {_name(row.model)} | {count_text(u.input_tokens)} "
            f"| {count_text(u.output_tokens)} | {count_text(u.cache_read_tokens)} "
            f"| {cache_write_text(u.cache_write_tokens, u.cache_write_1h_tokens)} | {dollars} |"
        )
    st = t.source_times
    models = (
        ", ".join(f"{_line_name(m)} {_secs(ms)}" for m, ms in st.harness_model_ms.items()) or "none"
    )
    out += [
        "",
        f"Agent {_secs(st.agent_ms)} (of which its own work {_secs(st.agent_pure_ms)}), harness "
        f"reactions while it waited {_secs(st.harness_react_ms)}; harness model time: {models}. "
        + _turns_said(st.turns, st.question_turns, st.interruptions),
    ]
    return out


def _turns_said(turns: int, question_turns: int, interruptions: int) -> str:
    """``4 turns sent (2 of them answers to a question the agent ended its turn with); 1
    interruption.``: a count that is 0 is left out."""
    said = f"{plural(turns, 'turn')} sent"
    if question_turns == 1:
        them = "" if turns == 1 else "1 of them "
        said += f" ({them}an answer to a question the agent ended its turn with)"
    elif question_turns:
        said += f" ({question_turns} of them answers to questions the agent ended its turn with)"
    if interruptions:
        said += f"; {plural(interruptions, 'interruption')}"
    return said + "."


def render_markdown(
    suite: SuiteRecord,
    records: Sequence[TrialRecord],
    folders: Mapping[tuple[str, str, str, int], Path] | None = None,
    runs: RunsRead | None = None,
    *,
    command: str = "run",
) -> str:
    """The Markdown report, titled ``# proctor <command> <run id>`` (``eval`` for a run of
    ``proctor eval``). ``folders`` (records pooled from several runs) names each trial's
    folder by its run, since the pooled repeats are numbered on across runs; ``runs`` says
    which runs were read together, what they do not share (gates, suites) and how the wall
    time is had."""
    t = suite.totals
    skipped = {(g.case, g.agent, g.condition) for g in suite.groups if g.not_gated}
    unjudged = sum(1 for g in suite.groups if _no_verdict(g))
    # Exit 0 with nothing scored passed no gate: the reason says what happened instead.
    means = meaning(suite.exit_code) if suite.exit_code or (t.scored and not skipped) else ""
    not_gated = f"; {len(skipped)} not gated: every trial skipped" if skipped else ""
    if unjudged:
        not_gated += f"; {unjudged} with no verdict: no scored trial"
    wall = [runs.wall] if runs is not None else []
    if t.wall_session:  # a session a person drove: its span, not the recording's time
        wall.append(
            "the recorded session's, from its transcript's first to its last time"
            if t.wall_ms is not None
            else "the recorded session's: its transcript gives no times"
        )
    if t.wall_lower_bound:
        wall.append(
            "a stretch that ran it was killed or runs still: counted to the last line it wrote "
            "in journal.jsonl"
        )
    wall_said = f" ({'; '.join(wall)})" if wall else ""
    at_least = "at least " if t.wall_lower_bound else ""
    lines = [
        f"# proctor {command} {suite.run_id}",
        "",
        f"**Exit code {suite.exit_code}**{f' ({means})' if means else ''}: "
        f"{_exit_reason(suite.exit_reason)}.",
        "",
        *(f"- {line}" for line in (runs.lines if runs is not None else ())),
        f"- Trials: {t.n} ({', '.join(f'{k} {v}' for k, v in t.status_counts.items()) or 'none'}"
        f"{f'; {stopped}' if (stopped := statuses_cut_short(records)) else ''})",
        f"- Pass rate: {_pct(t.pass_rate)} ({t.passes}/{plural(t.scored, 'scored trial')}; "
        f"error statuses excluded)",
        f"- Groups passing the gate: {t.groups_passed}/{t.groups}{not_gated}",
        f"- Mean score: {_num(t.scores.mean)} (n={t.scores.n})",
        f"- Time: {at_least}{_secs(t.wall_ms)} wall{wall_said}; {_secs(t.time.total_ms)} in trials "
        f"(agent {_secs(t.time.agent_ms)}, harness {_secs(t.time.harness_ms)}); "
        f"median trial {_secs(t.time.median_trial_ms)}",
    ]
    causes = [c for c in map(not_evaluated_cause, (r.reason for r in records)) if c is not None]
    if causes:
        unevaluated = len(causes)
        lines.append(
            f"- Not evaluated: {plural(unevaluated, 'trial')} ran and "
            f"{'was' if unevaluated == 1 else 'were'} recorded without evaluation "
            f"({'; '.join(dict.fromkeys(causes))}); "
            f"{'it is' if unevaluated == 1 else 'they are'} not scored"
        )
    if any(not r.cost.collected for r in records):
        lines.append("- Cost: not collected (--no-collect-cost)")
    annotated = [r for r in records if r.annotation is not None]
    if annotated:
        marks = ", ".join(
            f"{_trial_name(r, folders)} {r.annotation.verdict}"
            for r in annotated
            if r.annotation is not None
        )
        lines.append(f"- Annotated by hand: {plural(len(annotated), 'trial')}: {marks}")
    if t.metrics:
        named = "; ".join(
            f"{_line_name(name)} {_num(m.median)} ({_num(m.min)}–{_num(m.max)}, n={m.n})"
            for name, m in t.metrics.items()
        )
        lines.append(f"- Metrics (median, range): {named}")
    if t.retried:
        kept = sum(1 for r in records for a in r.attempts if retried_attempt(a))
        lines.append(
            f"- Retries: {plural(t.retried, 'trial')} ran again after a transient error "
            f"({plural(kept, 'earlier attempt')} kept under attempts/); statuses above are the "
            "last"
        )
    refused = [[a for a in r.attempts if not retried_attempt(a)] for r in records]
    if any(refused):
        lines.append(
            f"- Run again: {plural(sum(1 for r in refused if r), 'trial')} ran again after a "
            f"refused key ({plural(sum(map(len, refused)), 'earlier attempt')} kept under "
            "attempts/, not counted against --retry-errors); statuses above are the last"
        )
    if t.cost_usd is not None or t.unpriced_models:
        cost = "n/a" if t.cost_usd is None else dollars_text(t.cost_usd)
        unpriced = ", ".join(map(_line_name, t.unpriced_models))
        extra = f" (unpriced: {unpriced})" if t.unpriced_models else ""
        lines.append(f"- Cost: {cost}{extra}")
    lines.append(f"- Gate: {gate_line(suite, markdown=True)}")  # --config's gate: said so
    if t.usage:
        lines.append(
            "- Tokens: "
            + "; ".join(
                f"{_line_name(m)}: in {count_text(u.input_tokens)}, "
                f"out {count_text(u.output_tokens)}, "
                f"cache read {count_text(u.cache_read_tokens)}, cache write "
                f"{cache_write_text(u.cache_write_tokens, u.cache_write_1h_tokens)}"
                for m, u in sorted(t.usage.items())
            )
        )
    lines += [
        "",
        "| case | agent | condition | passed/scored | pass rate | mean ± sd | stability "
        "| statuses | gate |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    cut = cut_short_by_group(records)
    for g in suite.groups:
        statuses = ", ".join(f"{k} {v}" for k, v in g.status_counts.items())
        sd = f" ± {g.stddev:.1f}" if g.stddev is not None else ""
        verdict = _verdict(g, cut.get((g.case, g.agent, g.condition), 0))
        lines.append(
            f"| {_name(g.case)} | {_name(g.agent)} | {_name(g.condition)} | "
            f"{g.passes}/{g.scored} | {_pct(g.pass_rate)} | {_num(g.mean_score)}{sd} | "
            f"{g.stability} | {statuses} | {verdict} |"
        )
    lines += _process_table(suite)
    lines += _ab_section(suite)
    notable = [r for r in records if r.status != "passed"]
    if notable:
        lines += ["", "## Trials that did not pass", ""]
        for r in sorted(notable, key=lambda r: (r.case, r.agent, r.condition, r.repeat)):
            where = _where(r, folders)
            # A reason quotes what the agent wrote (a question, a check's output): shown on
            # one line, a terminal's escape sequence in it shown, never obeyed.
            lines.append(f"- {code_span(one_line(where))} **{r.status}**: {_text(r.reason or '')}")
    warned = [r for r in records if r.warnings]
    if warned:  # they decide nothing, but the trial ran less than its case wrote
        lines += ["", "## Warnings", ""]
        for r in sorted(warned, key=lambda r: (r.case, r.agent, r.condition, r.repeat)):
            where = code_span(one_line(_where(r, folders)))
            lines += [f"- {where}: {_text(w)}" for w in r.warnings]
    if suite.skipped_cases:
        lines += ["", "## Skipped case folders", ""]
        lines += [
            f"- {code_span(one_line(s.case))}: {_text(s.reason)}" for s in suite.skipped_cases
        ]
    errors = sum(v for k, v in t.status_counts.items() if k in ERROR_STATUSES)
    if errors:
        lines += [
            "",
            f"{plural(errors, 'trial')} ended in an error status (agent-error, infra-error, "
            f"eval-error){_of_them_cut_short(sum(cut.values()), errors)}; "
            f"{'it is' if errors == 1 else 'they are'} excluded from pass rates and scores.",
        ]
    lines += _outcomes(suite)
    lines += _by_source(suite.totals)
    text = "\n".join(lines) + "\n"
    if suite.findings is not None:
        text += "\n" + render_findings(suite.findings)
    return text


def _of_them_cut_short(cut_short: int, errors: int) -> str:
    """What the note on the trials in an error status adds for those a stop cut short."""
    if not cut_short:
        return ""
    if cut_short == errors:
        return f", {'' if errors == 1 else 'all '}{CUT_SHORT}, which `--resume` runs again"
    return f", {cut_short} of them {CUT_SHORT}, which `--resume` runs again"


def _no_verdict(g: GroupStats) -> bool:
    """No trial of the group was scored (each in an error status, or skipped) and no gate
    evaluator failed in one: its gate decided nothing, and its errors are exit 3."""
    return not g.scored and not g.not_gated and not g.gate_failed_in_errors


def _verdict(g: GroupStats, cut_short: int = 0) -> str:
    """The group's gate, as the exit code counts it (``gatePassed`` is false for a group
    with no scored trial, which fails no gate); of its trials in an error status,
    ``cut_short`` were cut short by a stop (interrupted), and are said so."""
    if g.not_gated:
        return "not gated (every trial skipped)"
    failed = [c.message or c.name for c in g.gate_checks if not c.passed] if g.scored else []
    if g.gate_failed_in_errors:
        n = g.gate_failed_in_errors
        failed.append(
            f"a gate evaluator failed in {n} trial{'s' if n > 1 else ''} that then ended in "
            "an error status"
        )
    if failed:
        return "FAIL (" + "; ".join(failed) + ")"
    if not g.scored:
        return f"no verdict ({no_scored_trial(g, cut_short)})"
    return "pass" if g.gate_passed else "FAIL"


def render_findings(changes: Sequence[FindingChange]) -> str:
    """The Markdown section of the findings a run proposed, reopened or resolved, and of the
    dismissed ones whose check it passed."""
    if not changes:
        return "## Findings\n\nNo new, reopened or resolved findings in this run.\n"
    lines = [
        "## Findings",
        "",
        "| event | finding | case / agent / condition | check |",
        "|---|---|---|---|",
    ]
    for change in changes:
        cell = _name(f"{change.case} / {change.agent} / {change.condition}")
        lines.append(f"| {change.said} | `{change.id}` | {cell} | {_name(change.check)} |")
    if any(change.event == "passed" for change in changes):
        lines += ["", PASSED_NOTE]
    return "\n".join(lines) + "\n"


PASSED_NOTE = "A dismissed finding whose check passed stays dismissed: its next failure reopens it."
"""What the reports add below a run's findings when it passed a dismissed one's check."""


def _trial_name(
    record: TrialRecord, folders: Mapping[tuple[str, str, str, int], Path] | None
) -> str:
    """A trial as ``proctor annotate`` names it: ``case/agent/condition/repeat``, or, pooled
    from several runs (whose repeats are numbered on), its run folder's name and the trial as
    that run numbers it, ``run/case/agent/condition/repeat``."""
    key = (record.case, record.agent, record.condition, record.repeat)
    folder = folders.get(key) if folders else None
    if folder is None:
        return "/".join(map(str, key))
    folder = Path(os.path.abspath(folder))  # <run>/trials/<case>/<agent>/<condition>/<repeat>
    return "/".join([folder.parents[4].name, *folder.parts[-4:]])


def _where(record: TrialRecord, folders: Mapping[tuple[str, str, str, int], Path] | None) -> str:
    """A trial's folder: in its run (``trials/…``), or, pooled, under its run's name."""
    key = (record.case, record.agent, record.condition, record.repeat)
    folder = folders.get(key) if folders else None
    if folder is None:
        return f"trials/{record.case}/{record.agent}/{record.condition}/{record.repeat}"
    folder = Path(os.path.abspath(folder))  # a run given as "." is named too
    run = folder.parents[4]  # <run>/trials/<case>/<agent>/<condition>/<repeat>
    return str(folder.relative_to(run.parent))
