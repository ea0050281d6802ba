"""The Runs page: every run, newest first, filtered by agent, case, tag, status and text."""

from __future__ import annotations

import json
from dataclasses import dataclass
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
            # The text as typed: its % and _ are not wildcards.
            escaped = value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            where.append(
                "(r.name LIKE ? ESCAPE '\\' OR r.source LIKE ? ESCAPE '\\' "
                "OR r.cases LIKE ? ESCAPE '\\')"
            )
            params += [f"%{escaped}%"] * 3
    rows = index.query(
        f"SELECT * FROM runs r WHERE {' AND '.join(where)} "
        "ORDER BY coalesce(r.started_at, r.name) DESC",
        tuple(params),
    )
    return [summary(row) for row in rows]


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
    )


ROUTES = [Route("/", runs_page, name="runs")]
