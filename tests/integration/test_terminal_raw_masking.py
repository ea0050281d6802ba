"""terminal.raw keeps the bytes the agent wrote to its terminal, every registered key masked:
one the stream splits with escapes (the cursor moved on a cell, a colour changed in it, a
line break a terminal UI drew) too, which masking whole keys never found."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import write_case

KEY = "sk-ant-api03-RAWSPLIT0123456789abcdefgh"


def test_a_key_split_by_escapes_is_masked_in_terminal_raw(tmp_path: Path) -> None:
    split = KEY[:16] + "\x1b[1C" + KEY[16:24] + "\x1b[31m" + KEY[24:] + "\x1b[0m"
    write_case(
        tmp_path / "cases",
        "r",
        plan={"turns": [{"shell": "cat k.txt"}]},
        src={"k.txt": f"before {split} after\n"},
    )
    proc = subprocess.run(
        [sys.executable, "-m", "proctor", "run", "--source", str(tmp_path / "cases"),
         "--out", str(tmp_path / "out")],
        capture_output=True,
        timeout=60,
        env={**os.environ, "ANTHROPIC_API_KEY": KEY},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr.decode()
    (raw,) = (tmp_path / "out").glob("run-*/trials/r/*/*/*/terminal.raw")
    data = raw.read_bytes()
    assert b"before ***" in data, data[-400:]
    assert KEY[:16].encode() not in data and KEY[16:24].encode() not in data
    assert KEY[24:].encode() not in data
