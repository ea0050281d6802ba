"""The summary of replayed sessions: all of them, and a row per project, day, week, month or
agent."""

from __future__ import annotations

import os
import re
import statistics
from collections.abc import Callable, Iterable, Sequence
from datetime import date

import msgspec
from pydantic_core import PydanticSerializationError

from proctor.history.projects import project_key
from proctor.history.record import SessionRecord, UsageRecord, local_start, write_records
from proctor.models.history import GroupBy, GroupSummary, HistoryReport, Unavailable
from proctor.models.io import dump_json, escape_surrogates
from proctor.models.list_prices import LIST_PRICES_AS_OF
from proctor.models.pricing import PriceTable, dollars_by_model
from proctor.models.process import RULE_NAMES
from proctor.models.spread import Spread
from proctor.models.trajectory import sum_usage
from proctor.util.clock import local_clock, utc_day
from proctor.util.text import (
    cache_write_text,
    controls_escaped,
    count_text,
    dollars_text,
    duration_text,
    fixed,
    markdown_cell,
    markdown_text,
    noun_for,
    without_noise,
)


def spread(values: Iterable[float | int | None]) -> Spread:
    known = [float(v) for v in values if v is not None]
    if not known:
        return Spread()
    middle = without_noise(statistics.median(known))  # 150.15, not 150.14999999999998
    return Spread(n=len(known), median=middle, min=min(known), max=max(known))


def summarise(key: str, sessions: Sequence[SessionRecord], pricing: PriceTable) -> GroupSummary:
    """Sessions and tasks, the share verified, medians with ranges over tasks, rules broken,
    and tokens and dollars per model over every session."""
    # One pass over the sessions, each figure gathered as it goes: a history holds tens of
    # thousands, and a pass per figure read each one from memory again.
    rule_counts = dict.fromkeys(RULE_NAMES, 0)
    durations: list[float | None] = []
    steps: list[int] = []
    reads: list[int | None] = []
    auc: list[float | None] = []
    redundancy: list[float | None] = []
    used: list[tuple[str, UsageRecord]] = []
    tasks = verified = loops = with_loops = unknown = 0
    dollars: dict[str, float] = {}
    for session in sessions:
        used += session.usage.items()
        unknown += session.unknown_records
        _add_dollars(dollars, session, pricing)
        if not session.is_task:
            continue
        tasks += 1
        verified += 1 if session.verified else 0
        durations.append(session.duration_seconds)
        steps.append(session.steps.tool_calls)
        reads.append(session.orientation.reads_before_first_edit)
        auc.append(session.auc_cov_proxy)
        redundancy.append(session.redundancy_proxy)
        loops += session.loops
        with_loops += 1 if session.loops else 0
        for rule in session.rules_fired:
            rule_counts[rule] = rule_counts.get(rule, 0) + 1
    usage = sum_usage(used)
    unpriced = [model for model in usage if pricing.price_of(model) is None]
    by_model = {
        model: None if model in unpriced else round(dollars.get(model, 0.0), 6) for model in usage
    }
    priced = [v for v in by_model.values() if v is not None]
    return GroupSummary(
        key=key,
        sessions=len(sessions),
        tasks=tasks,
        non_tasks=len(sessions) - tasks,
        verified=verified,
        share_verified=verified / tasks if tasks else None,
        duration_seconds=spread(durations),
        steps=spread(steps),
        orientation_reads=spread(reads),
        loops=loops,
        tasks_with_loops=with_loops,
        rule_counts=rule_counts,
        auc_cov_proxy=spread(auc),
        redundancy_proxy=spread(redundancy),
        usage=usage,
        cost_by_model=by_model,
        cost_usd=round(sum(priced), 6) if priced else None,
        unpriced_models=unpriced,
        unknown_records=unknown,
    )


