"""A command run from a current folder that was removed (a shell left in a folder deleted
meanwhile, where ``getcwd`` fails): one sentence and exit 2 when it needs the folder (a default
``--source .`` or ``./proctor-results``, a relative path), never a traceback; a command given
every path whole works as anywhere else."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import MakeCase, closed_port
from tests.integration.test_by_hand import CASE as BY_HAND
from tests.integration.test_by_hand import drive_by_hand

GONE = (
    "proctor: error: the current folder no longer exists (removed while this shell was in "
    "it); cd to a folder and run again\n"
)


def _from_removed_folder(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``proctor ARGS`` in a process whose current folder is removed before it starts."""
    gone = tmp_path / "gone"
    gone.mkdir()
    script = (
        f"import os, sys; os.chdir({str(gone)!r}); os.rmdir({str(gone)!r}); "
        f"sys.argv = ['proctor', *{list(args)!r}]; "
        "from proctor.cli.main import main; sys.exit(main())"
    )
    env = {**os.environ, "HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "d")}
    env.pop("GITHUB_STEP_SUMMARY", None)
    return subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )


CASE = Path(__file__).resolve().parents[2] / "examples" / "cases" / "fix-a-bug"


@pytest.mark.parametrize(
    "args",
    [
        ("run",),
        ("run", "--source", str(CASE)),
        ("run", "--source", str(CASE), "--out", "results"),
        ("run", "--source", "../fix-a-bug", "--out", "TMP/results"),
        ("run", "--prompt", "say hi", "--agent", "scripted"),
        ("run", "--prompt", "say hi", "--agent", "scripted", "--out", "rel"),
        ("validate",),
        ("validate", "--source", str(CASE)),
        ("prepare", "fix-a-bug"),
        ("prepare", str(CASE), "--agent", "scripted"),
        ("findings",),
        ("eval",),
        ("audit",),
    ],
    ids=lambda a: " ".join(a).replace(str(CASE), "CASE"),
)
def test_a_command_that_needs_the_current_folder_says_it_is_gone(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """A run given every path whole goes on (below); one relative path it reads, its source
    or its results folder (``./proctor-results`` by default), and it is refused."""
    args = tuple(arg.replace("TMP", str(tmp_path)) for arg in args)
    ran = _from_removed_folder(tmp_path, *args)
    assert (ran.returncode, ran.stderr) == (2, GONE), ran.stderr


NOTE = (
    "; note: the current folder no longer exists (removed while this shell was in it), and a "
    "relative path names nothing there\n"
)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("report", "some-run"), "Directory 'some-run' does not exist"),
        (("report", "/nowhere/run"), "Directory '/nowhere/run' does not exist"),
        (("run", "--bogus"), "No such option '--bogus'"),
    ],
    ids=["relative", "absolute", "usage"],
)
def test_any_other_refusal_there_notes_that_the_folder_is_gone(
    tmp_path: Path, args: tuple[str, ...], said: str
) -> None:
    """``report some-run`` names no folder where there is none: the refusal notes why, in
    words as true of one of an absolute path or a usage error, which a cd would not mend."""
    ran = _from_removed_folder(tmp_path, *args)
    assert ran.returncode == 2, ran.stderr
    assert "Traceback" not in ran.stderr
    assert said in ran.stderr and ran.stderr.endswith(NOTE), ran.stderr
    assert "cd to a folder" not in ran.stderr, ran.stderr


def test_a_command_given_every_path_whole_works_there(tmp_path: Path) -> None:
    """A run given its source, config and results folder whole runs, and its report, its
    findings and the agents' list read as anywhere; ``view --help`` needs no folder."""
    config = tmp_path / "proctor.json"
    config.write_text('{"out": "%s"}' % (tmp_path / "results"))
    ran = _from_removed_folder(
        tmp_path, "run", "--source", str(CASE), "--config", str(config), "--repeats", "1"
    )
    assert "Traceback" not in ran.stderr
    assert ran.returncode == 0, ran.stderr
    (run,) = (tmp_path / "results").glob("run-*")
    manifest = json.loads((run / "run.json").read_text())
    # No folder to record as the one it was started in: none (every path it read is whole).
    assert manifest["cwd"] is None, manifest
    assert manifest["source"] == os.path.realpath(CASE), manifest
    assert json.loads((run / "config.json").read_text())["configFile"] == str(config)
    for args in (
        ("agents", "--config", str(config)),
        ("findings", "--config", str(config)),
        ("view", "--help"),
        ("history", "--home", str(tmp_path), "--config", str(config)),
        ("run", "--prompt", "say hi", "--agent", "scripted", "--out", str(tmp_path / "inline")),
    ):
        ran = _from_removed_folder(tmp_path, *args)
        assert "Traceback" not in ran.stderr, (args, ran.stderr)
        assert ran.returncode == 0, (args, ran.stderr)
    ran = _from_removed_folder(tmp_path, "report", str(run))
    assert ran.returncode == 0 and "fix-a-bug" in ran.stdout, ran.stderr
    empty = tmp_path / "empty.json"
    empty.write_text('{"out": "%s"}' % (tmp_path / "none-yet"))
    ran = _from_removed_folder(tmp_path, "findings", "--config", str(empty))
    # (no run there yet: a sentence, not the folder's)
    assert ran.returncode == 2 and "not a results directory" in ran.stderr, ran.stderr
    assert "no longer exists" in ran.stderr, ran.stderr


