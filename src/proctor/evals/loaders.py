"""Fixture loaders for eval files. Paths resolve against the project root (the folder that holds
``evals/``), not the working directory, so an eval reads the same files wherever it runs."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

_ROOT: list[Path] = []


def set_project_root(root: Path) -> None:
    """Called by ``proctor eval`` before eval files run (forked workers inherit it)."""
    _ROOT[:] = [root.resolve()]


def project_root() -> Path:
    return _ROOT[0] if _ROOT else Path(os.getcwd())


def resolve_fixture_path(path: str | Path) -> Path:
    """``path`` against the project root (an absolute path is kept)."""
    found = Path(path).expanduser()
    return found if found.is_absolute() else project_root() / found


def load_json(path: str | Path) -> Any:
    return json.loads(resolve_fixture_path(path).read_text(encoding="utf-8"))


def load_jsonl(path: str | Path) -> list[Any]:
    text = resolve_fixture_path(path).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def load_yaml(path: str | Path) -> Any:
    """Needs PyYAML (``pip install pyyaml``)."""
    try:
        import yaml  # type: ignore[import-untyped]
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise RuntimeError("load_yaml needs PyYAML: pip install pyyaml") from exc
    return yaml.safe_load(resolve_fixture_path(path).read_text(encoding="utf-8"))
