"""Golden trajectories of the real CLIs: the stable part of a trajectory, compared with the
committed copy in ``tests/goldens/`` (``make goldens`` rewrites them)."""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from proctor.models.trajectory import Trajectory, event_json

GOLDENS = Path(__file__).parents[1] / "goldens"


def golden_projection(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The stable part of a trajectory: event types, tool names, kinds, outcomes, files."""
    out = []
    for e in events:
        if e["type"] in ("usage", "other", "thinking"):
            continue
        row: dict[str, Any] = {"type": e["type"]}
        for key in ("name", "kind", "isError", "denied", "files"):
            if e.get(key) not in (None, [], False) or (
                key == "isError" and e["type"] == "tool_result"
            ):
                row[key] = e.get(key)
        if e["type"] in ("user_message", "assistant_text", "question"):
            row["text"] = (e.get("text") or "")[:80]
        out.append(row)
    return out


def recorded_projection(trajectory: Trajectory) -> dict[str, Any]:
    """What the transcript corpus keeps of a parse: token totals and the stable projection."""
    return {
        "usage": {m: u.model_dump(by_alias=True) for m, u in trajectory.usage.items()},
        "events": golden_projection([event_json(e) for e in trajectory.events]),
    }


def check_golden(
    name: str, version: str, events: list[dict[str, Any]], folder: Path = GOLDENS
) -> None:
    """Compare with the committed golden (``make goldens`` rewrites them; review the diff). A
    missing golden fails: only ``UPDATE_GOLDENS=1`` writes one."""
    path = folder / f"{name}.json"
    current = {"cliVersion": version, "events": golden_projection(events)}
    if os.environ.get("UPDATE_GOLDENS") == "1":
        path.write_text(json.dumps(current, indent=2) + "\n")
        return
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make goldens`, review the file and commit it")
    golden = json.loads(path.read_text())
    if golden["cliVersion"] != version:
        pytest.fail(
            f"{path.name} was made with {golden['cliVersion']}, this CLI is {version}: "
            "run `make goldens` and review the diff"
        )
    if current["events"] != golden["events"]:
        pytest.fail(
            f"trajectory drifted from {path.name}:\n{_difference(golden['events'], current['events'])}"
        )


def _difference(golden: list[dict[str, Any]], current: list[dict[str, Any]]) -> str:
    """A unified diff of the two projections, one event per line."""
    lines = difflib.unified_diff(
        [json.dumps(e, sort_keys=True) for e in golden],
        [json.dumps(e, sort_keys=True) for e in current],
        "golden",
        "this run",
        lineterm="",
    )
    return "\n".join(lines)
