"""The dollars ``proctor history`` gives each Claude model of its list, beside ccusage's.

Writes a small Claude Code history (``--keep DIR`` keeps it): one session per Claude model
proctor ships a list price for (a fast mode's, ``claude-opus-4-8-fast``, as Claude Code writes
it: the model's id, and ``usage.speed`` "fast"), three responses each, with input, output,
cache reads and cache writes for five minutes and for an hour, every prompt under 200,000
tokens. Then runs
``proctor history DIR --json`` and ``ccusage claude daily --json --offline --breakdown`` (the
pinned ccusage, installed as :mod:`parse_bench` installs it) over it, and prints each model's
dollars by both, and whether they agree to the millionth of a dollar. Nothing is asserted:
the two price lists are each their own (ccusage's is a snapshot of LiteLLM's and models.dev's
data); a model one of them has no price for is shown as such. Then a session of US-only
inference (``usage.inference_geo`` "us"), which proctor prices at 1.1 times the model's rates
and ccusage as the model itself (it does not read the field), with ccusage's dollars times 1.1
beside proctor's. Then the same for the recorded Codex and Gemini CLI sessions of
``tests/corpus``, laid out as those CLIs keep them (``ccusage codex daily``, ``ccusage gemini
daily``).

Usage: ``python bench/price_check.py [--keep DIR] [--ccusage-prefix DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from parse_bench import CCUSAGE_VERSION, ccusage_binary

from proctor.models.list_prices import FAST, LIST_PRICES, LIST_PRICES_AS_OF, US_ONLY, US_ONLY_RATE

RESPONSES = [
    # input, output, cache read, 5-minute writes, 1-hour writes
    (12_000, 2_500, 60_000, 9_000, 0),
    (300, 800, 75_000, 0, 14_000),
    (40, 1_200, 90_000, 3_000, 5_000),
]


def _line(session: str, number: int, model: str, counts: tuple[int, ...]) -> str:
    """One response of ``model``; a fast mode's (``claude-opus-4-8-fast``) or a US-only one's
    (``claude-opus-4-8-us``) is written as Claude Code writes it: the model's own id, and
    ``usage.speed`` "fast" or ``usage.inference_geo`` "us"."""
    inp, out, read, five, hour = counts
    geo = model.endswith(US_ONLY)
    fast = model.removesuffix(US_ONLY)
    base = fast.removesuffix(FAST)
    record = {
        "parentUuid": None,
        "isSidechain": False,
        "type": "assistant",
        "cwd": "/price/check",
        "sessionId": session,
        "version": "2.1.197",
        "uuid": str(uuid.uuid4()),
        "timestamp": f"2026-11-0{number + 1}T10:00:00.000Z",
        "requestId": f"req_{session}_{number}",
        "message": {
            "id": f"msg_{session}_{number}",
            "type": "message",
            "role": "assistant",
            "model": base,
            "content": [{"type": "text", "text": "ok"}],
            "stop_reason": "end_turn",
            "usage": {
                "input_tokens": inp,
                "cache_creation_input_tokens": five + hour,
                "cache_read_input_tokens": read,
                "cache_creation": {
                    "ephemeral_5m_input_tokens": five,
                    "ephemeral_1h_input_tokens": hour,
                },
                "output_tokens": out,
                **({"speed": "fast"} if base != fast else {}),
                **({"inference_geo": "us"} if geo else {}),
            },
        },
    }
    # Compact, as Claude Code writes its lines (ccusage 20 skips a line with spaces in it).
    return json.dumps(record, separators=(",", ":"))


def write_history(root: Path, models: list[str]) -> None:
    project = root / "projects" / "-price-check"
    project.mkdir(parents=True, exist_ok=True)
    for model in models:
        session = str(uuid.uuid5(uuid.NAMESPACE_URL, model))
        lines = [_line(session, i, model, counts) for i, counts in enumerate(RESPONSES)]
        (project / f"{session}.jsonl").write_text("\n".join(lines) + "\n")


US_ONLY_MODEL = "claude-opus-4-8"
"""The model of the US-only session."""


def proctor_costs(root: Path) -> dict[str, float | None]:
    proctor = Path(sys.executable).with_name("proctor")
    argv = [str(proctor), "history", str(root), "--agent", "claude-code", "--json", "--no-cache"]
    out = subprocess.run(argv, capture_output=True, check=True, text=True, cwd=root).stdout
    costs: dict[str, float | None] = json.loads(out)["total"]["costByModel"]
    return costs


def ccusage_costs(root: Path, binary: Path) -> dict[str, float | None]:
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(root)}
    argv = [str(binary), "claude", "daily", "--json", "--offline", "--breakdown", "-z", "UTC"]
    out = subprocess.run(argv, capture_output=True, check=True, text=True, env=env).stdout
    costs: dict[str, float | None] = {}
    for day in json.loads(out).get("daily", []):
        for row in day.get("modelBreakdowns", []):
            model = row["modelName"]
            if row.get("missingPricing"):
                costs[model] = None
            elif costs.get(model, 0.0) is not None:
                costs[model] = (costs.get(model) or 0.0) + float(row["cost"])
    return costs


CORPUS = Path(__file__).resolve().parents[1] / "tests" / "corpus"


def other_clis(root: Path, binary: Path | None) -> list[tuple[str, float | None, float | None]]:
    """The recorded Codex and Gemini CLI sessions of ``tests/corpus`` (the pinned CLIs' own
    files) laid out as each CLI keeps them, and each agent's total dollars by both tools."""
    codex = root / "codex" / "sessions" / "2026" / "12" / "01"
    gemini = root / "gemini" / "tmp" / "corpus" / "chats"
    codex.mkdir(parents=True)
    gemini.mkdir(parents=True)
    for number, path in enumerate(sorted(CORPUS.glob("codex-*.transcript.jsonl"))):
        name = f"rollout-2026-12-01T10-00-0{number}-{uuid.uuid5(uuid.NAMESPACE_URL, path.name)}"
        (codex / f"{name}.jsonl").write_bytes(path.read_bytes())
    for number, path in enumerate(sorted(CORPUS.glob("gemini-cli-*.transcript.jsonl"))):
        (gemini / f"session-2026-12-01T10-0{number}-corpus.jsonl").write_bytes(path.read_bytes())
    proctor = Path(sys.executable).with_name("proctor")
    rows: list[tuple[str, float | None, float | None]] = []
    for agent, folder, command, variable in (
        ("codex", root / "codex", "codex", "CODEX_HOME"),
        ("gemini-cli", root / "gemini", "gemini", "GEMINI_DATA_DIR"),
    ):
        argv = [str(proctor), "history", str(folder), "--agent", agent, "--json", "--no-cache"]
        out = subprocess.run(argv, capture_output=True, check=True, text=True, cwd=root).stdout
        ours: float | None = json.loads(out)["total"]["costUsd"]
        theirs: float | None = None
        if binary is not None:
            env = {**os.environ, variable: str(folder)}
            argv = [str(binary), command, "daily", "--json", "--offline"]
            done = subprocess.run(argv, capture_output=True, text=True, env=env)
            totals = json.loads(done.stdout)["totals"] if done.returncode == 0 else {}
            theirs = totals.get("totalCost", totals.get("costUSD"))
        rows.append((agent, ours, theirs))
    return rows


