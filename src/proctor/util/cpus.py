"""How many CPUs this process may use: what sizes proctor's pools of worker processes.

``os.cpu_count()`` counts the machine's CPUs. A process pinned to some of them (``taskset``,
a container's ``--cpuset-cpus``) runs on fewer, and a container given ``--cpus 2`` (a CFS
quota in its cgroup) gets two CPUs' worth of time whatever the machine has: a pool of one
process per machine CPU there only takes turns on the same time, and holds that many workers'
memory. :func:`usable_cpus` counts the CPUs of the process's affinity, capped by the lowest
CPU quota of its cgroup and the cgroups above it (cgroup v2's ``cpu.max``, or v1's
``cpu.cfs_quota_us`` over ``cpu.cfs_period_us``), a fraction rounded up.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
PROC_CGROUP = Path("/proc/self/cgroup")


def usable_cpus(cgroup_root: Path = CGROUP_ROOT, proc_cgroup: Path = PROC_CGROUP) -> int:
    """The CPUs this process may use (see the module docstring); at least 1. Anything that
    cannot be read (no cgroup file system, another system) leaves the affinity's count."""
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # no affinity on this system
        count = os.cpu_count() or 1
    quota = cpu_quota(cgroup_root, proc_cgroup)
    if quota is not None:
        count = min(count, math.ceil(quota))
    return max(1, count)


def cpu_quota(cgroup_root: Path = CGROUP_ROOT, proc_cgroup: Path = PROC_CGROUP) -> float | None:
    """The lowest CPU quota (in CPUs) over this process's cgroup and those above it; None
    when none sets one or none can be read."""
    quotas = [q for q in map(_quota_of, _cgroup_folders(cgroup_root, proc_cgroup)) if q]
    return min(quotas) if quotas else None


def _cgroup_folders(root: Path, proc_cgroup: Path) -> list[Path]:
    """The folders of this process's CPU cgroup, from its own up to the hierarchy's root, that
    are there. The cgroup's path is as ``/proc/self/cgroup`` names it; a container may see its
    own cgroup mounted as the root instead (cgroup v1 without a cgroup namespace), so the root
    is always among them."""
    try:
        lines = proc_cgroup.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        lines = []
    mounts: list[tuple[Path, str]] = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        hierarchy, controllers, path = parts
        if hierarchy == "0" and controllers == "":  # cgroup v2: one hierarchy
            mounts.append((root, path))
        elif "cpu" in controllers.split(","):  # cgroup v1: the cpu controller's hierarchy
            for name in ("cpu", "cpu,cpuacct", "cpuacct,cpu"):
                if (root / name).is_dir():
                    mounts.append((root / name, path))
                    break
    if not mounts:
        mounts = [(root, "/"), (root / "cpu", "/"), (root / "cpu,cpuacct", "/")]
    folders: list[Path] = []
    for mount, path in mounts:
        relative = Path(path.strip().lstrip("/"))
        chain = [mount / relative, *(mount / parent for parent in relative.parents)]
        folders.extend(folder for folder in chain if folder.is_dir() and folder not in folders)
    return folders


def _quota_of(folder: Path) -> float | None:
    """The CPU quota a cgroup folder sets, in CPUs; None when it sets none or it cannot be
    read."""
    v2 = _read(folder / "cpu.max")
    if v2 is not None:
        fields = v2.split()
        if len(fields) == 2 and fields[0] != "max":
            return _ratio(fields[0], fields[1])
        return None
    quota, period = _read(folder / "cpu.cfs_quota_us"), _read(folder / "cpu.cfs_period_us")
    if quota is None or period is None:
        return None
    return _ratio(quota, period)


def _ratio(quota: str, period: str) -> float | None:
    try:
        value, over = int(quota), int(period)
    except ValueError:
        return None
    if value <= 0 or over <= 0:  # -1: no quota (cgroup v1)
        return None
    return value / over


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return None
