"""``proctor run --executor ray`` on a real local Ray cluster: a head and worker nodes, each a
``ray start --block`` process on 127.0.0.1 with the test's own HOME and RAY_TMPDIR, stopped by
PID at the end (never ``ray stop``, which stops every Ray process on the machine).

The same suite gives the same records in the same layout as a local run; a node without the
agent CLIs is reported and gets no trial; a node killed mid-run has its trials run again on
the others, each recorded once; a node that joins mid-run is checked and takes trials.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests.conftest import MakeCase, Run, closed_port

ray = pytest.importorskip("ray", reason="the proctor[ray] extra is not installed")

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "cases"
AGENTS_BIN = REPO / ".agents" / "node_modules" / ".bin"
RAY = Path(sys.executable).with_name("ray")
NODE_ENV = "PROCTOR_TEST_NODE"
FAST_HEALTH_CHECKS = {
    "RAY_health_check_period_ms": "500",
    "RAY_health_check_failure_threshold": "3",
    "RAY_health_check_timeout_ms": "500",
    "RAY_health_check_initial_delay_ms": "0",
}


@dataclass
class LocalCluster:
    base: Path
    address: str = ""
    nodes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    ids: dict[str, str] = field(default_factory=dict)

    def env(self, name: str, clis: bool) -> dict[str, str]:
        path = [p for p in os.environ["PATH"].split(os.pathsep) if Path(p) != AGENTS_BIN]
        tmp = self.base / f"{name}-tmp"
        tmp.mkdir(exist_ok=True)
        return {
            **os.environ,
            **FAST_HEALTH_CHECKS,
            "HOME": str(self.base / "home"),
            "RAY_TMPDIR": str(self.base / "ray"),
            "RAY_AUTH_MODE": "disabled",
            "RAY_USAGE_STATS_ENABLED": "0",
            "TMPDIR": str(tmp),
            "PATH": os.pathsep.join([str(AGENTS_BIN), *path] if clis else path),
            NODE_ENV: name,
        }

    def start(self, name: str, *, clis: bool) -> None:
        head = not self.address
        if head:  # on a port of Ray's choosing, read back from its log: one found free and let
            # go before Ray binds it could be taken meanwhile by another test's server
            where = ["--head", "--port=0", "--include-dashboard=false"]
        else:
            where = [f"--address={self.address}"]
        with (self.base / f"{name}.log").open("wb") as log:
            self.nodes[name] = subprocess.Popen(
                [
                    str(RAY),
                    "start",
                    *where,
                    "--node-ip-address=127.0.0.1",
                    "--num-cpus=1",
                    "--block",
                ],
                env=self.env(name, clis),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        if head:
            self.address = self._head_address(name)
        self._wait_for(name)

    def _head_address(self, name: str) -> str:
        """The address the head node's ``ray start`` tells other nodes to join."""
        log, deadline = self.base / f"{name}.log", time.monotonic() + 60
        while time.monotonic() < deadline and self.nodes[name].poll() is None:
            found = re.search(rb"ray start --address='([^']+)'", log.read_bytes())
            if found:
                return found.group(1).decode()
            time.sleep(0.1)
        raise AssertionError(f"Ray head node {name} did not start: {log.read_text()}")

    def launch(self, name: str, *, clis: bool) -> None:
        """Start a node that joins the cluster, without waiting for it to join (a run in this
        process is connected to the cluster). Nodes on this machine start one at a time: two
        started at once can pick the same free port, and then one of them dies at start-up."""
        for other in self.nodes:
            self._runtime_started(other)
        with (self.base / f"{name}.log").open("wb") as log:
            self.nodes[name] = subprocess.Popen(
                [str(RAY), "start", f"--address={self.address}", "--node-ip-address=127.0.0.1",
                 "--num-cpus=1", "--block"],
                env=self.env(name, clis),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip

    def _runtime_started(self, name: str) -> None:
        """Until the node's ``ray start`` has started its processes (or ended)."""
        log, deadline = self.base / f"{name}.log", time.monotonic() + 60
        while time.monotonic() < deadline and self.nodes[name].poll() is None:
            if b"Ray runtime started" in log.read_bytes():
                return
            time.sleep(0.1)

    def _wait_for(self, name: str) -> None:
        """Until the node has joined; learn its Ray id from a task pinned to each node."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                ray.init(address=self.address, log_to_driver=False, logging_level=logging.ERROR)
            except (ConnectionError, RuntimeError):
                time.sleep(0.5)
                continue
            try:
                which = ray.remote(num_cpus=0)(lambda: os.environ.get(NODE_ENV))
                for node in ray.nodes():
                    if node["Alive"] and node["NodeID"] not in self.ids.values():
                        pinned = NodeAffinitySchedulingStrategy(node["NodeID"], soft=False)
                        got = ray.get(
                            which.options(scheduling_strategy=pinned).remote(), timeout=30
                        )
                        self.ids[str(got)] = node["NodeID"]
            finally:
                ray.shutdown()
            if name in self.ids:
                return
            time.sleep(0.5)
        raise AssertionError(
            f"Ray node {name} did not start: {(self.base / f'{name}.log').read_text()}"
        )

    def kill_raylet(self, name: str) -> None:
        raylet = [
            p for p in psutil.Process(self.nodes[name].pid).children(True) if p.name() == "raylet"
        ]
        assert raylet, f"node {name} has no raylet"
        os.kill(raylet[0].pid, signal.SIGKILL)

    def stop(self) -> None:
        for proc in reversed(self.nodes.values()):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.nodes.values():
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        # Whatever a killed node left behind (its workers, a trial's processes), by PID.
        ours = str(self.base / "ray")
        for p in psutil.process_iter(["pid"]):
            try:
                if p.pid != os.getpid() and p.environ().get("RAY_TMPDIR") == ours:
                    p.kill()
            except (psutil.Error, OSError):
                continue


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    base = Path(tempfile.mkdtemp(prefix="pr-ray-", dir="/tmp"))  # Ray's socket paths are short
    (base / "home").mkdir()
    found = LocalCluster(base)
    with pytest.MonkeyPatch.context() as mp:
        for key, value in found.env("driver", clis=True).items():
            if key.startswith("RAY_") or key in ("HOME", "PATH"):
                mp.setenv(key, value)
        try:
            found.start("head", clis=True)
            found.start("bare", clis=False)  # no agent CLI on its PATH
            yield found
        finally:
            found.stop()
            shutil.rmtree(base, ignore_errors=True)


def records(run_dir: Path) -> dict[str, tuple[Any, ...]]:
    out = {}
    for path in sorted((run_dir / "trials").glob("*/*/*/*/trial.json")):
        t = json.loads(path.read_text())
        key = f"{t['case']}/{t['agent']}/{t['condition']}/{t['repeat']}"
        out[key] = (t["status"], t["passed"], t["score"], t["reason"], t["workspace"])
    return out


def tokens(run_dir: Path) -> dict[str, Any]:
    """Each trial's token counts (a scripted agent's follow the length of the paths it names)."""
    out = {}
    for path in sorted((run_dir / "trials").glob("*/*/*/*/trial.json")):
        t = json.loads(path.read_text())
        out[f"{t['case']}/{t['agent']}/{t['condition']}/{t['repeat']}"] = t["usage"]
    return out


def layout(run_dir: Path) -> set[str]:
    return {str(p.relative_to(run_dir)) for p in (run_dir / "trials").rglob("*")}


def one_run(out: Path) -> Path:
    runs = sorted(out.glob("run-*"))
    assert len(runs) == 1, runs
    return runs[0]


SUITE: tuple[str, ...] = ("--source", str(EXAMPLES), "--case", "fix-a-bug", "--case", "wrong-fix")
SUITE += ("--case", "flaky-fix", "--case", "ask-a-question", "--concurrency", "2")


def test_a_suite_on_ray_gives_the_records_and_layout_of_a_local_run(
    proctor: Run, cluster: LocalCluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Token counts too: a trial's scratch folder on a node has the shape of a local run's
    (``<TMPDIR>/proctor-XXXXXXXX/<trial>``), here under temporary folders of one length
    (the scripted agent's counts followed ``proctor-ray-XXXXXXXX/scratch`` before)."""
    local_tmp = cluster.base / "locl-tmp"  # as long as the head node's, head-tmp
    local_tmp.mkdir(exist_ok=True)
    assert len(str(local_tmp)) == len(cluster.env("head", clis=True)["TMPDIR"])
    monkeypatch.setattr(tempfile, "tempdir", str(local_tmp))
    local = proctor("run", *SUITE, "--out", str(tmp_path / "local"))
    monkeypatch.undo()
    on_ray = proctor(
        "run", *SUITE, "--out", str(tmp_path / "ray"), "--executor", "ray",
        "--ray-address", cluster.address,
    )  # fmt: skip
    assert (local.code, on_ray.code) == (1, 1), on_ray.err  # wrong-fix and flaky-fix fail
    local_dir, ray_dir = one_run(tmp_path / "local"), one_run(tmp_path / "ray")
    assert records(ray_dir) == records(local_dir)
    assert len(records(ray_dir)) == 7
    assert tokens(ray_dir) == tokens(local_dir)
    assert all(usage for usage in tokens(ray_dir).values())
    assert layout(ray_dir) == layout(local_dir)
    suite = json.loads((ray_dir / "suite.json").read_text())
    assert suite["totals"]["n"] == 7 and suite["exitCode"] == 1
    assert not list((tmp_path / "ray").rglob("*.incoming-*"))  # no staging folder left


