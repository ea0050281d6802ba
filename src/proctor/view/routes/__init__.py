"""The viewer's routes, one module per page."""

from __future__ import annotations

from starlette.routing import BaseRoute

from proctor.view.routes import (
    compare,
    files,
    live,
    playground,
    run,
    runs,
    static,
    trial,
    trial_live,
)

ROUTES: list[BaseRoute] = [
    *runs.ROUTES,
    *run.ROUTES,
    *trial.ROUTES,
    *trial_live.ROUTES,
    *files.ROUTES,
    *compare.ROUTES,
    *live.ROUTES,
    *playground.ROUTES,
    *static.ROUTES,
]
