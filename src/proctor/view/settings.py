"""The viewer's settings: where the results are, what the playground may run, its token."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_MAX_BATCHES = 20
MAX_BATCHES_LIMIT = 500


@dataclass(frozen=True)
class ViewSettings:
    results: Path
    """The results directory the viewer reads (and the playground writes its runs into)."""
    only: str | None = None
    """A single run folder of ``results`` to show (``proctor view RUN_DIR``)."""
    source: Path | None = None
    """The project folder whose case suites the playground lists and runs."""
    max_batches: int = DEFAULT_MAX_BATCHES
    """Playground batches kept in the index (the oldest finished ones are dropped)."""
    page_size: int = 200
    """Trajectory events per page of a trial."""
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    """Required (as the ``X-Proctor-Token`` header) on every state-changing request."""
    allow_changes: bool = True
    """False when the viewer listens on every address: the playground then runs nothing."""
    origins: tuple[str, ...] = ()
    """The viewer's own addresses: the only origins allowed to change state, and the only
    ``Host`` values served (empty: not checked, and the origin must match the request's Host)."""