def _shown(value: float | None) -> str:
    return "unpriced" if value is None else f"${value:.6f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="write the history here and keep it")
    parser.add_argument("--ccusage-prefix", type=Path, default=Path("/tmp/ccusage"))
    args = parser.parse_args()
    models = sorted(name for name in LIST_PRICES if name.startswith("claude-"))
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp) / "history"
        write_history(root, models)
        ours = proctor_costs(root)
        binary = ccusage_binary(args.ccusage_prefix)
        theirs = ccusage_costs(root, binary) if binary is not None else {}
        us_root = Path(tmp) / "us-only"
        write_history(us_root, [US_ONLY_MODEL + US_ONLY])
        us_ours = proctor_costs(us_root).get(US_ONLY_MODEL + US_ONLY)
        us_theirs = ccusage_costs(us_root, binary).get(US_ONLY_MODEL) if binary else None
        others = other_clis(Path(tmp) / "other-clis", binary)
    print(f"proctor's list prices as of {LIST_PRICES_AS_OF}; ccusage {CCUSAGE_VERSION} --offline")
    print(f"{'model':<22} {'proctor':>12} {'ccusage':>12}  agree")
    agree = 0
    for model in models:
        mine, other = ours.get(model), theirs.get(model)
        same = mine is not None and other is not None and abs(mine - other) < 1e-6
        agree += same
        print(f"{model:<22} {_shown(mine):>12} {_shown(other):>12}  {'yes' if same else 'NO'}")
    if binary is None:
        print("(ccusage could not be installed from the npm registry: its column is empty)")
    print(f"{agree} of {len(models)} models priced alike")
    print(
        f"\nUS-only inference (ccusage prices it as {US_ONLY_MODEL}; its dollars x{US_ONLY_RATE}):"
    )
    expected = None if us_theirs is None else us_theirs * US_ONLY_RATE
    same = us_ours is not None and expected is not None and abs(us_ours - expected) < 1e-6
    name = US_ONLY_MODEL + US_ONLY
    print(f"{name:<22} {_shown(us_ours):>12} {_shown(expected):>12}  {'yes' if same else 'NO'}")
    print("\nthe pinned CLIs' recorded sessions (tests/corpus), each agent's total:")
    for agent, mine, other in others:
        # (proctor rounds each session's dollars to the millionth, ccusage only the total)
        same = mine is not None and other is not None and abs(mine - other) < 1e-5
        print(f"{agent:<22} {_shown(mine):>12} {_shown(other):>12}  {'yes' if same else 'NO'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
