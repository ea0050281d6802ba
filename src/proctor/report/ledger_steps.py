"""Applying runs to the findings ledger: the pure steps, on values.

A run's checks (:mod:`proctor.report.checks`) move the findings of its suite: a new failure is
proposed (:func:`apply_run`), a pass resolves, a failure after a resolution reopens, and a
dismissed finding stays dismissed until its check has passed and failed again. A run taken in
while interrupted takes the checks a later ``--resume`` adds (:func:`apply_resume`).
:mod:`proctor.report.findings` reads the runs from disk and keeps the ledger there.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections import Counter
from collections.abc import Container, Iterable

from proctor.errors import ConfigError
from proctor.models.findings import Finding, FindingEvent, FindingsLedger, InterruptedRun
from proctor.report.checks import CheckKey, CheckResult, merge_checks
from proctor.util.text import one_line


def finding_id(key: CheckKey, suite: str | None = None) -> str:
    """The finding's id: the first 10 hex digits of the SHA-256 of the check's case, agent,
    condition and check joined by ``\\x1f``; with ``suite``, the suite first. A finding keeps
    the id it was proposed with (see :func:`apply_run`)."""
    parts = key if suite is None else (suite, *key)
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:10]


def _new_finding(run_id: str, result: CheckResult, suite: str | None, ids: set[str]) -> Finding:
    key = result.key
    plain = finding_id(key)
    return Finding(
        id=plain if plain not in ids else finding_id(key, suite or ""),
        suite=suite,
        case=key.case,
        agent=key.agent,
        condition=key.condition,
        check=key.check,
        first_seen_run=run_id,
        last_seen_run=run_id,
        message=result.message,
        history=[FindingEvent(event="new", run_id=run_id)],
    )


def _step(finding: Finding, run_id: str, result: CheckResult) -> None:
    """Move an existing finding by one run's outcome of its check. A failure of a check the
    same run has passed (a trial a ``--resume`` ran fails it) takes that pass back: the run,
    over all its trials, failed the check."""
    if result.failed:
        _take_back(finding, run_id)
        finding.failures += 1
        finding.last_seen_run = run_id
        finding.message = result.message
        if finding.state == "resolved" or (
            finding.state == "dismissed" and finding.passed_since_dismissal
        ):
            finding.state = "open"
            finding.passed_since_dismissal = False
            finding.history.append(FindingEvent(event="reopened", run_id=run_id))
    elif finding.state == "open":
        finding.state = "resolved"
        finding.history.append(FindingEvent(event="resolved", run_id=run_id))
    elif finding.state == "dismissed" and not finding.passed_since_dismissal:
        finding.passed_since_dismissal = True
        finding.history.append(FindingEvent(event="passed", run_id=run_id))


def _take_back(finding: Finding, run_id: str, newer: str | None = None) -> None:
    """Take back the pass of run ``run_id`` that moved ``finding`` (its ``resolved`` or
    ``passed`` event), now that a trial a ``--resume`` ran shows the run failed the check, as
    if the run had failed it from the start. ``newer``: the newer run that checked it since
    (the check is held back from the resume), if any.

    - Nothing has moved the finding since: a newer run that passed the check moves it as the
      run's pass did (the event is that run's); with none, it is as before that pass (open,
      or dismissed without a pass).
    - A newer run's failure reopened what the pass had moved: that failure moves nothing
      either (the run had failed it already), so the reopening goes too.
    - Otherwise (a dismissal since) the event goes, and the state stays as what came after
      made it."""
    for at in range(len(finding.history) - 1, -1, -1):
        event = finding.history[at]
        if event.run_id == run_id and event.event in ("resolved", "passed"):
            break
    else:
        return
    del finding.history[at]
    if at < len(finding.history):
        after = finding.history[at]
        if after.event != "reopened" or after.run_id in (None, run_id):
            return
        del finding.history[at]  # the newer run's failure reopened nothing
        if at < len(finding.history):
            return
        newer = None  # that newer run failed the check: nothing passed it since
    if newer is not None and finding.last_seen_run != newer:
        finding.history.append(FindingEvent(event=event.event, run_id=newer))
    elif event.event == "resolved":
        finding.state = "open"
    else:
        finding.state = "dismissed"
        finding.passed_since_dismissal = False


def apply_run(
    ledger: FindingsLedger,
    run_id: str,
    results: Iterable[CheckResult],
    *,
    suite: str | None = None,
    held_back: Container[CheckKey] = frozenset(),
    interrupted_at: str | None = None,
) -> FindingsLedger:
    """The ledger after run ``run_id`` (a new value; ``ledger`` is left as it was). A run the
    ledger already holds changes nothing. A check in ``held_back`` is one a newer run has
    already recorded (this run is late: a killed run resumed, or an overlapping one that
    finished, after a run that started later): its failure is counted, and it proposes,
    reopens or resolves nothing, since the newer run has said what became of it. The run's
    other checks are applied as any run's are. ``interrupted_at``: the run's ``finishedAt``,
    when it was interrupted; the ledger keeps it, so that what a later ``--resume`` adds is
    applied (:func:`apply_resume`).

    Checks are the ``suite``'s: a finding of another suite sharing the results directory is
    never moved. A finding that names no suite (proposed before proctor kept it) is taken up
    by the first suite whose run checks it. A new finding's id is :func:`finding_id` of its
    check, or, when another suite's finding already has that id, of its suite and check. A
    finding an earlier release named otherwise (:attr:`CheckResult.earlier`) is taken up by
    the check, unless that name may be another's (see :func:`_taken_up`)."""
    if run_id in ledger.runs:
        return ledger
    updated = ledger.model_copy(deep=True)
    failed = _apply_checks(updated, run_id, merge_checks(results), suite, held_back)
    updated.runs.append(run_id)
    if suite is not None:
        updated.run_suites[run_id] = suite
    if interrupted_at is not None:
        updated.interrupted_runs[run_id] = InterruptedRun(
            finished_at=interrupted_at, failed=sorted(failed)
        )
    return updated


