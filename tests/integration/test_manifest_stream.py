"""`proctor run --manifest` of a manifest piped in (`-`, `/dev/stdin`, a named pipe): read
once, to its end, and run as its file would be; a terminal is refused in a sentence."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.conftest import MakeCase, Run

AB = {"conditions": {"baseline": {}, "treatment": {}}}
PLAN = {"turns": [{"say": "hi"}]}


def planned(proctor: Run, make_case: MakeCase, tmp_path: Path) -> bytes:
    make_case("t1", config=AB, plan=PLAN)
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,single_goal\n")
    manifest = tmp_path / "repeats.json"
    made = proctor(
        "plan-repeats", "--goal-labels", str(labels), "--pairs", "2", "--output", str(manifest)
    )
    assert made.code == 0, made.err
    return manifest.read_bytes()


def test_a_manifest_from_a_named_pipe_runs_every_pair(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    text = planned(proctor, make_case, tmp_path)
    fifo = tmp_path / "repeats.fifo"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "wb") as pipe:
            pipe.write(text)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    out = tmp_path / "out"
    ran = proctor(
        "run", "--manifest", str(fifo), "--source", str(tmp_path / "cases"), "--out", str(out)
    )
    writer.join(5)
    assert ran.code == 0, ran.err
    assert len(list(out.glob("pair-*/run-*"))) == 2


@pytest.mark.parametrize("name", ["-", "/dev/stdin"])
def test_a_manifest_piped_in_runs_every_pair(
    proctor: Run, make_case: MakeCase, tmp_path: Path, name: str
) -> None:
    text = planned(proctor, make_case, tmp_path)
    out = tmp_path / "out"
    ran = subprocess.run(
        [sys.executable, "-m", "proctor", "run", "--manifest", name,
         "--source", str(tmp_path / "cases"), "--out", str(out)],
        input=text, capture_output=True, timeout=120,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr.decode()
    assert len(list(out.glob("pair-*/run-*"))) == 2
    broken = subprocess.run(
        [sys.executable, "-m", "proctor", "run", "--manifest", name,
         "--source", str(tmp_path / "cases"), "--out", str(out)],
        input=b"[1]", capture_output=True, timeout=120,
    )  # fmt: skip
    assert broken.returncode == 2
    said = "the manifest read from standard input" if name == "-" else name
    assert f"proctor: error: {said}: expected a JSON object" in broken.stderr.decode()


def test_a_manifest_from_standard_input_is_named_so_not_dash(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """`--manifest -` named the manifest `-` in its notes and errors (`note: - lists 1 of its
    2 pairs`): it is said to be the one read from standard input."""
    manifest = json.loads(planned(proctor, make_case, tmp_path))
    manifest["runs"] = manifest["runs"][:1]
    command = [sys.executable, "-m", "proctor", "run", "--manifest", "-",
               "--source", str(tmp_path / "cases"), "--out", str(tmp_path / "out")]  # fmt: skip
    ran = subprocess.run(
        command, input=json.dumps(manifest).encode(), capture_output=True, timeout=120
    )
    err = ran.stderr.decode()
    assert ran.returncode == 0, err
    assert "proctor: note: the manifest read from standard input lists 1 of its 2 pairs" in err
    assert "- lists" not in err and "note: -:" not in err
    manifest["tasks"] = ["nope"]
    wrong = subprocess.run(
        [*command[:-1], str(tmp_path / "other")],
        input=json.dumps(manifest).encode(),
        capture_output=True,
        timeout=120,
    )
    assert wrong.returncode == 2
    assert "proctor: error: the manifest read from standard input: tasks nope" in (
        wrong.stderr.decode()
    )
