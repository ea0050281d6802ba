"""A trial folder's trip from a Ray node to the driver's run folder (``pack``/``unpack_trial``),
and the executor's refusals before anything runs (no Ray cluster needed)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from proctor.errors import ConfigError
from proctor.execute.ray_executor import check_reachable
from proctor.execute.ray_node import pack, unpack_trial
from proctor.paths import TrialPaths


def node_folder(root: Path) -> Path:
    folder = root / "node" / "trial"
    (folder / "evaluators").mkdir(parents=True)
    (folder / "trial.json").write_text('{"status": "passed"}')
    (folder / "trajectory.jsonl").write_text("{}\n")
    (folder / "evaluators" / "0-command.json").write_text("{}")
    (folder / "workspace").mkdir()
    (folder / "workspace" / "calc.py").write_text("x = 1\n")
    os.symlink("calc.py", folder / "workspace" / "link.py")
    return folder


def test_a_trial_folder_arrives_whole_with_its_links(tmp_path: Path) -> None:
    data = pack(node_folder(tmp_path))
    trial = TrialPaths(tmp_path / "run" / "trials" / "c" / "a" / "default" / "1")
    assert unpack_trial(data, trial)
    files = sorted(str(p.relative_to(trial.root)) for p in trial.root.rglob("*"))
    assert files == [
        "evaluators",
        "evaluators/0-command.json",
        "trajectory.jsonl",
        "trial.json",
        "workspace",
        "workspace/calc.py",
        "workspace/link.py",
    ]
    assert os.readlink(trial.root / "workspace" / "link.py") == "calc.py"
    assert json.loads(trial.trial_json.read_text()) == {"status": "passed"}
    assert [p.name for p in trial.root.parent.iterdir()] == ["1"]  # no staging folder left


def test_earlier_attempts_stay_and_files_of_the_last_attempt_are_replaced(tmp_path: Path) -> None:
    trial = TrialPaths(tmp_path / "run" / "1")
    (trial.root / "attempts" / "1").mkdir(parents=True)
    (trial.root / "attempts" / "1" / "trial.json").write_text("{}")
    (trial.root / "workspace").mkdir()
    (trial.root / "workspace" / "stale.txt").write_text("old")
    assert unpack_trial(pack(node_folder(tmp_path)), trial)
    assert (trial.root / "attempts" / "1" / "trial.json").is_file()
    assert not (trial.root / "workspace" / "stale.txt").exists()


def test_control_a_folder_without_trial_json_is_not_a_finished_trial(tmp_path: Path) -> None:
    folder = node_folder(tmp_path)
    (folder / "trial.json").unlink()
    trial = TrialPaths(tmp_path / "run" / "1")
    assert not unpack_trial(pack(folder), trial)
    assert not trial.trial_json.exists()
    assert (trial.root / "trajectory.jsonl").is_file()  # what came is kept, for a look


def test_a_ray_address_where_nothing_listens_is_one_sentence(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"--ray-address 127\.0\.0\.1:1: nothing answers"):
        check_reachable("127.0.0.1:1")
    with pytest.raises(ConfigError, match="expected HOST:PORT"):
        check_reachable("head-node")
    check_reachable(None)  # Ray's own default: nothing to check here
    check_reachable("ray://head:10001")  # Ray Client: Ray itself connects


def test_control_an_archive_member_that_escapes_the_trial_folder_is_refused(
    tmp_path: Path,
) -> None:
    import io
    import tarfile

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        info = tarfile.TarInfo("../../escaped.txt")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"bad"))
    trial = TrialPaths(tmp_path / "run" / "trials" / "1")
    with pytest.raises(tarfile.TarError):
        unpack_trial(buffer.getvalue(), trial)
    assert not list(tmp_path.rglob("escaped.txt"))
    assert not trial.trial_json.exists()


def test_trial_folders_of_a_gone_process_are_swept_and_others_kept(tmp_path: Path) -> None:
    import subprocess

    from proctor.execute.ray_node import OWNER_FILE, sweep_stale_folders
    from proctor.util.processes import process_start

    finished = subprocess.Popen(["true"])
    finished.wait()
    me = os.getpid()
    owners = {
        "proctor-ray-dead": f"{finished.pid}:{process_start(me)}",  # that pid, gone (or reused)
        "proctor-ray-live": f"{me}:{process_start(me)}",
        "proctor-ray-reused": f"{me}:1",  # this pid, but another process's start
        "proctor-x1y2z3w4": f"{finished.pid}:{process_start(me)}",  # named as now, gone
    }
    for name, owner in owners.items():
        (tmp_path / name / "scratch").mkdir(parents=True)
        (tmp_path / name / OWNER_FILE).write_text(owner + "\n")
    (tmp_path / "proctor-ray-unowned" / "scratch").mkdir(parents=True)
    (tmp_path / "proctor-localrun" / "3" / "workspace").mkdir(parents=True)  # a local run's
    (tmp_path / "proctor-localrun" / ".proctor-run").write_text("run-20250101T000000Z-abcdef\n")
    (tmp_path / "someone-else").mkdir()
    removed = sweep_stale_folders(tmp_path)
    assert sorted(p.name for p in removed) == [
        "proctor-ray-dead", "proctor-ray-reused", "proctor-x1y2z3w4"
    ]  # fmt: skip
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["proctor-localrun", "proctor-ray-live", "proctor-ray-unowned", "someone-else"]


def test_a_socket_path_too_long_for_ray_is_one_sentence_with_the_fix() -> None:
    import types

    from proctor.execute.ray_executor import connected

    def init(**_: object) -> None:
        raise OSError("AF_UNIX path length cannot exceed 107 bytes: '/very/long/ray/session'")

    fake = types.SimpleNamespace(is_initialized=lambda: False, init=init, shutdown=lambda: None)
    with pytest.raises(ConfigError) as caught, connected(fake, None):  # type: ignore[arg-type]
        pass
    assert str(caught.value) == (
        "--executor ray: cannot join the Ray cluster (AF_UNIX path length cannot exceed 107 "
        "bytes: '/very/long/ray/session'; its socket paths are too long: set RAY_TMPDIR to a "
        "short folder, /tmp/ray)"
    )


def test_what_a_trial_logs_on_a_node_is_said_again_by_the_driver_with_its_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A Ray worker's stderr reaches no one: a warning of its trial (a transcript read without
    its subagents) comes back with the trial's folder, and is printed by the driver as a local
    run's worker prints it, ``proctor: warning: …``."""
    import logging

    from proctor.discover.folders import Discovery
    from proctor.execute import ray_node
    from proctor.models.case import Case
    from proctor.models.config import CaseConfig, CliOverrides, TopConfig
    from proctor.plan.resolve import build_plan
    from proctor.util.logs import cli_prefixes, say_again, shown_as

    case = Case(name="c", path=tmp_path / "c", prompt="p", config=CaseConfig())
    plan = build_plan(
        Discovery(cases=[case]), TopConfig(), CliOverrides(), config_path=None, cwd=tmp_path
    )
    (spec,) = plan.trials

    def warned(spec: object, run: object, scratch: Path, options: object) -> None:
        folder = run.trial(*spec.key).root  # type: ignore[attr-defined]
        folder.mkdir(parents=True)
        (folder / "trial.json").write_text("{}")
        logging.getLogger("proctor").warning("t.jsonl: subagents", extra=shown_as("warning"))
        logging.getLogger("proctor.addons.audit.trial").warning("audit failed")

    monkeypatch.setattr(ray_node, "run_trial", warned)
    data, said = ray_node.run_on_node(spec.model_dump_json(), "run-x", False)
    trial = TrialPaths(tmp_path / "run" / "trials" / "c" / "scripted" / "default" / "1")
    assert unpack_trial(data, trial)
    assert said == [
        ("proctor", logging.WARNING, "t.jsonl: subagents", "proctor: warning: "),
        ("proctor.addons.audit.trial", logging.WARNING, "audit failed", None),
    ]
    caplog.clear()
    with cli_prefixes():
        say_again(said)
    assert [(r.name, r.getMessage()) for r in caplog.records] == [
        ("proctor", "proctor: warning: t.jsonl: subagents"),
        ("proctor.addons.audit.trial", "audit failed"),
    ]