def resume_checks(
    ledger: FindingsLedger, run_id: str, added: Iterable[CheckResult], suite: str | None = None
) -> list[CheckResult]:
    """The checks of the trials a ``--resume`` of run ``run_id`` ran that are still to be
    applied (see :func:`apply_resume`): all but those of checks the run has failed already
    (their findings count the run once, and a pass of another repeat does not undo the run's
    failure)."""
    held = ledger.interrupted_runs.get(run_id)
    counted = set(held.failed) if held is not None else set()
    by_check = {(f.suite, f.case, f.agent, f.condition, f.check): f.id for f in ledger.findings}
    return [
        result
        for result in merge_checks(added)
        if (by_check.get((suite, *result.key)) or by_check.get((None, *result.key))) not in counted
    ]


def apply_resume(
    ledger: FindingsLedger,
    run_id: str,
    added: Iterable[CheckResult],
    *,
    finished_at: str,
    suite: str | None = None,
    held_back: Container[CheckKey] = frozenset(),
) -> FindingsLedger:
    """The ledger after a ``--resume`` of run ``run_id``, which it took in while interrupted
    (a new value): ``added`` are the checks of the trials the resume ran, ``finished_at`` the
    run's ``finishedAt`` now. The run's outcome of each check is over all its trials:

    - a check the run has failed already is counted (its finding lists the run once);
    - a check it has passed moves its finding only when an added trial fails it: the run then
      failed it, and the pass is taken back (a finding it resolved is open again, one
      dismissed stays dismissed, as if the run had failed it from the start);
    - a check it had not recorded is applied as any run's is (``held_back`` as in
      :func:`apply_run`).

    A run the ledger does not keep as interrupted, or read at that ``finishedAt`` already,
    changes nothing."""
    held = ledger.interrupted_runs.get(run_id)
    if held is None or held.finished_at == finished_at:
        return ledger
    updated = ledger.model_copy(deep=True)
    fresh = resume_checks(updated, run_id, added, suite)
    failed = _apply_checks(updated, run_id, fresh, suite, held_back)
    updated.interrupted_runs[run_id] = InterruptedRun(
        finished_at=finished_at, failed=sorted(set(held.failed) | failed)
    )
    return updated


def _apply_checks(
    ledger: FindingsLedger,
    run_id: str,
    results: Iterable[CheckResult],
    suite: str | None,
    held_back: Container[CheckKey],
) -> set[str]:
    """Move ``ledger``'s findings (in place) by run ``run_id``'s outcome of each check; the
    ids of the findings whose failures it counted."""
    failed: set[str] = set()
    ids = {finding.id for finding in ledger.findings}
    by_check = {(f.suite, f.case, f.agent, f.condition, f.check): f for f in ledger.findings}
    results = list(results)
    claimed = Counter((*r.key[:3], r.earlier) for r in results if r.earlier is not None)
    for result in results:
        finding = by_check.get((suite, *result.key))
        if finding is None and suite is not None:
            # Taken up by this suite: one of a ledger written before suites were kept, or
            # one an earlier release kept under the folder of its case run alone (`--source
            # suite/hello` was the suite `suite/hello`; it is a run of `suite` now).
            for earlier in (None, posixpath.normpath(f"{suite}/{result.key.case}")):
                finding = by_check.pop((earlier, *result.key), None)
                if finding is not None:
                    finding.suite = suite
                    by_check[(suite, *result.key)] = finding
                    break
        if finding is None and result.earlier is not None:
            finding = _taken_up(by_check, suite, result, claimed)
        if result.key in held_back:
            if finding is not None and result.failed:
                # A resumed run's pass of it, if any; the newer run that checked it since
                # says what became of it.
                checked = finding.last_checked_run
                newer = checked if checked is not None and _later(checked, run_id) else None
                _take_back(finding, run_id, newer)
                finding.failures += 1
                failed.add(finding.id)
            continue
        if finding is not None:
            _step(finding, run_id, result)
        elif result.failed:
            finding = _new_finding(run_id, result, suite, ids)
            ledger.findings.append(finding)
            ids.add(finding.id)
            by_check[(suite, *result.key)] = finding
        if finding is not None:
            finding.last_checked_run = run_id
            if result.failed:
                failed.add(finding.id)
    return failed


