"""Scores a trial for proctor's `external` evaluator.

Reads {"workspace": ..., "trajectory": ..., ...} on stdin and prints
{"values": [{"name": ..., "value": 0-100, "confidenceLevel": 0-100}]}.
"""

import json
import subprocess
import sys
from pathlib import Path

paths = json.load(sys.stdin)
workspace = Path(paths["workspace"])

check = subprocess.run(
    [sys.executable, "-c", "from greet import greet; assert greet('Ada') == 'Hello, Ada!'"],
    cwd=workspace,
    capture_output=True,
)
works = 100 if check.returncode == 0 else 0

readme = (workspace / "README.md").read_text() if (workspace / "README.md").exists() else ""
documented = 100 if "greet(" in readme else 0

tool_calls = sum(
    1
    for line in Path(paths["trajectory"]).read_text().splitlines()
    if json.loads(line).get("type") == "tool_call"
)
efficiency = max(0, 100 - 10 * max(0, tool_calls - 4))

print(json.dumps({"values": [
    {"name": "works", "value": works, "confidenceLevel": 100},
    {"name": "documented", "value": documented, "confidenceLevel": 90},
    {"name": "efficiency", "value": efficiency},
    {"name": "overall", "value": round(0.6 * works + 0.3 * documented + 0.1 * efficiency, 1)},
]}))