def test_a_run_started_there_is_resumed_from_any_folder_and_from_a_removed_one(
    tmp_path: Path,
) -> None:
    """A run that records no folder it was started in (it was gone) read no ``./proctor.json``:
    nor does its resume, wherever it runs (a folder holding one with other settings, the
    resume was refused as a changed configuration), nor does one from a removed folder."""
    results = tmp_path / "results"
    ran = _from_removed_folder(
        tmp_path, "run", "--source", str(CASE), "--out", str(results), "--repeats", "2"
    )
    assert ran.returncode == 0, ran.stderr
    (run,) = results.glob("run-*")
    (record,) = run.glob("trials/*/*/*/2/trial.json")
    other = tmp_path / "other"
    other.mkdir()
    (other / "proctor.json").write_text('{"concurrency": 3}')
    env = {**os.environ, "HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "d")}
    env.pop("GITHUB_STEP_SUMMARY", None)
    record.unlink()
    resumed = subprocess.run(
        [sys.executable, "-m", "proctor", "run", "--resume", str(run)],
        cwd=other,
        capture_output=True,
        text=True,
        check=False,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert record.is_file()
    record.unlink()
    resumed = _from_removed_folder(tmp_path, "run", "--resume", str(run))
    assert "Traceback" not in resumed.stderr
    assert resumed.returncode == 0, resumed.stderr
    assert record.is_file()


def _manifest(tmp_path: Path, make_case: MakeCase) -> list[str]:
    """``run --manifest`` of a plan-repeats manifest, its source whole, its results folder
    ``--config``'s whole ``out``."""
    make_case("t1", config={"conditions": {"baseline": {}, "treatment": {}}}, plan=PLAN)
    manifest = tmp_path / "repeats.json"
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,single_goal\n")
    subprocess.run(
        [sys.executable, "-m", "proctor", "plan-repeats", "--goal-labels", str(labels),
         "--pairs", "1", "--output", str(manifest)],
        check=True, capture_output=True, cwd=tmp_path,
    )  # fmt: skip
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"out": str(tmp_path / "results")}))
    return ["run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"),
            "--config", str(config)]  # fmt: skip


def _validate(tmp_path: Path, make_case: MakeCase) -> list[str]:
    """``validate`` of a whole source, its results folder ``--config``'s whole ``out``."""
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"out": str(tmp_path / "results")}))
    return ["validate", "--source", str(CASE), "--config", str(config)]


def _eval(tmp_path: Path, make_case: MakeCase) -> list[str]:
    """``eval`` of a whole project folder, into a whole ``--out``."""
    evals = tmp_path / "proj" / "evals"
    evals.mkdir(parents=True)
    (evals / "a.eval.py").write_text(EVAL)
    (evals / "evals.config.py").write_text(
        "from proctor.evals import define_eval_config\n"
        "config = define_eval_config(max_concurrency=1)\n"
    )
    return ["eval", "--dir", str(evals.parent), "--no-stream", "--out", str(tmp_path / "results")]


PLAN = {"turns": [{"say": "hi"}]}
EVAL = """from proctor.evals import define_eval
async def test(t):
    (await t.send("hi")).expect_ok()
eval = define_eval(test=test, timeout_ms=120000, plan={"turns": [{"say": "hello"}]})
"""


@pytest.mark.parametrize(
    "given", [_manifest, _validate, _eval], ids=["manifest", "validate", "eval"]
)
def test_another_command_given_every_path_whole_works_there(
    tmp_path: Path, make_case: MakeCase, given: Callable[[Path, MakeCase], list[str]]
) -> None:
    """``run --manifest``, ``validate`` and ``eval`` read no ``./proctor.json`` where there
    is no folder, and the runs they make record none (``run.json``'s ``cwd`` null)."""
    ran = _from_removed_folder(tmp_path, *given(tmp_path, make_case))
    assert "Traceback" not in ran.stderr
    assert ran.returncode == 0, ran.stderr
    runs = list((tmp_path / "results").glob("**/run-*/run.json"))
    assert runs or given is _validate  # (validate runs nothing)
    for manifest in runs:
        assert json.loads(manifest.read_text())["cwd"] is None, manifest


def test_a_session_by_hand_is_prepared_and_recorded_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``prepare`` and ``record`` of a case given as its folder, into a whole ``--out``: its
    ``--source .`` unread, the case folder is the source they record, and no folder the
    recording was started in."""
    config_dir = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config_dir))
    out = tmp_path / "results"
    prepared = _from_removed_folder(
        tmp_path, "prepare", str(BY_HAND), "--agent", "claude-code", "--out", str(out)
    )
    assert prepared.returncode == 0, prepared.stderr
    session = json.loads(prepared.stdout)
    workspace = Path(session["workingDirectory"])
    prompt = Path(session["promptFile"]).read_text().strip()
    drive_by_hand(workspace, prompt, config_dir, tmp_path / "steps.json")
    recorded = _from_removed_folder(
        tmp_path, "record", str(BY_HAND), "--workspace", str(workspace), "--agent",
        "claude-code", "--out", str(out),
    )  # fmt: skip
    assert "Traceback" not in recorded.stderr
    assert recorded.returncode == 0, recorded.stderr
    (run,) = out.glob("run-*")
    manifest = json.loads((run / "run.json").read_text())
    assert manifest["cwd"] is None, manifest
    assert manifest["source"] == os.path.realpath(BY_HAND), manifest


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_agents_install_runs_npm_there(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``agents install --dir ABS`` needs no current folder: npm runs in the install folder
    instead, and says what it says anywhere (here: a registry nobody listens on)."""
    with closed_port() as port:
        monkeypatch.setenv("npm_config_registry", f"http://127.0.0.1:{port}/")
        monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))
        ran = _from_removed_folder(tmp_path, "agents", "install", "--dir", str(tmp_path / "a"))
    assert ran.returncode == 2, ran.stderr
    assert "Traceback" not in ran.stderr and "cd to a folder" not in ran.stderr, ran.stderr
    assert f"npm could not reach the registry http://127.0.0.1:{port}/" in ran.stderr
