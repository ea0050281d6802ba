"""Instructions a history replay spends per session, counted by valgrind rather than timed.

A timing on a shared two-CPU machine moves by a tenth from one run to the next; an instruction
count of the same code on the same input does not (the same total to a few hundredths of a per
cent, whatever else the machine is doing). This counts, with ``valgrind --tool=callgrind``, the
instructions of measuring ``--sessions`` short Claude Code sessions one after the other in one
process (what each worker of ``proctor history`` does), minus those of the same process
measuring none (its start and imports), and prints the difference per session. A change to the
replay's hot path shows here as a number, before any timing can tell it from noise.

The sessions are copies of the fixtures' Claude Code sessions, as :mod:`parse_bench` builds its
history of short sessions (``--keep DIR`` keeps them). Without valgrind it says so and exits 0.

Usage: ``python bench/instructions.py [--sessions 1000] [--keep DIR]``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from parse_bench import build_corpus

DRIVER = """
import gc, sys
from pathlib import Path
from proctor.history import replay
from proctor.history.sources import sessions_under
from proctor.models.pricing import PriceTable

sessions, _ = sessions_under([Path(sys.argv[1])], ["claude-code"])
count = int(sys.argv[2])
if len(sessions) < count + 50:
    raise SystemExit(f"only {len(sessions)} sessions: build a larger history")
pricing = PriceTable()
gc.freeze()
gc.disable()  # as a replay's workers run
for session in sessions[:50]:  # warm: each reader imported, each cache filled
    replay.measure_session(session, None, pricing)
for session in sessions[50 : 50 + count]:
    replay.measure_session(session, None, pricing)
"""

COLLECTED = re.compile(rb"Collected : (\d+)")


def instructions(driver: Path, corpus: Path, count: int) -> int:
    """The instructions valgrind counts for the driver measuring ``count`` sessions."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}  # the same hashing, the same count
    argv = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        str(driver),
        str(corpus),
        str(count),
    ]
    done = subprocess.run(argv, capture_output=True, env=env, check=False)
    found = COLLECTED.search(done.stderr)
    if done.returncode != 0 or found is None:
        tail = done.stderr.decode(errors="replace")[-2000:]
        raise SystemExit(f"valgrind failed (exit {done.returncode}):\n{tail}")
    return int(found.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--keep", type=Path, help="build the history here and keep it")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("instructions per session: valgrind is not installed (apt-get install valgrind)")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        corpus = args.keep or Path(tmp) / "history"
        if not (corpus / "projects").is_dir():
            # About 19 KB a session with its subagents: enough for the warm-up and the count.
            build_corpus(corpus, size_mb=(args.sessions + 200) * 0.019)
        driver = Path(tmp) / "driver.py"
        driver.write_text(DRIVER)
        # Once without valgrind: the modules byte-compiled before either count (a count that
        # compiled them would hold the compiling, and the other not).
        subprocess.run([sys.executable, str(driver), str(corpus), "0"], check=True)
        start = instructions(driver, corpus, 0)
        total = instructions(driver, corpus, args.sessions)
    per_session = (total - start) / args.sessions
    print(
        f"instructions per session of a history replay: {per_session:,.0f} "
        f"({args.sessions} short Claude Code sessions, one process, valgrind callgrind)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