def test_a_cancel_stops_a_trial_waiting_on_a_program_at_once() -> None:
    """Ray's cancel is ``_thread.interrupt_main``, no real signal: a trial waiting on a setup
    line or a `command` evaluator went on until that program ended (and was killed 10 s after
    the stop, the program left running)."""
    import _thread
    import subprocess
    import time

    from proctor.execute.context import Interrupted
    from proctor.execute.ray_node import _interruptible

    cancel = threading.Timer(0.3, _thread.interrupt_main)
    began = time.monotonic()
    with pytest.raises(Interrupted), _interruptible():
        cancel.start()
        subprocess.run(["sleep", "20"], check=False)
    assert time.monotonic() - began < 10
    cancel.join()


@pytest.mark.parametrize(
    ("executor", "address", "dropped"),
    [
        ("ray", None, "drop --executor ray"),
        ("local", "127.0.0.1:6379", "drop --ray-address"),
        ("ray", "127.0.0.1:6379", "drop --executor ray and --ray-address"),
    ],
)
def test_a_resume_given_a_ray_cluster_is_told_to_drop_it(
    tmp_path: Path, executor: str, address: str | None, dropped: str
) -> None:
    """`--resume RUN --ray-address A` was told to give --executor ray too, which a resume
    then refused: each answer sent the user to the other."""
    from proctor.cli.run import _check_executor

    with pytest.raises(ConfigError) as refused:
        _check_executor(executor, address, tmp_path)
    assert str(refused.value) == f"--resume finishes a run on this machine: {dropped}"