def _taken_up(
    by_check: dict[tuple[str | None, str, str, str, str], Finding],
    suite: str | None,
    result: CheckResult,
    claimed: Counter[tuple[str, str, str, str]],
) -> Finding | None:
    """The finding an earlier release named by ``result``'s earlier name (a judge by its kind
    alone), which keeps its id and history under the check's name now (moved in
    ``by_check``); None when there is none, or when that name may be another check's: another
    check of the run has the same earlier name, or the ledger holds ``#2`` (or on) of it in
    the cell (that release had two judges of the kind, numbered by the order their grades
    came back). Such a finding is left as it is, unchecked: a dismissal never passes to a
    judge it may not be about."""
    assert result.earlier is not None
    cell = (result.key.case, result.key.agent, result.key.condition)
    if claimed[(*cell, result.earlier)] > 1:
        return None
    suites = (
        (suite,)
        if suite is None
        else (suite, None, posixpath.normpath(f"{suite}/{result.key.case}"))
    )
    numbered = f"{result.earlier}#"
    if any(
        held[0] in suites and held[1:4] == cell and held[4].startswith(numbered)
        for held in by_check
    ):
        return None
    for earlier in suites:
        finding = by_check.pop((earlier, *cell, result.earlier), None)
        if finding is not None:
            finding.suite = suite
            finding.check = result.key.check
            by_check[(suite, *result.key)] = finding
            return finding
    return None


def recorded_since(ledger: FindingsLedger, start: str, suite: str | None = None) -> set[CheckKey]:
    """The checks of the ``suite``'s findings (and of those naming no suite) that a run
    started after ``start`` (a start as a run folder names it, ``20261201T120000Z``) failed,
    passed or moved."""
    return {
        CheckKey(f.case, f.agent, f.condition, f.check)
        for f in ledger.findings
        if f.suite in (None, suite)
        and any(
            (started := _started(run)) is not None and started > start
            for run in (
                f.last_checked_run,
                f.last_seen_run,
                *(e.run_id for e in f.history),
            )
            if run is not None
        )
    }


def dismiss(ledger: FindingsLedger, finding: str, reason: str, at: str) -> FindingsLedger:
    """The ledger with finding ``finding`` dismissed for ``reason`` at ``at`` (a new value).
    Dismissing again replaces the reason and starts the dismissal over."""
    if not reason.strip():
        raise ConfigError("--reason: say why the finding is dismissed (an empty reason)")
    updated = ledger.model_copy(deep=True)
    target = next((f for f in updated.findings if f.id == finding), None)
    if target is None:
        raise ConfigError(f"no finding '{finding}' in the ledger")
    target.state = "dismissed"
    target.passed_since_dismissal = False
    target.history.append(FindingEvent(event="dismissed", at=at, reason=reason))
    return updated


def dismissal_said(finding: Finding, reason: str) -> tuple[bool, str]:
    """Whether dismissing ``finding`` for ``reason`` changes the ledger, and what to say of
    it: a finding already dismissed for that reason is left as it is (unless its check has
    passed since: its dismissal starts over); one dismissed for another reason takes the new
    one, and the sentence says it was already dismissed."""
    shown, was = one_line(reason), dismissal_reason(finding)
    if was is None:
        return True, f"dismissed {finding.id}: {shown}"
    if was != reason:
        return (
            True,
            f"{finding.id} was already dismissed ({one_line(was)}); its reason is now: {shown}",
        )
    if finding.passed_since_dismissal:
        return True, (
            f"{finding.id} was already dismissed and its check has passed since: dismissed "
            f"again from now: {shown}"
        )
    return False, f"{finding.id} was already dismissed: {shown} (nothing changed)"


def dismissal_reason(finding: Finding) -> str | None:
    """Why a dismissed finding was dismissed (the latest dismissal)."""
    if finding.state != "dismissed":
        return None
    return next((e.reason for e in reversed(finding.history) if e.event == "dismissed"), None)


_STARTED = re.compile(r"run-(\d{8}T\d{6}Z)-")
"""The start a run folder's name holds (``run-20261201T120000Z-abc123``, in UTC)."""


def latest_run(ledger: FindingsLedger, suite: str | None = None) -> str | None:
    """The ledger's newest run by the start its folder is named by (a late run, applied after
    newer ones, is not it), of two that started in the same second the later applied; else
    the last applied. With a ``suite``, the newest of that suite's runs (and of runs applied
    before proctor kept the suites)."""
    runs = [
        run for run in ledger.runs if suite is None or ledger.run_suites.get(run, suite) == suite
    ]
    if not runs:
        return None
    dated = [(_started(run) or "", order, run) for order, run in enumerate(runs)]
    return max(dated)[2] if any(started for started, _, _ in dated) else runs[-1]


def _started(run: str) -> str | None:
    named = _STARTED.match(run)
    return named.group(1) if named is not None else None


def _later(run: str, than: str) -> bool:
    """Whether ``run`` started after ``than``, by the starts their folders are named by."""
    started, other = _started(run), _started(than)
    return started is not None and other is not None and started > other
