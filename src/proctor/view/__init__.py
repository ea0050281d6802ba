"""The local web viewer and playground (``proctor view``): an incremental sqlite index of a
results directory and a server-rendered Starlette app over it.

    from proctor.view import ResultsIndex, ViewSettings, build_app
    app = build_app(ViewSettings(results=Path("proctor-results")))
"""

from __future__ import annotations

from proctor.view.app import build_app
from proctor.view.index import ResultsIndex
from proctor.view.settings import ViewSettings

__all__ = ["ResultsIndex", "ViewSettings", "build_app"]
