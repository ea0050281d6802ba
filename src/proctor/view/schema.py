"""The tables of the viewer's index, and how a run's row is made from its records."""

from __future__ import annotations

import hashlib
import json
import os
from datetime import datetime
from typing import Any

from proctor.view.records import RunFacts

INDEX_FILE = ".proctor-view.sqlite"
"""The index's file, inside the results directory (a cache: deleting it is always safe)."""


def index_file_of(run: str) -> str:
    """The index file of a viewer of the one run ``run`` (beside the folder's own); a long run
    name is shortened to a digest, as a file name holds 255 bytes."""
    name = f".proctor-view.{run}.sqlite"
    if len(os.fsencode(name)) <= 200:
        return name
    digest = hashlib.sha256(os.fsencode(run)).hexdigest()[:16]
    return f".proctor-view.{digest}.sqlite"


SCHEMA_VERSION = 1

RUN_COLUMNS = (
    "name, run_id, started_at, finished_at, source, agents, conditions, cases, planned, trials, "
    "scored, passes, status_counts, exit_code, exit_reason, cost_usd, wall_ms, in_progress, "
    "signature, problem, wall_lower_bound, command, cut_short, cases_copy"
)
"""The columns of :func:`run_values`, in its order: named when a row is written, since a column
added to an older index (``ADDED_COLUMNS``) stands where it was added, not where ``SCHEMA``
puts it."""
TRIAL_COLUMNS = (
    "run, key, case_name, agent, condition, repeat, status, passed, score, reason, total_ms, "
    "agent_ms, harness_ms, tool_calls, tokens, cost_usd, tags, stamp, spent_usd, warnings"
)
"""The columns of a trial's row, in the order the index writes them (named, as ``RUN_COLUMNS``)."""

SCHEMA = """
CREATE TABLE runs (
  name TEXT PRIMARY KEY, run_id TEXT, started_at TEXT, finished_at TEXT, source TEXT,
  agents TEXT, conditions TEXT, cases TEXT, planned INTEGER, trials INTEGER, scored INTEGER,
  passes INTEGER, status_counts TEXT, exit_code INTEGER, exit_reason TEXT, cost_usd REAL,
  wall_ms REAL, in_progress INTEGER, signature TEXT, problem TEXT, wall_lower_bound INTEGER,
  command TEXT, cut_short INTEGER, cases_copy TEXT
);
CREATE TABLE trials (
  run TEXT, key TEXT, case_name TEXT, agent TEXT, condition TEXT, repeat INTEGER,
  status TEXT, passed INTEGER, score REAL, reason TEXT, total_ms REAL, agent_ms REAL,
  harness_ms REAL, tool_calls INTEGER, tokens INTEGER, cost_usd REAL, tags TEXT, stamp TEXT,
  spent_usd REAL, warnings TEXT, PRIMARY KEY (run, key)
);
CREATE INDEX trials_cell ON trials (run, case_name, agent, condition);
CREATE TABLE trajectories (
  run TEXT, key TEXT, scanned_to INTEGER, inode INTEGER, device INTEGER, starts BLOB,
  tool_calls BLOB, fingerprint BLOB, PRIMARY KEY (run, key)
);
CREATE TABLE batches (
  id TEXT PRIMARY KEY, created TEXT, state TEXT, source TEXT, cases TEXT, run TEXT,
  exit_code INTEGER, message TEXT, finished TEXT, owner TEXT
);
"""
ADDED_COLUMNS = (
    ("batches", "owner", "TEXT"),
    ("trajectories", "fingerprint", "BLOB"),
    ("trials", "spent_usd", "REAL"),
    ("runs", "problem", "TEXT"),
    ("runs", "wall_lower_bound", "INTEGER"),
    ("trials", "warnings", "TEXT"),
    ("runs", "command", "TEXT"),
    ("runs", "cut_short", "INTEGER"),
    ("runs", "cases_copy", "TEXT"),
)
"""Columns added since an index of this schema version was first made: added in place, so that
an index in use by another viewer is never rebuilt under it (a column added to ``trials`` or
``runs`` has every run read again, to fill it)."""


def run_values(
    facts: RunFacts,
    sig: str,
    totals: dict[str, Any],
    counts: dict[str, int],
    facets: dict[str, list[str]],
) -> tuple[object, ...]:
    """The ``runs`` row of a run from its records and its trials' totals."""
    m, suite = facts.manifest, facts.suite
    wall = facts.wall[0]  # as `proctor report` tells it: from the journal's stretches
    if wall is None and m is not None and m.finished_at and not m.by_record:
        wall = _ms_between(m.started_at, m.finished_at)
    return (
        facts.name,
        m.run_id if m is not None else facts.name,
        m.started_at if m is not None else None,
        m.finished_at if m is not None else None,
        facts.source,
        json.dumps(facets["agent"]),
        json.dumps(facets["condition"]),
        json.dumps(facets["case_name"]),
        m.trials_planned if m is not None else None,
        totals["n"] or 0,
        totals["scored"] or 0,
        totals["passes"] or 0,
        json.dumps(counts),
        suite.exit_code if suite is not None else None,
        _masked(suite.exit_reason if suite is not None else facts.problem),
        # As `proctor report` sums it: a trial's share is unknown only when a model it used has
        # no price (or its run priced nothing); a trial that never reached its agent adds 0.
        None if totals["unpriced"] else round(totals["cost"] or 0.0, 6),
        wall,
        int(facts.in_progress),
        sig,
        _masked(facts.manifest_problem),
        int(facts.wall[1]),
        # What made the run, as its reports' titles name it: `proctor eval`, or `proctor run`
        # (also when its run.json does not read, as those titles have it).
        "eval"
        if m is not None and m.by_eval
        else "record"
        if m is not None and m.by_record
        else "run",
        # The trials a stop cut short (recorded as interrupted): not finished, as the gate
        # line of `proctor run` and `proctor report` counts them.
        totals["cut"] or 0,
        # The folder proctor wrote the cases it ran into (`proctor eval`), when that is not the
        # source named above.
        m.source if m is not None and m.source != facts.source else None,
    )


def _masked(text: str | None) -> str | None:
    """A reason as the index keeps it: every registered key masked (the index is a file)."""
    from proctor.util.masking import mask

    return None if text is None else mask(text)


def _ms_between(start: str, end: str) -> float | None:
    try:
        a = datetime.fromisoformat(start.replace("Z", "+00:00"))
        b = datetime.fromisoformat(end.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (b - a).total_seconds() * 1000
