"""Context metrics: which files the agent looked at, against the files that mattered."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from proctor.metrics.trace import (
    EDIT_KINDS,
    EXPLORE_KINDS,
    READ_KINDS,
    Step,
    normalise_paths,
    seconds_since,
    step_texts,
    took_effect,
)
from proctor.models.process import ContextBasis, ContextMetrics


def context_basis(
    steps: Sequence[Step], expected_files: Sequence[str], workspace: str | None
) -> tuple[ContextBasis, frozenset[str]]:
    """The expected files; else the edited files (of the edits that took effect) as a proxy;
    else basis ``none`` and no files."""
    edited = (f for s in steps if s.kind in EDIT_KINDS and took_effect(s) for f in s.files)
    return _basis(expected_files, workspace, dict.fromkeys(edited))


def _basis(
    expected_files: Sequence[str], workspace: str | None, edited: Iterable[str]
) -> tuple[ContextBasis, frozenset[str]]:
    expected = normalise_paths(expected_files, workspace)
    if expected:
        return "expected", frozenset(expected)
    proxy = frozenset(edited)
    return ("edited-proxy", proxy) if proxy else ("none", proxy)


def redundancy(steps: Sequence[Step]) -> float | None:
    """Share of read calls whose every file an earlier read call already read.

    Read calls naming no file are left out; None when no read call names a file.
    """
    seen: set[str] = set()
    reads = repeats = 0
    for step in steps:
        if step.kind in READ_KINDS and step.files:
            reads += 1
            repeats += seen.issuperset(step.files)
            seen.update(step.files)
    return repeats / reads if reads else None


def symbol_hit(steps: Sequence[Step], symbols: Sequence[str]) -> bool | None:
    """Whether an expected symbol occurs in the input or output of a read, search or edit.

    Blank symbols are ignored: they would occur everywhere. None when no other symbol is
    expected; False when symbols are expected but none occurs.
    """
    wanted = [s for s in symbols if s.strip()]
    if not wanted:
        return None
    return any(
        sym in text
        for step in steps
        if step.kind in EXPLORE_KINDS
        for text in step_texts(step)
        for sym in wanted
    )


def coverage_auc(steps: Sequence[Step], expected: frozenset[str]) -> float | None:
    """Mean over tool calls of the recall of every file explored so far (that call included).

    Explored means named by a read, search, edit or write call. None without tool calls or
    expected files.
    """
    if not steps or not expected:
        return None
    explored: set[str] = set()
    total = recall = 0.0
    for step in steps:
        if step.kind in EXPLORE_KINDS and step.files:
            # Worked out again only where it may change: most calls explore nothing new.
            explored.update(step.files)
            recall = len(explored & expected) / len(expected)
        total += recall
    return total / len(steps)


def context_metrics(
    steps: Sequence[Step],
    *,
    expected_files: Sequence[str] = (),
    expected_symbols: Sequence[str] = (),
    workspace: str | None = None,
    start: datetime | None = None,
) -> ContextMetrics:
    """Recall, precision, F1, AUC-Cov, redundancy and hits of the files read.

    With basis ``none`` every file-based metric is None; ``redundancy`` and
    ``correct_symbol_hit`` do not need a basis.
    """
    # The files read and edited in one pass: a history replay measures thousands of sessions
    # of a few steps each, where each pass of its own cost more than the steps.
    read: dict[str, None] = {}
    edited: dict[str, None] = {}
    for step in steps:
        if step.kind in READ_KINDS:
            read.update(dict.fromkeys(step.files))
        elif step.kind in EDIT_KINDS and took_effect(step):  # a failed edit changed nothing
            edited.update(dict.fromkeys(step.files))
    basis, expected = _basis(expected_files, workspace, edited)
    common = {
        "basis": basis,
        "expected_files": sorted(expected),
        "files_read": sorted(read),
        "edited_files": sorted(edited),
        "redundancy": redundancy(steps),
        "correct_symbol_hit": symbol_hit(steps, expected_symbols),
    }
    if not expected:
        return ContextMetrics.model_validate(common)
    hits = len(expected.intersection(read))
    recall = hits / len(expected)
    precision = hits / len(read) if read else None
    f1 = 0.0 if not hits or precision is None else 2 * precision * recall / (precision + recall)
    first = next(
        (s for s in steps if s.kind in EXPLORE_KINDS and not expected.isdisjoint(s.files)), None
    )
    first_file = None
    irrelevant = wrong = 0
    for step in steps:
        if step.kind in READ_KINDS:
            for f in step.files:
                if f not in expected:
                    irrelevant += 1
                elif first_file is None:
                    first_file = f
        elif step.kind in EDIT_KINDS:
            wrong += sum(f not in expected for f in step.files)
    return ContextMetrics.model_validate(
        {
            **common,
            "recall": recall,
            "precision": precision,
            "f1": f1,
            "auc_cov": coverage_auc(steps, expected),
            "first_relevant_step": first.index if first else None,
            "first_relevant_seconds": seconds_since(start, first.call.ts) if first else None,
            "first_relevant_file": first_file,
            "correct_file_hit": not expected.isdisjoint(read) or not expected.isdisjoint(edited),
            "irrelevant_file_opens": irrelevant,
            "wrong_context_events": wrong,
        }
    )