def _add_dollars(sums: dict[str, float], session: SessionRecord, pricing: PriceTable) -> None:
    """A session's dollars per model added to ``sums``: a group's are its sessions' (each
    long prompt's response priced at its rates, which the group's summed tokens no longer
    tell). A model a session's record holds no dollars for (a record an older proctor wrote)
    is priced by its tokens."""
    for model, spent in session.cost_by_model.items():
        if spent is not None:
            sums[model] = sums.get(model, 0.0) + spent
    if len(session.cost_by_model) != len(session.usage):
        missing = [(m, u) for m, u in session.usage.items() if m not in session.cost_by_model]
        day = utc_day(session.started_at)
        for model, spent in dollars_by_model(sum_usage(missing), pricing, day=day)[0].items():
            if spent is not None:
                sums[model] = sums.get(model, 0.0) + spent


def week_of(session: SessionRecord) -> str:
    """The ISO week the session started in, in the local time zone (``2026-W48``), or
    ``undated``."""
    start = local_start(session)
    if start is None:
        return "undated"
    year, week, _ = start.isocalendar()
    return f"{year:04d}-W{week:02d}"  # ISO 8601: a year of four digits (a damaged clock's 1)


def day_of(session: SessionRecord) -> str:
    """The day the session started on, in the local time zone (``2026-11-29``), or
    ``undated``: the day ``--since`` keeps it by."""
    start = local_start(session)
    return "undated" if start is None else f"{start.year:04d}-{start.month:02d}-{start.day:02d}"


def month_of(session: SessionRecord) -> str:
    """The month the session started in, in the local time zone (``2026-11``), or
    ``undated``."""
    start = local_start(session)
    return "undated" if start is None else f"{start.year:04d}-{start.month:02d}"


GROUP_KEYS: dict[str, Callable[[SessionRecord], str]] = {
    "project": lambda s: s.project or "unknown project",
    "day": day_of,
    "week": week_of,
    "month": month_of,
    "agent": lambda s: s.agent,
}


def in_order(sessions: Iterable[SessionRecord]) -> list[SessionRecord]:
    """The sessions by their start (undated ones first), then their file."""
    return sorted(sessions, key=lambda s: (s.started_at or "", s.path))


def history_report(
    sessions: Sequence[SessionRecord],
    unavailable: Sequence[Unavailable],
    pricing: PriceTable,
    by: GroupBy | None = None,
) -> HistoryReport:
    """The summary of ``sessions``, all of them and per group. Its ``sessions`` field is left
    empty: :func:`history_json` writes them, from their records, into the report's JSON."""
    ordered = in_order(sessions)  # each model's first session first, in the usage tables too
    groups: list[GroupSummary] = []
    if by is not None:
        keyed: dict[str, list[SessionRecord]] = {}
        same: dict[str, str] = {}  # each project's folder resolved once, not per session
        shown: dict[str, str] = {}  # a project's row is named as its first session recorded it
        for session in ordered:
            key = GROUP_KEYS[by](session)
            if by == "project":
                folder = same.get(key) or same.setdefault(key, project_key(session.project))
                key = shown.setdefault(folder, os.path.normpath(key) if folder != key else key)
            keyed.setdefault(key, []).append(session)
        groups = [summarise(key, keyed[key], pricing) for key in sorted(keyed)]
    return HistoryReport(
        by=by,
        total=summarise("all", ordered, pricing),
        groups=groups,
        unavailable=list(unavailable),
    )


_HEAD = {"schema_version", "by", "total", "groups"}
"""The report's fields before its sessions; the others come after them."""


def history_json(report: HistoryReport, sessions: Sequence[SessionRecord]) -> bytes:
    """``proctor history --json``: the report with ``sessions`` (in that order) in it, as
    indented JSON text in UTF-8, exactly as the model would write it holding them as models,
    without the newline after it (which the caller writes: the text of a big history is tens
    of megabytes, not copied again for one byte). The sessions are written from their
    records: tens of thousands of models would be most of the time a big history takes to
    report."""
    fields = set(HistoryReport.model_fields) - {"sessions"}
    head, tail = _part(report, _HEAD), _part(report, fields - _HEAD)
    text = bytearray(head[:-1])
    text += b',"sessions":'
    write_records(sessions, text)
    text += b","
    text += tail[1:]
    return msgspec.json.format(text, indent=2)


