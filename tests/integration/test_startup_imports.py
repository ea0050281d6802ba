"""What `proctor run` imports, and when: the worker of the first trial is forked before the
reporting stage is loaded (the parent loads it while that trial runs), and optional
dependencies load only when their input exists. Checked by module names, not by a clock."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import write_case

# Runs `proctor run` in this interpreter, noting the modules loaded when each trial starts (in
# its worker) and when the run has ended (in the parent).
PROBE = """
import json, sys
import proctor.cli.main
import proctor.execute.executor as executor
run_trial = executor.run_trial
def noting(*args, **kwargs):
    with open(NOTES, "a") as fh:
        fh.write(json.dumps({"at": "trial", "modules": sorted(sys.modules)}) + "\\n")
    return run_trial(*args, **kwargs)
executor.run_trial = noting
sys.argv = ["proctor", *sys.argv[1:]]
try:
    proctor.cli.main.main()
except SystemExit:
    pass
with open(NOTES, "a") as fh:
    fh.write(json.dumps({"at": "end", "modules": sorted(sys.modules)}) + "\\n")
"""

REPORTING = ("proctor.report.aggregate", "proctor.models.suite", "proctor.models.ab")


def probe(tmp_path: Path, *args: str, cwd: Path | None = None) -> list[dict[str, object]]:
    notes = tmp_path / "notes.jsonl"
    code = PROBE.replace("NOTES", repr(str(notes)))
    argv = [sys.executable, "-c", code, "run", "--out", str(tmp_path / "out")]
    proc = subprocess.run([*argv, *args], capture_output=True, text=True, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in notes.read_text().splitlines()]


def one_case(tmp_path: Path, repeats: int = 1) -> Path:
    cases = tmp_path / "cases"
    write_case(
        cases,
        "hello",
        config={"repeats": repeats, "evaluators": [{"use": "file-exists", "must": ["a.txt"]}]},
        plan={"turns": [{"write": {"path": "a.txt", "content": "a\n"}}]},
    )
    return cases


def test_the_first_worker_is_forked_before_the_reporting_stage_is_loaded(tmp_path: Path) -> None:
    notes = probe(tmp_path, "--source", str(one_case(tmp_path, repeats=3)), "--concurrency", "1")
    trials = [set(n["modules"]) for n in notes if n["at"] == "trial"]  # type: ignore[arg-type]
    end = set(next(n["modules"] for n in notes if n["at"] == "end"))  # type: ignore[arg-type]
    assert len(trials) == 3
    assert [m for m in REPORTING if m in trials[0]] == []
    # Control: by the next trial's fork the parent has loaded it, and it was used at the end.
    assert [m for m in REPORTING if m in trials[1]] == list(REPORTING)
    assert set(REPORTING) <= end


def test_optional_dependencies_load_only_for_their_input(tmp_path: Path) -> None:
    cases = one_case(tmp_path)
    end = set(next(n["modules"] for n in probe(tmp_path, "--source", str(cases), cwd=tmp_path)))
    assert "dotenv" not in end  # no .env
    assert "xml.etree.ElementTree" not in end  # no JUnit asked for
    assert "proctor.discover.tasks" not in end  # no task file
    (tmp_path / ".env").write_text("UNUSED=1\n")
    control = probe(tmp_path, "--source", str(cases), "--reporter", "junit", cwd=tmp_path)
    assert {"dotenv", "xml.etree.ElementTree"} <= set(control[-1]["modules"])  # type: ignore[arg-type]


HISTORY_PROBE = """
import json, sys
import proctor.cli.main
sys.argv = ["proctor", *sys.argv[1:]]
try:
    proctor.cli.main.main()
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""
CLAUDE = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "claude"
CODEX = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "codex"


def history_modules(tmp_path: Path, *args: str) -> set[str]:
    argv = [sys.executable, "-c", HISTORY_PROBE, "history", "--no-cache", *args]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PROCTOR_DATA_DIR": str(tmp_path)}
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stderr.strip().splitlines()[-1]))


def test_a_history_replay_loads_what_its_sessions_and_options_need_only(tmp_path: Path) -> None:
    """A replay of Claude Code sessions loads neither the Codex reader nor the statistics of
    --changes; each loads when asked for (the control)."""
    unused = {"proctor.transcripts.codex.threads", "proctor.stats.bootstrap"}
    assert unused.isdisjoint(history_modules(tmp_path, str(CLAUDE)))
    mark = {"schemaVersion": 2, "text": "x", "project": "/w", "at": "2026-11-25T00:00:00+00:00"}
    (tmp_path / "changes.jsonl").write_text(json.dumps(mark) + "\n")
    loaded = history_modules(tmp_path, str(CLAUDE), str(CODEX), "--changes")
    assert unused <= loaded
