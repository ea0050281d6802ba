"""The nodes of a Ray cluster that may run a plan's trials.

Before the first trial, every live node with CPUs gets one small task pinned to it
(:func:`~proctor.execute.ray_node.check_node`); a node that lacks the agent CLIs, the same
proctor or the case source is reported on stderr and gets no trial. When no node is left, the
run stops with one sentence per node (exit 2). Trials then go to the checked node with the most
free CPUs, pinned there; a node found dead is never chosen again. A node that joins the
cluster during the run (an autoscaler's, or one started by hand) is checked the same way when
the driver next looks (every :data:`LOOK_EVERY_SEC`) and then takes trials too.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from proctor.errors import ConfigError
from proctor.execute.ray_node import NodeNeeds, NodeReport, check_node, needs_of
from proctor.models.plan import TrialSpec
from proctor.util.logs import shown_as

log = logging.getLogger("proctor")

RAY_HINT = "pip install 'proctor[ray]'"
CHECK_TIMEOUT_SEC = 180.0
"""How long a node may take to answer its check (it asks each agent CLI for its version)."""
LOOK_EVERY_SEC = 5.0
"""How often the driver looks for nodes that joined the cluster during the run."""


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
    """The checked nodes that run trials, and the checks of nodes that joined since."""

    def __init__(
        self,
        ray: ModuleType,
        nodes: list[Node],
        needs: NodeNeeds | None = None,
        known: set[str] | None = None,
    ) -> None:
        self.ray = ray
        self.nodes = nodes
        self.needs = needs
        """What a node needs for these trials (None: no node is taken in after the start)."""
        self.known = known if known is not None else {n.node_id for n in nodes}
        """Every node seen, taken or left out: each is checked once."""
        self.checking: dict[str, tuple[Node, Any, float]] = {}
        self.next_look = time.monotonic() + LOOK_EVERY_SEC

    @classmethod
    def checked(cls, ray: ModuleType, trials: Sequence[TrialSpec]) -> Cluster:
        """Check every live node with CPUs; report those that cannot run the trials."""
        candidates = _live_nodes(ray)
        if not candidates:
            raise ConfigError("the Ray cluster has no live node with CPUs to run trials on")
        needs = needs_of(trials)
        reports = _check_all(ray, candidates, needs)
        good = [node for node in candidates if not reports[node.node_id]]
        for node in candidates:
            problems = reports[node.node_id]
            if problems and good:
                _left_out(node, problems)
        if not good:
            raise ConfigError(
                "no Ray node can run these trials: "
                + "; ".join(f"node {n.label}: {'; '.join(reports[n.node_id])}" for n in candidates)
            )
        return cls(ray, good, needs, {n.node_id for n in candidates})

    def pick(self) -> Node | None:
        """The live node with the most free CPUs (None when every node is gone)."""
        alive = [n for n in self.nodes if n.alive]
        return min(alive, key=lambda n: n.running / n.cpus) if alive else None

    def capacity(self) -> int:
        """Trials the live nodes run at once, one per whole CPU (at least one)."""
        return max(1, sum(int(n.cpus) for n in self.nodes if n.alive))

    def refresh(self) -> None:
        """Mark the nodes Ray no longer counts as alive."""
        alive = {n["NodeID"] for n in self.ray.nodes() if n.get("Alive")}
        for node in self.nodes:
            node.alive = node.alive and node.node_id in alive

    def look_for_new(self, now: float) -> None:
        """Take in the nodes whose check has passed; start the check of nodes that joined
        since the last look (one look every :data:`LOOK_EVERY_SEC`)."""
        if self.needs is None:
            return
        if self.checking:
            self._take_checked(now)
        if now < self.next_look:
            return
        self.next_look = now + LOOK_EVERY_SEC
        fresh = [n for n in _live_nodes(self.ray) if n.node_id not in self.known]
        if not fresh:
            return
        remote = self.ray.remote(num_cpus=0, max_retries=0)(check_node)
        for node in fresh:
            self.known.add(node.node_id)
            pinned = remote.options(scheduling_strategy=scheduled_on(node))
            self.checking[node.node_id] = (node, pinned.remote(self.needs, node.node_id), now)

    def _take_checked(self, now: float) -> None:
        refs = [ref for _, ref, _ in self.checking.values()]
        ready, _ = self.ray.wait(refs, num_returns=len(refs), timeout=0)
        done = set(ready)
        for node_id, (node, ref, started) in list(self.checking.items()):
            if ref in done:
                del self.checking[node_id]
                problems = _report(self.ray, ref)
                if problems:
                    _left_out(node, problems)
                else:
                    self.nodes.append(node)
                    log.warning(
                        "Ray node %s joined the run and takes trials", node.label, extra=shown_as()
                    )
            elif now - started > CHECK_TIMEOUT_SEC:
                del self.checking[node_id]
                self.ray.cancel(ref, force=True)
                _left_out(node, (f"it did not answer its check within {CHECK_TIMEOUT_SEC:g} s",))


def _live_nodes(ray: ModuleType) -> list[Node]:
    return [
        Node(n["NodeID"], n.get("NodeManagerAddress", "?"), float(n["Resources"]["CPU"]))
        for n in ray.nodes()
        if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) > 0
    ]


def _left_out(node: Node, problems: Sequence[str]) -> None:
    log.warning(
        "Ray node %s is left out of this run: %s",
        node.label,
        "; ".join(problems),
        extra=shown_as(),
    )


def _report(ray: ModuleType, ref: Any) -> tuple[str, ...]:
    """The problems a finished check found (its failure is one)."""
    try:
        report: NodeReport = ray.get(ref, timeout=0.1)
    except ray.exceptions.GetTimeoutError:
        ray.cancel(ref, force=True)
        return (f"it did not answer its check within {CHECK_TIMEOUT_SEC:g} s",)
    except ray.exceptions.RayError as exc:
        text = str(exc).strip().splitlines()
        return (f"its check failed ({text[-1] if text else type(exc).__name__})",)
    return report.problems


def _check_all(ray: ModuleType, nodes: list[Node], needs: Any) -> dict[str, tuple[str, ...]]:
    remote = ray.remote(num_cpus=0, max_retries=0)(check_node)
    refs = {
        node.node_id: remote.options(scheduling_strategy=scheduled_on(node)).remote(
            needs, node.node_id
        )
        for node in nodes
    }
    ray.wait(list(refs.values()), num_returns=len(refs), timeout=CHECK_TIMEOUT_SEC)
    return {node_id: _report(ray, ref) for node_id, ref in refs.items()}