def _part(report: HistoryReport, fields: set[str]) -> bytes:
    """Some of the report's fields as a compact JSON object."""
    try:
        return report.model_dump_json(by_alias=True, include=fields).encode()
    except PydanticSerializationError:  # a lone surrogate: written escaped, as dump_json does
        data = report.model_dump(mode="json", by_alias=True, include=fields)
        return dump_json(data, indent=False).rstrip().encode()


def _num(value: float | None, digits: int = 0) -> str:
    """``digits`` decimals; with none, a count as the reports show one (``1,204``, a half, a
    median of two, with one decimal: ``1,527.5``)."""
    if value is None:
        return "–"
    return count_text(value) if digits == 0 else fixed(value, digits)


def _spread_text(value: Spread, digits: int = 0, unit: str = "") -> str:
    """``"12 (3–40)"``, followed by ``unit`` (``" tool calls"``); ``"–"`` alone when there is
    no figure."""
    if value.median is None:
        return "–"
    low, high = _num(value.min, digits), _num(value.max, digits)
    return f"{_num(value.median, digits)} ({low}–{high}){unit}"


def _time_spread(value: Spread, tasks: int) -> str:
    """The median time and its range, and over how many of the ``tasks`` when some have no
    duration (a session without times at both ends)."""
    timed = f"{count_text(value.n)} of {count_text(tasks)} tasks timed" if value.n < tasks else ""
    if value.median is None:  # none timed: "0 of 1 tasks timed" said it badly
        return f"– (none of its {_counted(tasks, 'task')} timed)" if tasks else "–"
    low, high = duration_text(value.min), duration_text(value.max)
    return f"{duration_text(value.median)} ({low}–{high}{'; ' + timed if timed else ''})"


def _share(group: GroupSummary) -> str:
    if group.share_verified is None:
        return "–"
    return f"{_of(group.verified, group.tasks)} ({fixed(100 * group.share_verified)}%)"


def _of(part: int, whole: int) -> str:
    """``"1,204/2,310"``: a count of a whole, both as the reports show counts."""
    return f"{count_text(part)}/{count_text(whole)}"


def _counted(n: int, noun: str) -> str:
    """``"1,204 tasks"``: :func:`~proctor.util.text.plural` with the count as the reports show
    one."""
    return f"{count_text(n)} {noun_for(n, noun)}"


