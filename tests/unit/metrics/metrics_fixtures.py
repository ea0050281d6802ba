"""Hand-worked trajectories of tests/fixtures/metrics, comparison helpers, event builders."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proctor.metrics import (
    MetricsConfig,
    ProcessMetrics,
    RuleResult,
    compute_process_metrics,
    evaluate_rules,
)
from proctor.models.config import ModelPrice
from proctor.models.pricing import PriceTable
from proctor.models.trajectory import Event, make_event, parse_event

FIXTURE_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "metrics"
TOLERANCE = 1e-5


@dataclass(frozen=True)
class Fixture:
    name: str
    description: str
    events: list[Event]
    expected: dict[str, Any]
    expected_files: list[str] = field(default_factory=list)
    expected_symbols: list[str] = field(default_factory=list)
    workspace: str | None = None
    pricing: dict[str, tuple[float, float, float, float]] | None = None
    config: MetricsConfig = field(default_factory=MetricsConfig)


def load_fixtures() -> list[Fixture]:
    """Every fixture file, sorted by name."""
    fixtures = []
    for path in sorted(FIXTURE_DIR.glob("*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        pricing = raw.get("pricing")
        fixtures.append(
            Fixture(
                name=path.stem,
                description=raw["description"],
                events=[parse_event(e) for e in raw["events"]],
                expected=raw["expected"],
                expected_files=raw.get("expectedFiles", []),
                expected_symbols=raw.get("expectedSymbols", []),
                workspace=raw.get("workspace"),
                pricing={m: tuple(p) for m, p in pricing.items()} if pricing else None,
                config=MetricsConfig.model_validate(raw.get("config", {})),
            )
        )
    return fixtures


FIXTURES = load_fixtures()
BY_NAME = {fx.name: fx for fx in FIXTURES}


def compute(fx: Fixture, config: MetricsConfig | None = None) -> ProcessMetrics:
    """The process metrics of a fixture with its own arguments."""
    return compute_process_metrics(
        fx.events,
        expected_files=fx.expected_files,
        expected_symbols=fx.expected_symbols,
        config=config or fx.config,
        workspace=fx.workspace,
        pricing=price_table(fx.pricing),
    )


def price_table(prices: dict[str, tuple[float, float, float, float]] | None) -> PriceTable | None:
    """A fixture's ``pricing`` (model → [input, output, cache read, cache write] per million)."""
    if prices is None:
        return None
    return PriceTable(
        prices={
            model: ModelPrice(
                input_per1_m=p[0],
                output_per1_m=p[1],
                cache_read_per1_m=p[2],
                cache_write_per1_m=p[3],
            )
            for model, p in prices.items()
        }
    )


def view(metrics: ProcessMetrics, rules: list[RuleResult]) -> dict[str, Any]:
    """The metrics dict plus ``rules`` (rule -> fired) and ``rulesApplicable``."""
    out = metrics.to_dict()
    out["rules"] = {r.rule: r.fired for r in rules}
    out["rulesApplicable"] = all(r.applicable for r in rules)
    return out


def actual(fx: Fixture) -> dict[str, Any]:
    metrics = compute(fx)
    return view(metrics, evaluate_rules(metrics, fx.config))


def mismatches(expected: Any, got: Any, path: str = "") -> list[str]:
    """Where ``got`` differs from ``expected``; only the keys present in ``expected`` count."""
    where = path or "<root>"
    if isinstance(expected, Mapping):
        if not isinstance(got, Mapping):
            return [f"{where}: expected a mapping, got {got!r}"]
        return [
            m
            for key, value in expected.items()
            for m in (
                mismatches(value, got[key], f"{path}.{key}".lstrip("."))
                if key in got
                else [f"{path}.{key}: missing"]
            )
        ]
    if isinstance(expected, list):
        if not isinstance(got, list) or len(got) != len(expected):
            return [f"{where}: expected {expected!r}, got {got!r}"]
        return [
            m
            for i, (e, g) in enumerate(zip(expected, got, strict=True))
            for m in mismatches(e, g, f"{path}[{i}]")
        ]
    if isinstance(expected, bool) or expected is None or isinstance(expected, str):
        same = type(got) is type(expected) and got == expected
    elif isinstance(expected, int | float):
        same = (
            isinstance(got, int | float)
            and not isinstance(got, bool)
            and math.isclose(got, expected, rel_tol=TOLERANCE, abs_tol=TOLERANCE)
        )
    else:
        same = got == expected
    return [] if same else [f"{where}: expected {expected!r}, got {got!r}"]


def lookup(data: Mapping[str, Any], path: str) -> tuple[bool, Any]:
    """The value at a dotted path, and whether it exists."""
    node: Any = data
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return False, None
        node = node[part]
    return True, node


def disagreements(path: str, broken: Callable[[Fixture], Any]) -> list[str]:
    """Fixtures on which ``broken`` gives a value other than the hand-worked one at ``path``."""
    found = []
    for fx in FIXTURES:
        present, want = lookup(fx.expected, path)
        if present and mismatches(want, broken(fx)):
            found.append(fx.name)
    return found


def call(cid: str | None, kind: str | None, **kw: Any) -> Event:
    return make_event("tool_call", id=cid, name=kind or "x", kind=kind, **kw)


def result(cid: str, is_error: bool | None = False, **kw: Any) -> Event:
    return make_event("tool_result", id=cid, is_error=is_error, **kw)


def shell(cid: str, command: Any) -> Event:
    return call(cid, "shell", input={"command": command})
