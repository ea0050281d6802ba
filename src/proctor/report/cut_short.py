"""The trials a stop cut short: a run stopped (Ctrl-C, SIGTERM) records each trial that was
running in an error status (``infra-error``), its reason ``interrupted: …``, and ``--resume``
runs it again. The person who stopped the run broke nothing: every report (Markdown, HTML, the
viewer's run page, JUnit) says such a trial was cut short by the stop, in the same words, not
that it failed to run."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Protocol

from proctor.models.trial import ERROR_STATUSES, INTERRUPTED_PREFIX

if TYPE_CHECKING:  # (the run's trial lines import this before the reporting stage is loaded)
    from proctor.models.suite import GroupStats

CUT_SHORT = "cut short by the stop (interrupted)"
"""How the reports name a trial a stop cut short."""


class _Trial(Protocol):
    """A trial record, or the viewer's point of one: what tells it was cut short."""

    @property
    def case(self) -> str: ...
    @property
    def agent(self) -> str: ...
    @property
    def condition(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def reason(self) -> str: ...


def is_cut_short(trial: _Trial) -> bool:
    """Whether a stop cut ``trial`` short (its reason says ``interrupted: …``)."""
    return trial.status in ERROR_STATUSES and (trial.reason or "").startswith(INTERRUPTED_PREFIX)


def cut_short_by_group(trials: Iterable[_Trial]) -> dict[tuple[str, str, str], int]:
    """How many trials of each (case, agent, condition) a stop cut short; a group with none is
    left out."""
    counts: dict[tuple[str, str, str], int] = {}
    for t in trials:
        if is_cut_short(t):
            key = (t.case, t.agent, t.condition)
            counts[key] = counts.get(key, 0) + 1
    return counts


def no_scored_trial(group: GroupStats, cut_short: int = 0) -> str:
    """What a group with no scored trial ran into, its trials counted apart: ``no scored
    trial: 1 in error, 1 cut short by the stop (interrupted), 2 skipped``; ``cut_short``: how
    many of its trials in an error status a stop cut short."""
    counts = group.status_counts
    errors = sum(v for k, v in counts.items() if k in ERROR_STATUSES) - cut_short
    said = [f"{errors} in error"] if errors or not cut_short else []
    if cut_short:
        said.append(f"{cut_short} {CUT_SHORT}")
    if counts.get("skipped", 0):
        said.append(f"{counts['skipped']} skipped")
    return f"no scored trial: {', '.join(said)}"


def no_scored_trial_of(group: GroupStats, trials: Iterable[_Trial]) -> str:
    """:func:`no_scored_trial`, counting the group's trials a stop cut short among ``trials``
    (the HTML report's and the viewer's run page's points)."""
    key = (group.case, group.agent, group.condition)
    return no_scored_trial(group, cut_short_by_group(trials).get(key, 0))


def statuses_cut_short(trials: Sequence[_Trial]) -> str:
    """What the count of trials by status adds for the trials a stop cut short, by the
    status they were recorded in: ``the 2 infra-error were cut short by the stop
    (interrupted)``, ``1 of the 3 infra-error was …``; empty when a stop cut none short."""
    by_status: dict[str, int] = {}
    every: dict[str, int] = {}
    for t in trials:
        every[t.status] = every.get(t.status, 0) + 1
        if is_cut_short(t):
            by_status[t.status] = by_status.get(t.status, 0) + 1
    if not by_status:
        return ""
    parts = [
        f"the {n} {status}" if n == every[status] else f"{n} of the {every[status]} {status}"
        for status, n in sorted(by_status.items())
    ]
    were = "was" if sum(by_status.values()) == 1 else "were"
    return f"{' and '.join(parts)} {were} {CUT_SHORT}"
