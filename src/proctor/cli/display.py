"""Progress displays: a rich bar on a terminal, plain lines elsewhere (CI logs)."""

from __future__ import annotations

import errno
import math
import os
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TextIO

from proctor.cli.signals import drop_output
from proctor.errors import ConfigError
from proctor.execute.events import (
    RunEvent,
    RunFinished,
    RunStarted,
    Tick,
    TrialFinished,
    TrialRetried,
    TrialStarted,
)
from proctor.models.pricing import CostInfo
from proctor.models.trial import INTERRUPTED_PREFIX, TrialRecord
from proctor.report.cut_short import is_cut_short
from proctor.util.masking import mask
from proctor.util.text import duration_text, one_line, plural

HEARTBEAT_SEC = 60.0
"""Seconds without a progress line after which plain progress says what is still running (a
CI system may stop a job whose log has been silent for ten minutes)."""
HEARTBEAT_VARIABLE = "PROCTOR_HEARTBEAT_SEC"
"""The environment variable that sets that interval (0: no heartbeat)."""


class PlainProgress:
    """One line per finished trial: ``[3/12] passed case/agent/condition/1 (score 100)``, with
    each of its warnings on a line of its own below it (``    warning: …``); one per attempt
    that ends in a transient error and runs again (``--retry-errors``): ``retrying
    case/agent/condition/1 (attempt 2 of 3): agent-error: rate limited: …``; and,
    each time ``heartbeat`` seconds pass without a line, one saying what is still running:
    ``proctor: 3 trials running, the longest for 9m 12s: case/agent/condition/1`` (None:
    never). ``clock`` gives monotonic seconds (a test's own clock)."""

    def __init__(
        self,
        stream: TextIO | None = None,
        heartbeat: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream or sys.stderr
        self.total = 0
        self.done = 0
        self.heartbeat = heartbeat
        self.clock = clock
        self.running: dict[tuple[str, str, str, int], float] = {}
        """Each running trial and when it started."""
        self.said = clock()

    def _print(self, line: str) -> None:
        try:
            print(line, file=self.stream, flush=True)
        except OSError as exc:  # the terminal closed (SIGHUP): the run stops all the same
            if exc.errno not in (errno.EPIPE, errno.EIO):
                raise
            drop_output(self.stream)
        self.said = self.clock()

    def __call__(self, event: RunEvent) -> None:
        if isinstance(event, RunStarted):
            self.total = event.total
            self._print(f"proctor: running {plural(event.total, 'trial')}")
        elif isinstance(event, TrialStarted):
            key = (event.case, event.agent, event.condition, event.repeat)
            self.running[key] = self.clock()
        elif isinstance(event, TrialRetried):
            r = event.record
            self.running.pop((r.case, r.agent, r.condition, r.repeat), None)  # waits again
            self._print(retrying(event))
        elif isinstance(event, TrialFinished):
            self.done += 1
            r = event.record
            self.running.pop((r.case, r.agent, r.condition, r.repeat), None)
            score = f" (score {r.score:g})" if r.score is not None else ""
            reason = f": {r.reason}" if r.status != "passed" else ""
            status: str = r.status
            if is_cut_short(r):  # the stop cut it short: it broke nothing (see report.cut_short)
                status, reason = (
                    "interrupted",
                    f": {r.reason.removeprefix(INTERRUPTED_PREFIX).strip()}",
                )
            # One line, whatever a case name or a check's label holds (a line break, a
            # terminal's escape sequence): shown, never obeyed.
            trial = mask(one_line(f"{r.case}/{r.agent}/{r.condition}/{r.repeat}{score}{reason}"))
            self._print(f"[{self.done}/{self.total}] {status} {trial}")
            for warning in r.warnings:  # decides nothing, but the trial ran less than written
                self._print(f"    warning: {mask(one_line(warning))}")
        elif isinstance(event, Tick):
            self._beat()
        elif isinstance(event, RunFinished) and event.interrupted and not event.requested:
            self._print("proctor: interrupted")  # (a stop asked for: the exit line says why)

    def _beat(self) -> None:
        now = self.clock()
        if self.heartbeat is None or not self.running or now - self.said < self.heartbeat:
            return
        key, began = min(self.running.items(), key=lambda item: item[1])
        trial = mask(one_line("/".join(str(part) for part in key)))
        self._print(
            f"proctor: {plural(len(self.running), 'trial')} running, the longest for "
            f"{duration_text(now - began)}: {trial}"
        )


def retrying(event: TrialRetried) -> str:
    """The line that says a trial runs again: ``retrying case/agent/condition/1 (attempt 2 of
    3): agent-error: rate limited: …`` (the attempt to come, and why the last one ended)."""
    r = event.record
    trial = f"{r.case}/{r.agent}/{r.condition}/{r.repeat}"
    return mask(
        one_line(
            f"retrying {trial} (attempt {event.attempt + 1} of {event.attempts}): "
            f"{r.status}: {r.reason}"
        )
    )


def heartbeat_interval(env: Mapping[str, str] | None = None) -> float | None:
    """The heartbeat's interval: :data:`HEARTBEAT_SEC`, or the seconds
    :data:`HEARTBEAT_VARIABLE` gives (None for 0: no heartbeat)."""
    given = (os.environ if env is None else env).get(HEARTBEAT_VARIABLE, "").strip()
    if not given:
        return HEARTBEAT_SEC
    try:
        seconds = float(given)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < math.inf:
        from proctor.util.json_shown import WHOLE, json_text

        raise ConfigError(
            f"{HEARTBEAT_VARIABLE}={json_text(given, WHOLE)}: expected the seconds of silence "
            "after which plain progress says what is still running (a number; 0 for never)"
        )
    return seconds or None


class BarProgress:
    """A progress bar with trials done/total, passed, failed and errors; a finished trial's
    warnings are printed above it (``warning: case/agent/condition/1: …``), and each trial
    that runs again after a transient error (:func:`retrying`)."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self.progress = Progress(
            TextColumn("[bold]trials"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[summary]}"),
            console=Console(stderr=True),
            auto_refresh=False,
            transient=False,
        )
        self.task = self.progress.add_task("trials", total=0, summary="")
        self.counts = {"passed": 0, "failed": 0, "errors": 0}

    def _summary(self) -> str:
        c = self.counts
        return f"[green]{c['passed']} passed[/] [red]{c['failed']} failed[/] {c['errors']} errors"

    def __call__(self, event: RunEvent) -> None:
        if isinstance(event, RunStarted):
            self.progress.start()
            self.progress.update(self.task, total=event.total, summary=self._summary())
        elif isinstance(event, Tick):  # nothing to redraw: a bar never beats
            return
        elif isinstance(event, TrialStarted):
            pass
        elif isinstance(event, TrialRetried):  # above the bar, which stays where it is
            self.progress.console.print(
                retrying(event), style="yellow", markup=False, highlight=False, soft_wrap=True
            )
        elif isinstance(event, TrialFinished):
            status = event.record.status
            key = (
                "passed"
                if status == "passed"
                else "failed"
                if status in ("failed", "timeout")
                else "errors"
            )
            self.counts[key] += 1
            self.progress.update(self.task, advance=1, summary=self._summary())
            r = event.record
            for warning in r.warnings:  # above the bar, which stays where it is
                where = f"{r.case}/{r.agent}/{r.condition}/{r.repeat}"
                self.progress.console.print(
                    mask(one_line(f"warning: {where}: {warning}")),
                    style="yellow",
                    markup=False,
                    highlight=False,
                    soft_wrap=True,  # the terminal wraps it: copied, it is one line
                )
        elif isinstance(event, RunFinished):
            self.progress.refresh()
            self.progress.stop()
            return
        self.progress.refresh()


def make_display(mirror: bool) -> PlainProgress | BarProgress:
    """A bar on a terminal a person watches (see :func:`~proctor.cli.progress.shows_a_bar`),
    one line per trial elsewhere: a CI log, a file, a pipe, or beside ``--mirror``, with a
    heartbeat line after a minute without one (:func:`heartbeat_interval`), save beside
    ``--mirror``: the terminal it streams is the sign of life, and a line could land in the
    middle of one of its lines."""
    from proctor.cli.progress import shows_a_bar

    if shows_a_bar(sys.stderr) and not mirror:
        return BarProgress()
    return PlainProgress(heartbeat=None if mirror else heartbeat_interval())


class ClassifierWarning:
    """One warning per run when the ``fast`` role's model failed (its first failure): each
    failed call is recorded in its trial's ``harnessCalls``, and the turn end it was to
    classify is taken as no question, so a run whose classifier never works says so."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.warned = False

    def __call__(self, event: RunEvent) -> None:
        if self.warned or not isinstance(event, TrialFinished):
            return
        failed = next(
            (c for c in event.record.harness_calls if c.role == "fast" and not c.ok), None
        )
        if failed is None:
            return
        self.warned = True
        print(
            mask(
                f"proctor: warning: the fast role's model {failed.model} failed: "
                f"{one_line(failed.error or 'no reason given')}; a turn end it was to classify "
                "is taken as no question (each failed call is in harnessCalls)"
            ),
            file=self.stream,
            flush=True,
        )


class CostWarnings:
    """One warning per unpriced model, and one when the run's cost passes the budget; and
    the :class:`ClassifierWarning`."""

    def __init__(
        self, budget_usd: float | None, stream: TextIO | None = None, spent: float = 0.0
    ) -> None:
        self.budget = budget_usd
        self.stream = stream or sys.stderr
        self.spent = spent
        """Dollars already spent (a resumed run's earlier trials) counted against the budget."""
        self.warned_models: set[str] = set()
        self.warned_budget = False
        self.classifier = ClassifierWarning(self.stream)

    def __call__(self, event: RunEvent) -> None:
        if not isinstance(event, TrialFinished):
            return
        self.classifier(event)
        cost = event.record.cost
        for model in cost.unpriced:
            if _named_only(event, model):
                continue
            if model not in self.warned_models:
                self.warned_models.add(model)
                print(
                    f"proctor: warning: no price for model '{model}' in the pricing map; "
                    "its tokens are reported without dollars",
                    file=self.stream,
                    flush=True,
                )
        for result in event.record.evaluators:
            judge = str(result.details.get("perplexityUnavailable") or "")
            if judge and f"perplexity:{judge}" not in self.warned_models:
                self.warned_models.add(f"perplexity:{judge}")
                how = (
                    " (the scripted judge returns them when the plan's roles.judge replies "
                    'give "logprobs": [...])'
                    if judge.startswith("scripted/")
                    else ""
                )
                print(
                    f"proctor: warning: judge model '{judge}' returns no log-probabilities; "
                    f"perplexityLevel is left out{how}",
                    file=self.stream,
                    flush=True,
                )
        self.spent += spent_by(event.record)
        if self.budget is not None and self.spent > self.budget and not self.warned_budget:
            self.warned_budget = True
            print(
                f"proctor: warning: estimated cost {_dollars(self.spent)} passed the budget of "
                f"{_dollars(self.budget)}; the run goes on",
                file=self.stream,
                flush=True,
            )


def _named_only(event: TrialFinished, model: str) -> bool:
    """Whether ``model`` is the model a trial on the scripted agent (or a ``codingagents``
    profile of it) was given: that agent plays its plan whatever the model and only writes
    the model's name into its transcript, so its price is nothing to warn of (``proctor eval
    --model`` and ``proctor run --agent-model scripted=…`` warn of the model itself)."""
    record = event.record
    return (event.cli or record.agent) == "scripted" and record.agent_model == model


def _dollars(amount: float) -> str:
    """Dollars to the cent, or to the significant digits of an amount under a cent (a budget
    of $0.0001 is not "$0.00")."""
    if amount >= 0.01 or amount <= 0:
        return f"${amount:.2f}"
    digits = 1 - math.floor(math.log10(amount))  # two significant digits, never an exponent
    return f"${amount:.{digits}f}".rstrip("0")


def run_budget(run_dir: Path) -> float | None:
    """The budget the run set itself, as its ``config.json`` records it: its ``--budget-usd``,
    else its ``proctor.json``'s ``budgetUsd``. A resume given no ``--budget-usd`` warns at it,
    as the run did. None when it set none, or its ``config.json`` does not read (the resume
    says so)."""
    from proctor.errors import ProctorError
    from proctor.models.io import read_record
    from proctor.models.run import ConfigRecord
    from proctor.paths import RunPaths

    try:
        recorded = read_record(RunPaths(run_dir).config_json, ConfigRecord)
    except (ProctorError, OSError):  # unreadable: the resume itself says so
        return None
    return recorded.cli.budget_usd or recorded.config.budget_usd


def spent_before(run_dir: Path, retry_errors: int = 0) -> float:
    """What the trials the run recorded so far cost that no record a resume of it writes will
    count again: the budget of the resume counts it, then each trial it runs as it ends. That
    is all a kept trial spent (its earlier attempts too); the own cost of one recorded as
    interrupted, run again (the attempts it kept before are listed in its new record); and
    nothing of one ``retry_errors`` (the resume's ``--retry-errors N``) runs again after an
    error: its files become an attempt its new record lists, with those before it."""
    from proctor.execute.context import was_interrupted
    from proctor.execute.retry import due_again
    from proctor.models.io import read_trial
    from proctor.paths import RunPaths

    spent = 0.0
    for path in RunPaths(run_dir).trial_jsons():
        try:
            record, _ = read_trial(path)
        except Exception:  # unreadable: the resume itself says so
            continue
        if was_interrupted(record.reason):
            spent += _known(record.cost)
        elif not retry_errors or due_again(path.parent, record, retry_errors) is None:
            spent += spent_by(record)
    return spent


def spent_by(record: TrialRecord) -> float:
    """The dollars a trial is known to have spent, as the run's cost counts them: its earlier
    attempts' too (``--retry-errors``), and each priced model's where the total is unknown."""
    return sum(_known(cost) for cost in [record.cost, *(a.cost for a in record.attempts)])


def _known(cost: CostInfo) -> float:
    """The dollars of ``cost``'s priced models (all of it, when every model is priced)."""
    return sum(v for v in cost.by_model.values() if v is not None)
