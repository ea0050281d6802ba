"""`proctor run --resume` of a run whose trials were planned in another order (a proctor that
rotated the conditions of each repeat, before the rows of a Williams square) resumes, running
the trials left in the order the run planned them; a trial added or gone is still refused."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Run, write_case

CONFIG = {
    "agents": ["scripted"],
    "timeoutSec": 30,
    "repeats": 4,
    "conditions": {"a": {}, "b": {}, "c": {}},
}


def rotated(proctor: Run, tmp_path: Path) -> Path:
    """A finished run of three conditions × 4 repeats whose ``resolved.json`` holds the order
    an older proctor planned (repeat r: the conditions rotated r - 1 places), its 4th repeat's
    records removed."""
    cases = tmp_path / "cases"
    write_case(cases, "c", config=CONFIG, plan={"turns": [{"say": "hi"}]})
    done = proctor(
        "run", "--source", str(cases), "--out", str(tmp_path / "out"), "--concurrency", "1"
    )
    assert done.code == 0, done.err
    (run_dir,) = (tmp_path / "out").glob("run-*")
    resolved = json.loads((run_dir / "resolved.json").read_text())
    names = ["a", "b", "c"]
    resolved["matrix"] = [
        {"case": "c", "agent": "scripted", "condition": names[(r - 1 + i) % 3], "repeat": r}
        for r in range(1, 5)
        for i in range(3)
    ]
    (run_dir / "resolved.json").write_text(json.dumps(resolved))
    for name in names:
        (run_dir / f"trials/c/scripted/{name}/4/trial.json").unlink()
    return run_dir


def started_after(journal: Path, event: str) -> list[str]:
    """The conditions of the trials started after the journal's last ``event``."""
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    last = max(i for i, e in enumerate(lines) if e["event"] == event)
    return [e["condition"] for e in lines[last:] if e["event"] == "trial-started"]


def test_a_run_planned_in_another_order_resumes_in_its_own(proctor: Run, tmp_path: Path) -> None:
    """It was refused: resolved.json differs at matrix[3].condition."""
    run_dir = rotated(proctor, tmp_path)
    resumed = proctor("run", "--resume", str(run_dir))
    assert resumed.code == 0, resumed.err
    assert "9 kept, 3 run now" in resumed.err, resumed.err
    # Repeat 4 of the rotation runs a b c (a Williams square's 4th row of three is c b a).
    assert started_after(run_dir / "journal.jsonl", "run-resumed") == ["a", "b", "c"]
    matrix = json.loads((run_dir / "resolved.json").read_text())["matrix"]
    assert [m["condition"] for m in matrix[9:]] == ["a", "b", "c"]


def test_a_resume_refuses_a_trial_the_run_did_not_plan(proctor: Run, tmp_path: Path) -> None:
    run_dir = rotated(proctor, tmp_path)
    resolved = json.loads((run_dir / "resolved.json").read_text())
    resolved["matrix"] = [
        m for m in resolved["matrix"] if m["condition"] != "b" or m["repeat"] != 4
    ]
    (run_dir / "resolved.json").write_text(json.dumps(resolved))
    resumed = proctor("run", "--resume", str(run_dir))
    assert resumed.code == 2 and "Traceback" not in resumed.err, resumed.err
    assert "resolved.json differs at matrix (trial c/scripted/b/4 was not planned then)" in (
        resumed.err
    )
    resolved["matrix"].append({"case": "c", "agent": "scripted", "condition": "d", "repeat": 1})
    resolved["matrix"].append({"case": "c", "agent": "scripted", "condition": "b", "repeat": 4})
    (run_dir / "resolved.json").write_text(json.dumps(resolved))
    resumed = proctor("run", "--resume", str(run_dir))
    assert resumed.code == 2, resumed.err
    assert "matrix (trial c/scripted/d/1 is no longer planned)" in resumed.err, resumed.err


def test_a_run_of_an_order_that_did_not_alternate_from_case_to_case_resumes(
    proctor: Run, tmp_path: Path
) -> None:
    """A proctor that started every case's repeat 1 with the same condition planned it so:
    the run resumes in that order, the order alternating from case to case now."""
    cases = tmp_path / "cases"
    config = {**CONFIG, "repeats": 1, "conditions": {"a": {}, "b": {}}}
    for name in ("c", "d"):
        write_case(cases, name, config=config, plan={"turns": [{"say": "hi"}]})
    argv = ("run", "--source", str(cases), "--out", str(tmp_path / "out"), "--concurrency", "1")
    assert proctor(*argv).code == 0
    (run_dir,) = (tmp_path / "out").glob("run-*")
    resolved = json.loads((run_dir / "resolved.json").read_text())
    assert [m["condition"] for m in resolved["matrix"]] == ["a", "b", "b", "a"]
    resolved["matrix"] = [
        {"case": case, "agent": "scripted", "condition": name, "repeat": 1}
        for case in ("c", "d")
        for name in ("a", "b")
    ]
    # Each case's trials' settings as that proctor listed them: in its planned order too (a
    # resume was refused at cases[1].trials[0].condition).
    (case_d,) = (c for c in resolved["cases"] if c["case"] == "d")
    assert [t["condition"] for t in case_d["trials"]] == ["b", "a"]
    case_d["trials"].reverse()
    (run_dir / "resolved.json").write_text(json.dumps(resolved))
    for name in ("a", "b"):
        (run_dir / f"trials/d/scripted/{name}/1/trial.json").unlink()
    resumed = proctor("run", "--resume", str(run_dir))
    assert resumed.code == 0, resumed.err
    assert started_after(run_dir / "journal.jsonl", "run-resumed") == ["a", "b"]