def test_a_relative_source_runs_on_nodes_started_in_other_folders(
    proctor: Run, cluster: LocalCluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A node started with ``ray start`` runs its tasks from a folder of its own: the cases
    named relative to the driver's folder were "not readable at the driver's path" there."""
    monkeypatch.chdir(EXAMPLES.parent)
    on_ray = proctor(
        "run", "--source", EXAMPLES.name, "--case", "fix-a-bug", "--repeats", "1",
        "--out", str(tmp_path / "ray"), "--executor", "ray", "--ray-address", cluster.address,
    )  # fmt: skip
    assert on_ray.code == 0, on_ray.err
    assert json.loads((one_run(tmp_path / "ray") / "run.json").read_text())[
        "source"
    ] == os.path.realpath(EXAMPLES)


def test_control_a_node_that_sends_files_back_incompletely_breaks_the_layout(
    proctor: Run, cluster: LocalCluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from proctor.execute import ray_executor, ray_node

    def trial_json_only(data: bytes, trial: Any) -> bool:
        ok: bool = ray_node.unpack_trial(data, trial)
        (trial.root / "trajectory.jsonl").unlink()
        return ok

    monkeypatch.setattr(ray_executor, "unpack_trial", trial_json_only)
    args = ("--source", str(EXAMPLES), "--case", "fix-a-bug", "--repeats", "1")
    local = proctor("run", *args, "--out", str(tmp_path / "local"))
    on_ray = proctor(
        "run", *args, "--out", str(tmp_path / "ray"), "--executor", "ray",
        "--ray-address", cluster.address,
    )  # fmt: skip
    assert local.code == on_ray.code == 0
    local_dir, ray_dir = one_run(tmp_path / "local"), one_run(tmp_path / "ray")
    assert records(ray_dir) == records(local_dir)
    assert layout(ray_dir) != layout(local_dir)


def test_a_node_without_the_agent_cli_is_reported_and_gets_no_trial(
    proctor: Run, cluster: LocalCluster, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    if shutil.which("claude", path=cluster.env("bare", clis=False)["PATH"]):
        pytest.skip("a `claude` CLI is installed on this machine's PATH: no node can lack it")
    config = tmp_path / "proctor.json"  # `claude` from PATH: the head has it, "bare" has not
    config.write_text(json.dumps({"codingagents": {"claude-code": {"binary": "claude"}}}))
    result = proctor(
        "run", "--source", str(EXAMPLES), "--case", "fix-a-bug", "--agent", "claude-code",
        "--model", "scripted", "--config", str(config), "--concurrency", "2",
        "--out", str(tmp_path / "out"), "--executor", "ray", "--ray-address", cluster.address,
    )  # fmt: skip
    reported = [r.getMessage() for r in caplog.records if "left out of this run" in r.getMessage()]
    assert len(reported) == 1, reported
    assert cluster.ids["bare"][:8] in reported[0] and "'claude' CLI was not found" in reported[0]
    # Both trials ran on the head, though "bare" was the idlest node for the second one.
    assert result.code == 0, result.err
    assert {r[0] for r in records(one_run(tmp_path / "out")).values()} == {"passed"}


def test_control_the_node_check_fails_where_the_cli_is_missing(
    cluster: LocalCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    from proctor.execute.ray_node import AgentNeed, NodeNeeds, check_node, python_version
    from proctor.models.config import AgentProfile

    profile = AgentProfile.model_validate({"binary": "claude"}).model_dump_json()
    needs = NodeNeeds("0.1.0", python_version(), (AgentNeed("claude-code", profile, False),), ())
    from proctor._version import __version__

    needs = NodeNeeds(__version__, needs.python, needs.agents, (str(EXAMPLES),))
    monkeypatch.setenv("PATH", cluster.env("x", clis=True)["PATH"])
    assert check_node(needs, "n").problems == ()
    monkeypatch.setenv("PATH", cluster.env("x", clis=False)["PATH"])
    assert "'claude' CLI was not found" in check_node(needs, "n").problems[0]
    moved = NodeNeeds("9.9.9", needs.python, (), ("/nonexistent/cases",))
    assert [p.split(" ")[0] for p in check_node(moved, "n").problems] == ["proctor", "the"]


def run_and_kill(
    proctor: Run, cluster: LocalCluster, make_case: MakeCase, tmp_path: Path, node: str
) -> tuple[Any, Path]:
    """Six 3-second trials over three nodes; ``node`` (started here) is killed by the PID of
    its raylet while one of them runs there."""
    make_case(
        "slow",
        config={
            "agents": ["scripted"],
            "timeoutSec": 60,
            "repeats": 6,
            "evaluators": [{"use": "file-exists", "must": ["answer.txt"]}],
        },
        plan={
            "turns": [
                {"shell": "sleep 3"},
                {"write": {"path": "answer.txt", "content": "42\n"}},
                {"say": "done"},
            ]
        },
    )
    cluster.start(node, clis=True)

    def kill() -> None:
        time.sleep(0.5)  # the trial is well under way
        cluster.kill_raylet(node)

    killed = when_a_trial_runs(cluster, node, kill)
    result = run_on_ray(proctor, cluster, tmp_path)
    assert killed.wait(timeout=5), f"no trial ever ran on node {node}"
    return result, one_run(tmp_path / "out")


def when_a_trial_runs(
    cluster: LocalCluster, node: str, action: Callable[[], None]
) -> threading.Event:
    """Do ``action`` (on a thread) once a trial runs on ``node``; the event says it was done."""
    scratch = Path(cluster.env(node, clis=True)["TMPDIR"])  # where its trials run
    done = threading.Event()

    def watch() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if list(scratch.glob("proctor-*/[0-9]*")):  # a trial's scratch folder
                action()
                done.set()
                return
            time.sleep(0.05)

    threading.Thread(target=watch, daemon=True).start()
    return done


def run_on_ray(proctor: Run, cluster: LocalCluster, tmp_path: Path) -> Any:
    """``proctor run`` of the cases of ``make_case`` on the cluster, three trials at a time."""
    return proctor(
        "run", "--source", str(tmp_path / "cases"), "--concurrency", "3",
        "--out", str(tmp_path / "out"), "--executor", "ray", "--ray-address", cluster.address,
    )  # fmt: skip


def test_a_killed_node_has_its_trials_run_again_elsewhere_each_recorded_once(
    proctor: Run,
    cluster: LocalCluster,
    make_case: MakeCase,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    result, run_dir = run_and_kill(proctor, cluster, make_case, tmp_path, "spare")
    lost = [r.getMessage() for r in caplog.records if "lost its Ray " in r.getMessage()]
    assert lost and all(cluster.ids["spare"][:8] in m for m in lost), lost
    assert result.code == 0, result.out + result.err
    assert [r[0] for r in records(run_dir).values()] == ["passed"] * 6
    finished = [
        json.loads(line)
        for line in (run_dir / "journal.jsonl").read_text().splitlines()
        if '"trial-finished"' in line
    ]
    assert sorted(e["repeat"] for e in finished) == [1, 2, 3, 4, 5, 6]  # each exactly once
    assert json.loads((run_dir / "resolved.json").read_text())["concurrency"] == 3


def test_control_a_lost_trial_not_run_again_is_an_infra_error(
    proctor: Run,
    cluster: LocalCluster,
    make_case: MakeCase,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from proctor.execute import ray_executor

    monkeypatch.setattr(ray_executor, "NODE_LOSSES", 0)
    result, run_dir = run_and_kill(proctor, cluster, make_case, tmp_path, "spare2")
    statuses = [r[0] for r in records(run_dir).values()]
    assert result.code != 0 and len(statuses) == 6 and "infra-error" in statuses
    lost = [r for r in records(run_dir).values() if r[0] == "infra-error"]
    assert all("lost its Ray node" in r[3] for r in lost), lost


def test_ctrl_c_cancels_the_running_trials_and_records_them_as_interrupted(
    cluster: LocalCluster, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case(
        "stuck",
        config={"agents": ["scripted"], "timeoutSec": 120, "repeats": 4},
        plan={"turns": [{"shell": "sleep 47"}, {"say": "done"}]},
    )
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [str(RAY.with_name("proctor")), "run", "--source", str(tmp_path / "cases"),
         "--concurrency", "2", "--out", str(out), "--executor", "ray",
         "--ray-address", cluster.address],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    scratch = [cluster.base / f"{node}-tmp" for node in ("head", "bare")]
    while sum(len(list(s.glob("proctor-*/[0-9]*"))) for s in scratch) < 2:
        assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    time.sleep(1)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    found = records(one_run(out))
    assert len(found) == 2, found  # the two that ran; the other two never started
    assert all(r[0] == "infra-error" and r[3].startswith("interrupted:") for r in found.values())
    sleeping = [p for p in psutil.process_iter(["cmdline"]) if p.info["cmdline"] == ["sleep", "47"]]
    assert not sleeping, "a cancelled trial left its processes running"


def test_without_the_ray_extra_the_run_stops_before_anything_with_one_sentence(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ("run", "--source", str(EXAMPLES), "--case", "fix-a-bug", "--out", str(tmp_path))
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails as if not installed
    missing = proctor(*args, "--executor", "ray")
    assert missing.code == 2 and "pip install 'proctor[ray]'" in missing.err
    assert "Traceback" not in missing.err and not list(tmp_path.iterdir())
    wrong = proctor(*args, "--ray-address", "127.0.0.1:6379")
    assert wrong.code == 2 and "give --executor ray too" in wrong.err
    resumed = proctor("run", "--resume", str(tmp_path), "--executor", "ray")
    assert resumed.code == 2 and "drop --executor ray" in resumed.err
    monkeypatch.delitem(sys.modules, "ray")  # control: with Ray there, the same run starts
    with closed_port() as port:
        unreachable = proctor(*args, "--executor", "ray", "--ray-address", f"127.0.0.1:{port}")
    assert unreachable.code == 2 and "nothing answers there" in unreachable.err
    assert not list(tmp_path.iterdir())  # refused before any run folder


def test_a_node_that_joins_during_the_run_is_checked_and_takes_trials(
    proctor: Run,
    cluster: LocalCluster,
    make_case: MakeCase,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from proctor.execute import ray_cluster

    monkeypatch.setattr(ray_cluster, "LOOK_EVERY_SEC", 0.5)
    make_case(
        "slow",
        config={"agents": ["scripted"], "timeoutSec": 60, "repeats": 12},
        plan={"turns": [{"shell": "sleep 2"}, {"say": "done"}]},
    )
    launched = when_a_trial_runs(cluster, "head", lambda: cluster.launch("late", clis=True))
    # Concurrency 3, one more than the CPUs of the two nodes there: the new one is the idlest.
    result = run_on_ray(proctor, cluster, tmp_path)
    assert launched.wait(timeout=5), "no trial ever ran on the head"
    assert result.code == 0, result.out + result.err
    run_dir = one_run(tmp_path / "out")
    assert [r[0] for r in records(run_dir).values()] == ["passed"] * 12
    joined = [r.getMessage() for r in caplog.records if "joined the run" in r.getMessage()]
    assert len(joined) == 1, joined
    label = joined[0].removeprefix("proctor: Ray node ").split(" joined")[0]
    started = [
        json.loads(line)
        for line in (run_dir / "journal.jsonl").read_text().splitlines()
        if '"trial-started"' in line
    ]
    assert all(e["node"] for e in started)  # the journal names each trial's node
    assert any(e["node"] == label for e in started), (label, {e["node"] for e in started})
    # Where each trial ran: its workspace lies under the temporary folder of its node.
    ran_late = [
        p for p in (run_dir / "trials").rglob("raw-transcript.jsonl") if "late-tmp" in p.read_text()
    ]
    assert ran_late, "the node that joined took no trial"


def _most_at_once(run_dir: Path) -> int:
    """The most trials of the run that were running at the same moment."""
    moments = []
    for path in (run_dir / "trials").glob("*/*/*/*/trial.json"):
        timings = json.loads(path.read_text())["timings"]
        moments += [(timings["startedAt"], 1), (timings["finishedAt"], -1)]
    most = running = 0
    for _, step in sorted(moments, key=lambda m: (m[0], m[1])):
        running += step
        most = max(most, running)
    return most


def test_without_a_concurrency_the_run_grows_with_the_nodes_that_join(
    proctor: Run,
    cluster: LocalCluster,
    make_case: MakeCase,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from proctor.execute import ray_cluster

    monkeypatch.setattr(ray_cluster, "LOOK_EVERY_SEC", 0.5)
    # The first trials hold on until a trial has started on a node that joined (its workspace
    # lies under that node's temporary folder), so the run cannot end before the nodes have
    # started; after 40 s they go on (a run that never grows then fails the count below).
    joined = tmp_path / "a-grown-node-ran-a-trial"
    wait = (
        f'case "$PWD" in *grown-*) touch {joined} ;; '
        f"*) i=0; while [ ! -e {joined} ] && [ $i -lt 400 ]; do sleep 0.1; i=$((i+1)); done; "
        f"touch {joined} ;; esac; sleep 3"
    )
    make_case(
        "slow",
        config={"agents": ["scripted"], "timeoutSec": 60, "repeats": 16},
        plan={"turns": [{"shell": wait}, {"say": "done"}]},
    )

    def grow() -> None:  # two nodes, so that it grows past 2 whatever nodes are there already
        cluster.launch("grown-1", clis=True)
        cluster.launch("grown-2", clis=True)

    launched = when_a_trial_runs(cluster, "head", grow)
    result = proctor(
        "run", "--source", str(tmp_path / "cases"), "--out", str(tmp_path / "out"),
        "--executor", "ray", "--ray-address", cluster.address,
    )  # fmt: skip
    assert launched.wait(timeout=5), "no trial ever ran on the head"
    assert result.code == 0, result.out + result.err
    run_dir = one_run(tmp_path / "out")
    assert [r[0] for r in records(run_dir).values()] == ["passed"] * 16
    # The default of a local run is 2 at a time; the two nodes that joined add a CPU each.
    assert _most_at_once(run_dir) >= 3
    resolved = json.loads((run_dir / "resolved.json").read_text())
    assert resolved["concurrency"] is None  # sized by the cluster, not the local default
