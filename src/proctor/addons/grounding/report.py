"""The verdict of a grounding check: its exit code and its text for people."""

from __future__ import annotations

from proctor.exit_codes import ExitCode
from proctor.util.text import escaped_line, plural

from .runner import LISTED_FIGURES, NOTHING_RAN, CheckpointResult, GroundingReport

#: The ungrounded figures of a checkpoint the text report shows (the rest are counted).
SHOWN_FIGURES = 10


def exit_code(report: GroundingReport) -> ExitCode:
    """1 when a figure was ungrounded or nothing was checked (no checkpoint holding a figure
    ran, or the advisor said nothing on any), 3 when the advisor errored, else 0."""
    if report.failed or not report.checked:
        return ExitCode.GATE_FAILED
    if report.errors:
        return ExitCode.TRIAL_ERRORS
    return ExitCode.OK if report.ok else ExitCode.GATE_FAILED


def render_text(report: GroundingReport) -> str:
    """The report for people. What the checkpoints and the advisor gave (a checkpoint's id, the
    advice quoted, the advisor's error) is shown with its control characters escaped (a
    terminal's escape sequence shown, never obeyed; a line break in an id as ``\\n``)."""
    lines = [
        f"grounding: {plural(report.checked, 'checkpoint')} checked, {report.failed} with "
        f"ungrounded figures, {plural(report.errors, 'advisor error')}",
        "  rule: every figure of 10 or more in the advice must appear in the signals given",
    ]
    lines += [f"  note: {note}" for note in report.notes if note != NOTHING_RAN]
    if not report.checked or NOTHING_RAN in report.notes:
        lines.append(f"FAIL: {NOTHING_RAN}")
    for result in report.results:
        lines += _result_lines(result)
    code = exit_code(report)
    verdict = {ExitCode.OK: "PASS", ExitCode.TRIAL_ERRORS: "ERROR"}.get(code, "FAIL")
    lines.append(f"{verdict} (exit {int(code)})")
    lines.append("Not judged by this check:")
    lines += [f"  - {item}" for item in report.not_judged]
    return "\n".join(escaped_line(line) for line in lines) + "\n"


def _result_lines(result: CheckpointResult) -> list[str]:
    side = "waste" if result.waste else "no waste"
    if result.error is not None:  # stderr's lines under the first, indented as figures are
        first, *more = result.error.splitlines() or [""]
        return [f"  ERROR {result.id} ({side}): {first}", *(f"        {m}" for m in more)]
    if result.ok:
        return [f"  ok    {result.id} ({side}){'' if result.advice else ': no advice'}"]
    total = max(result.ungrounded_count, len(result.ungrounded))
    out = [f"  FAIL  {result.id} ({side}): {plural(total, 'ungrounded figure')}"]
    out += [f"        {u.figure} in: {u.text}" for u in result.ungrounded[:SHOWN_FIGURES]]
    if total > SHOWN_FIGURES:
        listed = "all" if total <= LISTED_FIGURES else f"the first {LISTED_FIGURES}"
        out.append(f"        … and {total - SHOWN_FIGURES} more (--json lists {listed})")
    return out
