"""The Compare page: two runs per case × agent × condition (baseline run against candidate),
or two conditions of one run per case; each verdict shown with the figures behind it."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from proctor.errors import ConfigError, SchemaVersionError
from proctor.report.ab.runs import compare_conditions, compare_runs
from proctor.report.stored import load_records
from proctor.view.confine import run_folder
from proctor.view.index import ResultsIndex
from proctor.view.templating import render


def compare_page(request: Request) -> Response:
    index: ResultsIndex = request.app.state.index
    index.refresh()
    q = request.query_params
    names = [
        r["name"]
        for r in index.query("SELECT name FROM runs ORDER BY coalesce(started_at, name) DESC")
    ]
    context: dict[str, Any] = {"names": names, "q": q, "runs_cmp": None, "ab": None, "error": None}
    try:
        if q.get("a") and q.get("b"):
            context["runs_cmp"] = compare_runs(_records(index, q["a"]), _records(index, q["b"]))
        elif q.get("run"):
            records = _records(index, q["run"])
            context["conditions"] = sorted({r.condition for r in records})
            context["ab"] = compare_conditions(
                records, q.get("treatment") or None, q.get("baseline") or None
            )
    except (ConfigError, SchemaVersionError) as exc:
        context["error"] = str(exc)
    return render(request, "compare.html", **context)


def _records(index: ResultsIndex, run: str) -> list[Any]:
    folder = run_folder(index, run)
    if folder is None:
        raise ConfigError(f"run {run} is not in this results directory")
    return load_records(folder)


ROUTES = [Route("/compare", compare_page, name="compare")]