def render_history(report: HistoryReport, scope: str = "") -> str:
    """The summary as Markdown: totals, tokens and cost per model, a table per group; under
    its title, ``scope`` (what the options kept: :func:`scope_text`) when there is one."""
    total = report.total
    lines = [
        "# History",
        "",
        *([markdown_text(_one_line(scope)), ""] if scope else []),
        f"- Sessions: {count_text(total.sessions)} ({_counted(total.tasks, 'task')}, "
        f"{count_text(total.non_tasks)} "
        "without a code change)",
        (
            f"- Verified: {_share(total)} of tasks ran a passing check after the last edit "
            "that changed code"
            if total.tasks
            else "- Verified: – (no task)"
        ),
        (
            f"- Median time: {_time_spread(total.duration_seconds, total.tasks)}; median steps: "
            f"{_spread_text(total.steps, unit=' tool calls')} "
            "(lowest–highest in parentheses, over tasks)"
            if total.tasks
            else "- Median time and steps: – (no task)"  # not "– tool calls"
        ),
        "- Median orientation: "
        + (
            _spread_text(total.orientation_reads, unit=" reads and searches before the first edit")
            if total.tasks
            else "– (no task)"
        ),
        (
            f"- Loops: {_counted(total.loops, 'loop')} in "
            f"{_counted(total.tasks_with_loops, 'task')}"
            if total.tasks
            else "- Loops: – (no task)"
        ),
        "- Rules broken: "
        + (
            (
                ", ".join(f"{rule} {_of(n, total.tasks)}" for rule, n in total.rule_counts.items())
                or "–"
            )
            if total.tasks
            else "– (no task)"  # "unverified 0/0, …" said nothing
        ),
        (
            f"- Context (proxy gold of AUC-Cov: the files each session edited; redundancy needs "
            f"none): AUC-Cov "
            f"{_spread_text(total.auc_cov_proxy, 2)}, redundancy "
            f"{_spread_text(total.redundancy_proxy, 2)}"
            if total.sessions
            else "- Context: – (no session)"
        ),
    ]
    if total.unknown_records:  # lines of a newer release, say: the figures may miss their steps
        lines.append(
            f"- Unknown records: {count_text(total.unknown_records)} lines the parsers did not "
            "recognise (passed over; each session's count is in --json)"
        )
    if total.usage:
        lines += ["", "| model | input | output | cache read | cache write | $ |", "|---" * 6 + "|"]
        lines += _usage_rows(total)
        lines.append(f"\nCost: {_dollars(total)}")
        lines.append(PRICES_HINT)
    if report.by is not None and not report.groups:  # a table's head alone reads as cut off
        lines += ["", f"No session to show by {report.by}."]
    elif report.by is not None:
        lines += [
            "",
            f"| {report.by} | sessions | tasks | verified | median time | median steps | "
            "orientation | loops | $ |",
            "|---" * 9 + "|",
        ]
        labels = group_labels(report.groups)
        for group in report.groups:
            lines.append(
                f"| {markdown_cell(labels[group.key])} | {count_text(group.sessions)} | "
                f"{count_text(group.tasks)} | "
                f"{_share(group)} | {_time_spread(group.duration_seconds, group.tasks)} | "
                f"{_spread_text(group.steps)} | {_spread_text(group.orientation_reads)} | "
                f"{count_text(group.loops)} | {_dollars_cell(group)} |"
            )
        lines += _unpriced_note(report.by, report.groups)
        if any(labels[key] != key for key in labels):
            lines += ["", HASHED_NOTE]  # a line right under a table would be one of its rows
        lines += _rules_by_group(report.by, report.groups)
        lines += _usage_by_group(report.by, report.groups)
    if report.unavailable:
        lines += ["", "Unavailable (not counted above):"]
    for missing in report.unavailable:
        who = f"{missing.agent}: " if missing.agent else ""
        shown = f"{who}{_one_line(missing.path)}: {_one_line(missing.reason)}"
        lines.append(f"- {markdown_text(shown)}")
    # A name that is not UTF-8 shows its bytes as the JSON report does (caf\xe9).
    return escape_surrogates("\n".join(lines) + "\n")


def scope_text(
    agents: Sequence[str],
    project: str | None,
    since: date | None,
    until: date | None,
    by: str | None,
) -> str:
    """What a summary covers, when options narrowed it or its rows are days: ``"Sessions of
    codex only, that ran in /work/app, started 2026-12-01 to 2026-12-07 (days of the local
    time zone, America/Los_Angeles)."``; empty when nothing was narrowed."""
    parts = []
    if agents:
        parts.append(f"of {' and '.join(dict.fromkeys(agents))} only")
    if project is not None:
        parts.append(f"that ran in {project}")
    if since is not None and until is not None:
        parts.append(f"started {since} to {until}")
    elif since is not None:
        parts.append(f"started on {since} or after")
    elif until is not None:
        parts.append(f"started on {until} or before")
    # Which clock the days, weeks or months are on (a machine in UTC, a laptop in its own zone).
    units = ["days"] if since is not None or until is not None else []
    units += [f"{by}s"] if by in ("day", "week", "month") and f"{by}s" not in units else []
    if not parts and not units:
        return ""
    if not parts:  # rows by day, week or month only
        return f"{units[0].capitalize()} of {local_clock()}."
    said = f"Sessions {', '.join(parts)}"
    if units:
        said += f" ({' and '.join(units)} of {local_clock()})"
    return said + "."


PRICES_HINT = (
    "(A model's price, dollars per million tokens, comes from `pricing` in ./proctor.json or "
    f"the file --config names, else from its maker's list price as of {LIST_PRICES_AS_OF}: see "
    "docs/metrics.md.)"
)


def _usage_rows(group: GroupSummary, key: str | None = None) -> list[str]:
    """A row per model of ``group``: its tokens and dollars, after ``key`` when given (the
    group's cell of a table by group)."""
    rows = []
    first = "" if key is None else f"{markdown_cell(key)} | "
    for model, used in sorted(group.usage.items()):
        dollars = group.cost_by_model.get(model)
        rows.append(
            f"| {first}{markdown_cell(model)} | {used.input_tokens:,} | {used.output_tokens:,} | "
            f"{used.cache_read_tokens:,} | "
            f"{cache_write_text(used.cache_write_tokens, used.cache_write_1h_tokens)} | "
            f"{'unpriced' if dollars is None else dollars_text(dollars)} |"
        )
    return rows


