"""The nodes of a Ray cluster that may run a plan's trials.

Before the first trial, every live node with CPUs gets one small task pinned to it
(:func:`~proctor.execute.ray_node.check_node`); a node that lacks the agent CLIs, the same
proctor or the case source is reported on stderr and gets no trial. When no node is left, the
run stops with one sentence per node (exit 2). Trials then go to the checked node with the most
free CPUs, pinned there; a node found dead is never chosen again.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from proctor.errors import ConfigError
from proctor.execute.ray_node import NodeReport, check_node, needs_of
from proctor.models.plan import TrialSpec

log = logging.getLogger("proctor")

RAY_HINT = "pip install 'proctor[ray]'"
CHECK_TIMEOUT_SEC = 180.0
"""How long a node may take to answer its check (it asks each agent CLI for its version)."""


def import_ray() -> ModuleType:
    """Ray, or a ConfigError (exit 2) saying how to install it."""
    try:
        import ray
    except ImportError as exc:
        raise ConfigError(
            f"--executor ray needs Ray, which is not installed here: {RAY_HINT}"
        ) from exc
    return ray


@dataclass
class Node:
    node_id: str
    address: str
    cpus: float
    running: int = 0
    alive: bool = True

    @property
    def label(self) -> str:
        return f"{self.address} ({self.node_id[:8]})"


def scheduled_on(node: Node) -> Any:
    """The scheduling strategy that runs a task on ``node`` and nowhere else."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    return NodeAffinitySchedulingStrategy(node_id=node.node_id, soft=False)


class Cluster:
    """The checked nodes that run trials."""

    def __init__(self, ray: ModuleType, nodes: list[Node]) -> None:
        self.ray = ray
        self.nodes = nodes

    @classmethod
    def checked(cls, ray: ModuleType, trials: Sequence[TrialSpec]) -> Cluster:
        """Check every live node with CPUs; report those that cannot run the trials."""
        candidates = [
            Node(n["NodeID"], n.get("NodeManagerAddress", "?"), float(n["Resources"]["CPU"]))
            for n in ray.nodes()
            if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) > 0
        ]
        if not candidates:
            raise ConfigError("the Ray cluster has no live node with CPUs to run trials on")
        reports = _check_all(ray, candidates, needs_of(trials))
        good = [node for node in candidates if not reports[node.node_id]]
        for node in candidates:
            problems = reports[node.node_id]
            if problems and good:
                log.warning(
                    "proctor: Ray node %s is left out of this run: %s",
                    node.label,
                    "; ".join(problems),
                )
        if not good:
            raise ConfigError(
                "no Ray node can run these trials: "
                + "; ".join(f"node {n.label}: {'; '.join(reports[n.node_id])}" for n in candidates)
            )
        return cls(ray, good)

    def pick(self) -> Node | None:
        """The live node with the most free CPUs (None when every node is gone)."""
        alive = [n for n in self.nodes if n.alive]
        return min(alive, key=lambda n: n.running / n.cpus) if alive else None

    def refresh(self) -> None:
        """Mark the nodes Ray no longer counts as alive."""
        alive = {n["NodeID"] for n in self.ray.nodes() if n.get("Alive")}
        for node in self.nodes:
            node.alive = node.alive and node.node_id in alive


def _check_all(ray: ModuleType, nodes: list[Node], needs: Any) -> dict[str, tuple[str, ...]]:
    remote = ray.remote(num_cpus=0, max_retries=0)(check_node)
    refs = {
        node.node_id: remote.options(scheduling_strategy=scheduled_on(node)).remote(
            needs, node.node_id
        )
        for node in nodes
    }
    ray.wait(list(refs.values()), num_returns=len(refs), timeout=CHECK_TIMEOUT_SEC)
    reports: dict[str, tuple[str, ...]] = {}
    for node_id, ref in refs.items():
        try:
            report: NodeReport = ray.get(ref, timeout=0.1)
            reports[node_id] = report.problems
        except ray.exceptions.GetTimeoutError:
            ray.cancel(ref, force=True)
            reports[node_id] = (f"it did not answer its check within {CHECK_TIMEOUT_SEC:g} s",)
        except ray.exceptions.RayError as exc:
            text = str(exc).strip().splitlines()
            reports[node_id] = (f"its check failed ({text[-1] if text else type(exc).__name__})",)
    return reports
