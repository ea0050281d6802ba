"""Record the transcript corpus: the pinned agent CLIs, headless, against proctor's scripted
model server, three files per CLI and scenario (``make corpus``; review the diff).

For each scenario the corpus keeps the CLI's native transcript byte for byte
(``<cli>-<version>-<scenario>.transcript.jsonl``), the CLI's own stdout with its token report
(``….report.jsonl``), and what proctor read from them when they were recorded
(``….expected.json``: the stable projection of the trajectory, and the token totals).
``tests/unit/transcripts/test_corpus.py`` parses them offline and checks both.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))  # tests.*; proctor is the installed one, as the run uses

from tests.conftest import write_case  # noqa: E402
from tests.contract.goldens import recorded_projection  # noqa: E402

from proctor.agents.spec import npm_specs  # noqa: E402
from proctor.transcripts.detect import parse_any  # noqa: E402

SCENARIOS: dict[str, dict[str, Any]] = {
    "basic": {
        "prompt": "Create notes.txt and show it.",
        "plan": {
            "turns": [
                {"say": "I'll write the file."},
                {"write": {"path": "notes.txt", "content": "hello\n"}},
                {"shell": "cat notes.txt"},
                {"say": "Done: notes.txt holds hello."},
            ]
        },
    },
    "failures": {
        "prompt": "Look for config.ini, then run the tests.",
        "plan": {
            "turns": [
                {"read": "config.ini"},
                {"shell": "python3 -c 'import sys; sys.exit(3)'"},
                {"search": "TODO", "path": "."},
                {"say": "There is no config.ini and the check exits 3."},
            ]
        },
    },
    "two-turns": {
        "prompt": "Write one.txt.",
        "plan": {
            "turns": [
                {"write": {"path": "one.txt", "content": "1\n"}},
                {"say": "Shall I also write two.txt?"},
                {"endTurn": True},
                {"write": {"path": "two.txt", "content": "2\n"}},
                {"say": "Both written."},
            ]
        },
        "qna": "```rules\n(?i)two.txt => Yes, please.\n```\n",
    },
}


def record(agent: str, version: str, scenario: str, spec: dict[str, Any], work: Path) -> None:
    config = {"agents": [agent], "timeoutSec": 120}
    case = write_case(
        work / "cases",
        scenario,
        prompt=spec["prompt"] + "\n",
        plan=spec["plan"],
        config=config,
        qna=spec.get("qna"),
    )
    out = work / "out"
    argv = [
        *[sys.executable, "-m", "proctor", "run", "--source", str(case), "--out", str(out)],
        *["--model", "scripted", "--mode", "headless", "--keep-workspace"],
    ]
    run = subprocess.run(argv, check=False, capture_output=True, text=True, cwd=ROOT)
    trial = next(out.glob(f"run-*/trials/{scenario}/{agent}/default/1"), None)
    if trial is None:
        raise SystemExit(f"{agent} {scenario}: no trial recorded:\n{run.stderr[-2000:]}")
    record = json.loads((trial / "trial.json").read_text())
    if record["status"] != "passed":
        raise SystemExit(f"{agent} {scenario}: {record['status']}: {record['reason']}")
    stem = HERE / f"{agent}-{version}-{scenario}"
    shutil.copyfile(trial / "raw-transcript.jsonl", f"{stem}.transcript.jsonl")
    shutil.copyfile(trial / "agent-stdout.jsonl", f"{stem}.report.jsonl")
    fmt = record["transcript"]["format"]
    trajectory = parse_any(Path(f"{stem}.transcript.jsonl"), fmt)
    expected = {
        "cli": agent,
        "cliVersion": version,
        "format": fmt,
        **recorded_projection(trajectory),
    }
    Path(f"{stem}.expected.json").write_text(json.dumps(expected, indent=2) + "\n")
    print(f"recorded {stem.name}")


def main() -> None:
    for old in HERE.glob("*-*.*.json*"):
        old.unlink()
    for spec in npm_specs():
        assert spec.version is not None
        for scenario, details in SCENARIOS.items():
            with tempfile.TemporaryDirectory(prefix="proctor-corpus-") as tmp:
                record(spec.id, spec.version, scenario, details, Path(tmp))


if __name__ == "__main__":
    main()
