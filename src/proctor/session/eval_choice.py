"""Which evals a request chooses: its ids, ``--case`` GLOBs and ``--tag``s, each refused in a
sentence when it chooses nothing it names (as ``proctor run`` refuses a GLOB or a tag no case
has, even beside others that choose)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from proctor.errors import ConfigError
from proctor.evals.discover import EvalPoint, EvalProject, misnamed_said, select
from proctor.plan.choosing import picks
from proctor.plan.resolve import check_case_globs
from proctor.util.json_shown import name_shown
from proctor.util.text import did_you_mean

if TYPE_CHECKING:
    from proctor.session.evals import EvalRequest


def selection(request: EvalRequest, project: EvalProject) -> list[tuple[EvalPoint, list[int]]]:
    """The evals the request's ids, ``--case`` GLOBs and tags choose of a discovered project;
    a ConfigError when an id names no eval, or a GLOB matches no case's id (the project's own
    mistakes are discovery's)."""
    if not project.points and (request.ids or request.cases):
        raise ConfigError(nothing_chosen(request, project))  # the folder, not a near id
    chosen = select(project.points, request.ids, request.tags, request.dir / "evals")
    _check_tags(request, project)
    if request.cases:  # as proctor run says a GLOB that matches no case, even beside others
        names = [point.id for point in project.points]
        every = [rid for point in project.points for rid in (point.id, *point.ids())]
        check_case_globs(request.cases, names, every)
    return _picked(chosen, request.cases)


def _check_tags(request: EvalRequest, project: EvalProject) -> None:
    """A ``--tag`` no eval (below the ids given) has is a typo, refused even beside tags that
    choose evals, as ``proctor run`` refuses it: the run would otherwise run less than asked,
    and pass. (Every tag unknown: :func:`nothing_chosen` says so.)"""
    points = [point for point, _ in select(project.points, request.ids, ())]
    used = sorted({tag for point in points for tag in point.tags})
    unknown = [tag for tag in request.tags if tag not in used]
    if unknown and len(unknown) < len(request.tags):
        near = did_you_mean(unknown[0], used) if len(unknown) == 1 else ""
        shown = ", ".join(map(name_shown, unknown))
        # With ids, the evals below them (as nothing_chosen says it): another may have it.
        below, there = (" below the ids given", " there") if request.ids else ("", "")
        raise ConfigError(
            f"--tag {shown}: no eval{below} has it ({near}the tags in use{there}: "
            f"{', '.join(used)})"
        )


def _picked(
    chosen: list[tuple[EvalPoint, list[int]]], globs: Sequence[str]
) -> list[tuple[EvalPoint, list[int]]]:
    """Of ``chosen``, the cases a ``--case`` GLOB picks by their id (every iteration chosen),
    or the iterations it picks by theirs (``a/2``); all of them without a GLOB."""
    if not globs:
        return chosen
    kept = []
    for point, picked in chosen:
        if not any(picks(point.id, glob) for glob in globs):
            ids = point.ids()
            picked = [i for i in picked if any(picks(ids[i - 1], glob) for glob in globs)]
        if picked:
            kept.append((point, picked))
    return kept


def nothing_chosen(request: EvalRequest, project: EvalProject) -> str:
    """Why a selection chose no eval, one sentence naming the evals folder: it holds no eval
    file at all (each file that looks like one but is named otherwise named too), or no eval
    has the tags given (below the ids given, if any)."""
    evals_dir = request.dir / "evals"
    if not project.points:
        misnamed = "".join(f"; {misnamed_said(path, line)}" for path, line in project.misnamed)
        return (
            f"{evals_dir}: holds no *.eval.py file (evals live in DIR/evals/**/*.eval.py)"
            + misnamed
        )
    # The evals the ids and --case choose (all of them without either): a tag in use
    # elsewhere would not be chosen either.
    points = [p for p, _ in _picked(select(project.points, request.ids, ()), request.cases)]
    if not points:  # ids and --case that each name evals, but none of the same
        ids = [point.id for point, _ in select(project.points, request.ids, ())]
        shown = ", ".join(ids[:10]) + (", …" if len(ids) > 10 else "")
        globs = ", ".join(request.cases)
        return f"--case {globs}: no case below the ids given matches (their cases: {shown})"
    tags = ", ".join(repr(tag) for tag in request.tags)
    which = "the tag" if len(request.tags) == 1 else "any of the tags"
    below = " below the ids given" if request.ids else ""
    below += " that --case picks" if request.cases else ""
    used = sorted({tag for point in points for tag in point.tags})
    more = f" and {len(used) - 12} more" if len(used) > 12 else ""
    there = " there" if request.ids or request.cases else ""
    known = (
        f"; the tags in use{there}: {', '.join(used[:12])}{more}"
        if used
        else f"; no eval{there} has a tag"
    )
    return f"{evals_dir}: no eval{below} has {which} {tags}{known}"
