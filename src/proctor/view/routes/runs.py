"""The Runs page: every run, newest first, filtered by agent, case, tag, status and text."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from proctor.models.trial import ERROR_STATUSES
from proctor.view.index import ResultsIndex
from proctor.view.templating import render

FILTERS = ("agent", "case", "tag", "status")


@dataclass(frozen=True)
class RunSummary:
    name: str
    started_at: str | None
    source: str | None
    agents: list[str]
    conditions: list[str]
    planned: int | None
    trials: int
    scored: int
    passes: int
    errors: dict[str, int]
    exit_code: int | None
    finished: bool
    """Whether the run recorded its end (a run neither finished nor in progress was left)."""
    cost_usd: float | None
    wall_ms: float | None
    in_progress: bool
    problem: str | None = None
    """Why the run's ``run.json`` does not read (``run.json: …``), else None: its planned
    count, start and source are then unknown."""
    wall_lower_bound: bool = False
    """``wall_ms`` is a lower bound: a stretch that ran the run was killed (see ``proctor
    report``'s ``wallLowerBound``)."""
    command: str = "run"
    """What made the run: ``eval`` for ``proctor eval`` (the pages say so), else ``run``."""
    cut_short: int = 0
    """Of ``trials``, those a stop cut short (recorded as interrupted): not finished, as the
    run's gate line counts them."""

    cases_copy: str | None = None
    """The folder proctor wrote the cases it ran into (``proctor eval``'s copy under the
    results directory), when ``source`` names the one the person ran."""

    @property
    def finished_trials(self) -> int:
        """The trials that finished: those with a record, less those a stop cut short."""
        return self.trials - self.cut_short


def summaries(index: ResultsIndex, chosen: dict[str, str]) -> list[RunSummary]:
    """The runs matching the filters, newest first."""
    where, params = ["1 = 1"], []
    column = {"agent": "t.agent", "case": "t.case_name", "status": "t.status"}
    for field, value in chosen.items():
        if field in column:
            where.append(
                f"EXISTS (SELECT 1 FROM trials t WHERE t.run = r.name AND {column[field]} = ?)"
            )
            params.append(value)
        elif field == "tag":
            where.append(
                "EXISTS (SELECT 1 FROM trials t, json_each(t.tags) j "
                "WHERE t.run = r.name AND j.value = ?)"
            )
            params.append(value)
        elif field == "q":
            # The text as typed: its % and _ are not wildcards. The cases are searched as
            # names, not as the JSON list they are kept in (ü there is written \u00fc).
            escaped = value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            where.append(
                "(r.name LIKE ? ESCAPE '\\' OR r.source LIKE ? ESCAPE '\\' "
                "OR EXISTS (SELECT 1 FROM json_each(r.cases) c WHERE c.value LIKE ? ESCAPE '\\'))"
            )
            params += [f"%{escaped}%"] * 3
    rows = index.query(f"SELECT * FROM runs r WHERE {' AND '.join(where)}", tuple(params))
    return [summary(row) for row in newest_first(rows)]


_NAMED_TIME = re.compile(r"run-(\d{8}T\d{6})Z")
"""The time a run folder's name starts with (``run-20261201T120000Z-abc123``)."""


def started(row: Any) -> datetime | None:
    """When a run started: as its ``run.json`` says, else as its folder's name says (a
    damaged ``run.json``), else None."""
    if row["started_at"]:
        try:
            moment = datetime.fromisoformat(row["started_at"].replace("Z", "+00:00"))
        except ValueError:
            moment = None
        if moment is not None:
            return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    named = _NAMED_TIME.match(row["name"])
    if named is None:
        return None
    try:
        return datetime.strptime(named.group(1), "%Y%m%dT%H%M%S").replace(tzinfo=UTC)
    except ValueError:  # digits that are no date
        return None


def newest_first(rows: list[Any]) -> list[Any]:
    """The runs' rows, the latest start first; a run whose start is known nowhere comes last
    (by name, the latest first)."""
    by_name = sorted(rows, key=lambda row: row["name"], reverse=True)
    when = {row["name"]: started(row) for row in rows}
    return sorted(by_name, key=lambda row: (when[row["name"]] is None, _negated(when[row["name"]])))


def _negated(moment: datetime | None) -> float:
    return 0.0 if moment is None else -moment.timestamp()


def summary(row: Any) -> RunSummary:
    counts: dict[str, int] = json.loads(row["status_counts"] or "{}")
    return RunSummary(
        name=row["name"],
        started_at=row["started_at"],
        source=row["source"],
        agents=json.loads(row["agents"] or "[]"),
        conditions=json.loads(row["conditions"] or "[]"),
        planned=row["planned"],
        trials=row["trials"],
        scored=row["scored"],
        passes=row["passes"],
        errors={s: n for s, n in sorted(counts.items()) if s in ERROR_STATUSES},
        exit_code=row["exit_code"],
        finished=row["finished_at"] is not None,
        cost_usd=row["cost_usd"],
        wall_ms=row["wall_ms"],
        in_progress=bool(row["in_progress"]),
        problem=row["problem"],
        wall_lower_bound=bool(row["wall_lower_bound"]),
        command=row["command"] or "run",
        cut_short=row["cut_short"] or 0,
        cases_copy=row["cases_copy"],
    )


def facets(index: ResultsIndex) -> dict[str, list[str]]:
    """The values each filter can take, over every indexed trial."""
    out = {
        field: [r[0] for r in index.query(f"SELECT DISTINCT {col} FROM trials ORDER BY 1")]
        for field, col in (("agent", "agent"), ("case", "case_name"), ("status", "status"))
    }
    out["tag"] = [
        r[0]
        for r in index.query("SELECT DISTINCT j.value FROM trials, json_each(tags) j ORDER BY 1")
    ]
    return {f: out[f] for f in FILTERS}


MAX_FILTER_CHARS = 200
"""The longest filter or search text kept (SQLite refuses a LIKE pattern of tens of
thousands of characters, and no run name or case list is searched for with one)."""


def chosen_filters(request: Request, names: tuple[str, ...]) -> dict[str, str]:
    return {
        n: v[:MAX_FILTER_CHARS] for n in names if (v := request.query_params.get(n, "").strip())
    }


def runs_page(request: Request) -> Response:
    index: ResultsIndex = request.app.state.index
    index.refresh()
    chosen = chosen_filters(request, (*FILTERS, "q"))
    return render(
        request,
        "runs.html",
        runs=summaries(index, chosen),
        query=urlencode(chosen),
        facets=facets(index),
        chosen=chosen,
        gone=index.gone,
    )


ROUTES = [Route("/", runs_page, name="runs")]
