"""The CPUs proctor may use: its affinity, capped by its cgroup's CPU quota."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest

from proctor.history import replay as replay_module
from proctor.history.replay import Filters, replay
from proctor.history.sources import sessions_under
from proctor.models.pricing import PriceTable
from proctor.util.cpus import cpu_quota, usable_cpus
from tests.unit.history.planted import plant

AFFINITY = len(os.sched_getaffinity(0))


def _cgroup(tmp_path: Path, proc: str, files: dict[str, str]) -> tuple[Path, Path]:
    """A cgroup file system under ``tmp_path/fs`` holding ``files``, and a
    ``/proc/self/cgroup`` saying ``proc``."""
    root = tmp_path / "fs"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n")
    root.mkdir(exist_ok=True)
    proc_file = tmp_path / "cgroup"
    proc_file.write_text(proc)
    return root, proc_file


def test_a_cgroup_v2_quota_caps_the_count_rounded_up(tmp_path: Path) -> None:
    root, proc = _cgroup(tmp_path, "0::/\n", {"cpu.max": "150000 100000"})
    assert cpu_quota(root, proc) == 1.5
    assert usable_cpus(root, proc) == min(AFFINITY, 2)


def test_a_quota_under_one_cpu_still_leaves_one(tmp_path: Path) -> None:
    root, proc = _cgroup(tmp_path, "0::/\n", {"cpu.max": "20000 100000"})
    assert usable_cpus(root, proc) == 1


def test_no_quota_leaves_the_affinity(tmp_path: Path) -> None:
    root, proc = _cgroup(tmp_path, "0::/\n", {"cpu.max": "max 100000"})
    assert cpu_quota(root, proc) is None
    assert usable_cpus(root, proc) == AFFINITY


def test_the_lowest_quota_of_the_cgroup_and_those_above_it_counts(tmp_path: Path) -> None:
    root, proc = _cgroup(
        tmp_path,
        "0::/machine/box\n",
        {
            "cpu.max": "max 100000",
            "machine/cpu.max": "100000 100000",
            "machine/box/cpu.max": "400000 100000",
        },
    )
    assert cpu_quota(root, proc) == 1.0
    assert usable_cpus(root, proc) == 1


def test_a_cgroup_v1_quota_counts_and_minus_one_is_none(tmp_path: Path) -> None:
    files = {"cpu,cpuacct/cpu.cfs_quota_us": "100000", "cpu,cpuacct/cpu.cfs_period_us": "100000"}
    root, proc = _cgroup(tmp_path, "4:cpu,cpuacct:/\n3:memory:/\n0::/\n", files)
    assert cpu_quota(root, proc) == 1.0
    (root / "cpu,cpuacct/cpu.cfs_quota_us").write_text("-1\n")
    assert cpu_quota(root, proc) is None


def test_a_container_s_own_cgroup_mounted_as_the_root_is_read(tmp_path: Path) -> None:
    # cgroup v1 without a cgroup namespace: /proc names the host's path, which is not there.
    files = {"cpu/cpu.cfs_quota_us": "200000", "cpu/cpu.cfs_period_us": "100000"}
    root, proc = _cgroup(tmp_path, "2:cpu:/docker/0123abcd\n", files)
    assert cpu_quota(root, proc) == 2.0


@pytest.mark.parametrize(
    "text", ["", "lots 100000", "100000", "-5 100000", "100000 0", "\x00\x01", "max"]
)
def test_what_does_not_read_as_a_quota_is_none(tmp_path: Path, text: str) -> None:
    root, proc = _cgroup(tmp_path, "0::/\n", {"cpu.max": text})
    assert cpu_quota(root, proc) is None
    assert usable_cpus(root, proc) == AFFINITY


def test_no_cgroup_file_system_leaves_the_affinity(tmp_path: Path) -> None:
    assert usable_cpus(tmp_path / "absent", tmp_path / "absent-proc") == AFFINITY


def _count_pinned(queue: multiprocessing.Queue[int]) -> None:
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    queue.put(usable_cpus())


def test_a_process_pinned_to_one_cpu_uses_one() -> None:
    context = multiprocessing.get_context("fork")
    queue: multiprocessing.Queue[int] = context.Queue()
    child = context.Process(target=_count_pinned, args=(queue,))
    child.start()
    try:
        assert queue.get(timeout=30) == 1
    finally:
        child.join(timeout=30)


def test_a_replay_with_one_usable_cpu_starts_no_pool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plant(tmp_path / ".claude")
    sessions, _ = sessions_under([tmp_path / ".claude"], ["claude-code"])
    sessions = sessions * 3  # past the fewest a pool is started for
    assert len(sessions) >= replay_module.SERIAL_BELOW

    def no_pool(*args: object, **kwargs: object) -> None:
        raise AssertionError("a pool was started")

    monkeypatch.setattr(replay_module, "forked_pool", no_pool)
    monkeypatch.setattr(replay_module, "usable_cpus", lambda: 1)
    found = list(replay(sessions, Filters(), PriceTable()))
    assert len(found) == len(sessions)
    # Control: with two usable CPUs the same replay starts a pool.
    monkeypatch.setattr(replay_module, "usable_cpus", lambda: 2)
    with pytest.raises(AssertionError, match="a pool was started"):
        list(replay(sessions, Filters(), PriceTable()))