_HASHED = re.compile(r"gemini:([0-9a-f]{64})")
HASHED_NOTE = (
    "(`gemini:…`: a Gemini CLI project known only by the SHA-256 of its folder's path, whose "
    "first digits are shown here; `--json` gives the whole hash.)"
)


def group_labels(groups: Sequence[GroupSummary]) -> dict[str, str]:
    """Each group's key as a table shows it: a Gemini CLI project known by its hash alone
    (``gemini:<64 hex digits>``) by the hash's first 8 digits (``gemini:1a2b3c4d…``), more
    when two such projects share them; any other key as it is."""
    hashes = [m[1] for g in groups if (m := _HASHED.fullmatch(g.key))]
    digits = 8
    while digits < 64 and len({h[:digits] for h in hashes}) < len(set(hashes)):
        digits += 4
    return {
        g.key: f"gemini:{m[1][:digits]}…" if (m := _HASHED.fullmatch(g.key)) else g.key
        for g in groups
    }


def _rules_by_group(by: str, groups: Sequence[GroupSummary]) -> list[str]:
    """The rules broken in each group, as the summary counts them: on how many of its tasks
    each fired (``–`` for a group without a task)."""
    rules = list(dict.fromkeys(rule for group in groups for rule in group.rule_counts))
    if not rules:
        return []
    lines = [
        "",
        f"Rules broken by {by} (tasks on which each fired, of the {by}'s tasks):",
        "",
        f"| {by} | " + " | ".join(rules) + " |",
        "|---" * (len(rules) + 1) + "|",
    ]
    labels = group_labels(groups)
    for group in groups:
        cells = [
            _of(group.rule_counts.get(rule, 0), group.tasks) if group.tasks else "–"
            for rule in rules
        ]
        lines.append(f"| {markdown_cell(labels[group.key])} | " + " | ".join(cells) + " |")
    return lines


def _usage_by_group(by: str, groups: Sequence[GroupSummary]) -> list[str]:
    """Tokens and dollars per model in each group: a row per group and model."""
    if not any(group.usage for group in groups):
        return []
    lines = [
        "",
        f"Tokens by {by} and model:",
        "",
        f"| {by} | model | input | output | cache read | cache write | $ |",
        "|---" * 7 + "|",
    ]
    labels = group_labels(groups)
    for group in groups:
        lines += _usage_rows(group, labels[group.key])
    return lines


def _one_line(text: str) -> str:
    """A path or reason kept on its list item's line (a line break in a folder name shown as
    ``\\n``, as the JSON report writes it), its other control characters escaped (a
    terminal's escape sequence in a file's name is shown, never obeyed)."""
    return controls_escaped(text.replace("\r", "\\r").replace("\n", "\\n"))


def _dollars_cell(group: GroupSummary) -> str:
    """A group's dollars in its row of the table by group: marked ``(*)`` when a model of it has
    no price, the models named once below the table (see :func:`_unpriced_note`), not in
    every row."""
    text = "–" if group.cost_usd is None else dollars_text(group.cost_usd)
    return f"{text} (*)" if group.unpriced_models else text


def _unpriced_note(by: str, groups: Sequence[GroupSummary]) -> list[str]:
    """The footnote of the ``(*)`` in the table by group: the models without a price, once."""
    unpriced = sorted({model for group in groups for model in group.unpriced_models})
    if not unpriced:
        return []
    named = markdown_text(", ".join(unpriced))
    return [
        "",
        f"(*) Leaves out the models without a price ({named}): their tokens are in the table "
        f"of tokens by {by} and model below.",
    ]


def _dollars(group: GroupSummary) -> str:
    text = "–" if group.cost_usd is None else dollars_text(group.cost_usd)
    if group.unpriced_models:
        text += f" (unpriced: {', '.join(group.unpriced_models)})"
    return text
