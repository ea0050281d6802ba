"""Transcript parsing throughput and memory, optionally against ccusage. Nothing is asserted.

Builds a corpus of at least ``--size-mb`` (default 200) MB by replicating every Claude Code
session under ``tests/fixtures/`` (main file plus subagent files) with fresh session, line,
message, request and tool ids, laid out as ``<corpus>/projects/<project>/<session>.jsonl`` so
that ccusage can read it (``CLAUDE_CONFIG_DIR=<corpus>``). Then, each in a fresh subprocess,
median of 3 runs (the history runs: of seven rounds, see below):

* ``full``: :func:`parse_claude_session` of every session streamed into a trajectory JSONL
  file (the way ``proctor parse --json`` reads: events handed on as they are parsed);
* ``memory``: the same parse building the whole :class:`Trajectory` of pydantic events in memory
  (the way a trial's transcript is read);
* ``usage``: :func:`claude_usage_totals` of every session (token totals only, streaming);
* the same over one big single file (all main files concatenated, and a tenth of it), to
  show how peak memory grows (or not) with file size;
* ``proctor history`` over the corpus (every session replayed and measured, in parallel),
  cold (``--no-cache``) and warm (summaries of unchanged sessions read from the cache), over
  its ``projects/`` folder given as a PATH (read as Claude Code's) cold, and
  ``ccusage claude daily --json --offline`` over the corpus when ccusage can be installed from
  the npm registry (into ``--ccusage-prefix``), all taken in turns, seven rounds (median and
  fastest wall time, and the CPU time each spent); ccusage's token totals must equal
  proctor's.

``--jobs N`` (default: the CPU count) adds the corpus runs again with N worker processes, each
parsing its share of the sessions (the way trials are parsed, one process each).

That corpus is about 12,000 short sessions (ten-odd lines each, a few thousand subagent files
among them; 12,425 sessions and 15,975 files from today's fixtures): the most sessions a 200 MB
history can hold, where what each session costs counts most. A real history is few long
sessions: one user's 236 MB was 237 sessions and 1,315 subagent files (see the peers
reference). So the
``proctor history`` and ccusage runs are taken again over a second history of the same size
built of long sessions: each is ``--long-per-session`` (default 80) fixture sessions one after
another, about 1.3 MB with their subagent files.

proctor's own modules are byte-compiled first, as an installed proctor's are: with
``PYTHONDONTWRITEBYTECODE`` set (many container images set it), each ``proctor history`` run
would otherwise compile its modules again, and the start-up it is timed with would be the
compiler's (about 40 ms a run here).

Usage: ``.venv/bin/python bench/parse_bench.py [--size-mb 200] [--jobs N] [--keep DIR]
[--keep-long DIR] [--long-per-session N] [--no-ccusage] [--history-only]``
(``--history-only``: the history runs and ccusage's alone, on both histories).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ID = re.compile(
    rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?:msg|req|toolu)_[A-Za-z0-9_]+"
)
CCUSAGE_VERSION = "20.0.24"
"""20.0.26 (the newest at the time of writing) has no linux-x64 native package on the registry."""
RUNS = 3
HISTORY_ROUNDS = 7
"""Rounds of the history runs and ccusage, taken in turns: their times spread more than the
parses' (ccusage's most of all, see :func:`history_table`)."""
HISTORY_RUNS = (("cold", "--no-cache"), ("warm", "cached"), ("folder", "projects/ --no-cache"))
"""The ``proctor history`` runs: over the history folder cold and warm, and over its
``projects/`` folder given as a PATH (read as Claude Code's, its files laid out as Claude Code
lays them out), cold."""


def claude_sessions() -> list[list[Path]]:
    """Every Claude Code session under tests/fixtures: [main file, *subagent files]."""
    sys.path.insert(0, str(ROOT / "src"))
    from proctor.transcripts.detect import detect_format
    from proctor.util.native_paths import claude_subagent_files

    sessions = []
    for path in sorted((ROOT / "tests" / "fixtures").rglob("*.jsonl")):
        if path.name.startswith("agent-") or "subagents" in path.parts:
            continue
        try:
            if detect_format(path) != "claude-code":
                continue
        except Exception:
            continue
        sessions.append([path, *claude_subagent_files(path)])
    return sessions


def renew_ids(data: bytes, copy: int, cache: dict[bytes, bytes]) -> bytes:
    def fresh(match: re.Match[bytes]) -> bytes:
        old = match.group(0)
        new = cache.get(old)
        if new is None:
            if old[:1].isalpha() and b"_" in old:
                new = old + f"_{copy:x}".encode()
            else:
                new = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{old!r}/{copy}")).encode()
            cache[old] = new
        return new

    return ID.sub(fresh, data)


def _session_id(text: bytes) -> str | None:
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(record.get("sessionId"), str):
            return str(record["sessionId"])
    return None


def claude_bytes(data: bytes) -> bytes:
    """Each JSON line written compactly, the way Claude Code writes it (a fixture written by
    Python's json module has spaces after its colons, and ccusage 20 skips such lines, so its
    totals would leave them out); a line that is not JSON (a planted broken line) is kept."""
    lines = []
    for line in data.splitlines():
        try:
            lines.append(json.dumps(json.loads(line), ensure_ascii=False, separators=(",", ":")))
        except ValueError:
            lines.append(line.decode("utf-8", "surrogateescape"))
    return "\n".join(lines).encode("utf-8", "surrogateescape") + b"\n"


def build_corpus(root: Path, size_mb: float) -> tuple[list[list[Path]], int]:
    sources = claude_sessions()
    if not sources:
        raise SystemExit("no Claude Code transcripts under tests/fixtures")
    texts = [[(p, claude_bytes(p.read_bytes())) for p in session] for session in sources]
    sessions: list[list[Path]] = []
    total = copy = 0
    while total < size_mb * 1e6:
        for files in texts:
            cache: dict[bytes, bytes] = {}
            main_path, main_text = files[0]
            project = root / "projects" / f"-bench-p{copy % 40:02d}"
            new_main = renew_ids(main_text, copy, cache)
            # The file is named by its (renewed) session id: a fixture file named otherwise
            # would land on the same path in every copy and overwrite the previous one.
            session_id = (
                _session_id(new_main) or renew_ids(main_path.stem.encode(), copy, cache).decode()
            )
            out = [project / f"{session_id}.jsonl"]
            out[0].parent.mkdir(parents=True, exist_ok=True)
            out[0].write_bytes(new_main)
            total += len(new_main)
            for sub_path, sub_text in files[1:]:
                target = project / session_id / "subagents" / sub_path.name
                target.parent.mkdir(parents=True, exist_ok=True)
                data = renew_ids(sub_text, copy, cache)
                target.write_bytes(data)
                total += len(data)
                out.append(target)
            sessions.append(out)
            copy += 1
    return sessions, total


def build_long_corpus(root: Path, size_mb: float, per_session: int) -> tuple[int, int, int]:
    """A history of few long sessions, the shape of a real one (see the module docstring):
    each session file is ``per_session`` fixture sessions one after another (their ids renewed
    per copy, the session id made the long session's own), with every subagent file of theirs
    in the long session's ``subagents`` folder under a renewed agent id. Returns (sessions,
    files, bytes)."""
    sources = claude_sessions()
    texts = [[(p, claude_bytes(p.read_bytes())) for p in session] for session in sources]
    agent_ids = {
        sub.name.removesuffix(".jsonl").removeprefix("agent-").encode()
        for files in texts
        for sub, _ in files[1:]
    }
    total = copy = sessions = files_written = 0
    while total < size_mb * 1e6:
        long_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"long/{sessions}"))
        project = root / "projects" / f"-bench-long-p{sessions % 40:02d}"
        project.mkdir(parents=True, exist_ok=True)
        with open(project / f"{long_id}.jsonl", "wb") as out:
            for _ in range(per_session):
                files = texts[copy % len(texts)]
                cache: dict[bytes, bytes] = {}
                main = renew_ids(files[0][1], copy, cache)
                own_id = _session_id(main)
                if own_id:
                    main = main.replace(own_id.encode(), long_id.encode())
                for agent in agent_ids:  # each copy calls its own subagents
                    main = main.replace(agent, agent + f"x{copy:x}".encode())
                out.write(main)
                total += len(main)
                for sub_path, sub_text in files[1:]:
                    data = renew_ids(sub_text, copy, cache)
                    if own_id:
                        data = data.replace(own_id.encode(), long_id.encode())
                    agent = sub_path.name.removesuffix(".jsonl").removeprefix("agent-")
                    target = project / long_id / "subagents" / f"agent-{agent}x{copy:x}.jsonl"
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(data.replace(agent.encode(), f"{agent}x{copy:x}".encode()))
                    total += len(data)
                    files_written += 1
                copy += 1
        sessions += 1
        files_written += 1
    return sessions, files_written, total


def parse_sessions(mode: str, sessions: list[list[str]]) -> dict[str, dict[str, int]]:
    """Token totals per model of ``sessions``, parsed in ``mode`` (full, memory or usage)."""
    import orjson

    from proctor.models.trajectory import ModelUsage
    from proctor.transcripts.claude import claude_usage_totals, parse_claude_session

    totals: dict[str, ModelUsage] = {}
    with tempfile.TemporaryFile() as out:
        write, dumps, newline = out.write, orjson.dumps, orjson.OPT_APPEND_NEWLINE

        def sink(event: dict[str, Any]) -> None:
            write(dumps(event, option=newline))

        for names in sessions:
            files = [Path(p) for p in names]
            if mode == "full":
                usage = parse_claude_session(files[0], files[1:], sink=sink).usage
            elif mode == "memory":
                usage = parse_claude_session(files[0], files[1:]).usage
            else:
                usage = claude_usage_totals(*files)
            for model, u in usage.items():
                totals.setdefault(model, ModelUsage()).add(u)
    return {m: u.model_dump(by_alias=True) for m, u in totals.items()}


def worker(mode: str, listing: Path, jobs: int) -> None:
    """Runs inside a subprocess: parse what ``listing`` names, print seconds, RSS, totals."""
    from concurrent.futures import ProcessPoolExecutor

    sessions = json.loads(listing.read_text())
    import proctor.transcripts.claude  # noqa: F401  (import time is not parse time)

    start = time.perf_counter()
    if jobs == 1:
        parts = [parse_sessions(mode, sessions)]
    else:
        chunks = [sessions[i::jobs] for i in range(jobs)]
        with ProcessPoolExecutor(jobs) as pool:
            parts = list(pool.map(parse_sessions, [mode] * jobs, chunks))
    seconds = time.perf_counter() - start
    usage: dict[str, dict[str, int]] = {}
    for part in parts:
        for model, u in part.items():
            acc = usage.setdefault(model, dict.fromkeys(u, 0))
            for key, value in u.items():
                acc[key] += value
    peak_kb = max(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
    )
    print(json.dumps({"seconds": seconds, "peak_mb": peak_kb / 1024, "usage": usage}))


def run_worker(mode: str, sessions: list[list[Path]], tmp: Path, jobs: int = 1) -> dict[str, Any]:
    listing = tmp / f"listing-{len(sessions)}.json"
    listing.write_text(json.dumps([[str(p) for p in s] for s in sessions]))
    runs = []
    for _ in range(RUNS):
        began = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, __file__, "--worker", mode, str(listing), str(jobs)],
            capture_output=True,
            text=True,
            check=True,
        )
        runs.append({**json.loads(proc.stdout), "wall": time.perf_counter() - began})
    return {
        "seconds": statistics.median(r["seconds"] for r in runs),
        "wall": statistics.median(r["wall"] for r in runs),
        "peak_mb": max(r["peak_mb"] for r in runs),
        "usage": runs[0]["usage"],
    }


def baseline_rss() -> float:
    code = (
        "import resource, proctor.transcripts.detect;"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout)


def big_file(sessions: list[list[Path]], target: Path, size: float) -> int:
    written = 0
    with open(target, "wb") as out:
        for files in sessions:
            data = files[0].read_bytes()
            out.write(data)
            written += len(data)
            if written >= size:
                break
    return written


def ccusage_binary(prefix: Path) -> Path | None:
    binary = prefix / "node_modules" / ".bin" / "ccusage"
    if not binary.exists() and shutil.which("npm"):
        prefix.mkdir(parents=True, exist_ok=True)
        if not (prefix / "package.json").exists():
            (prefix / "package.json").write_text('{"name": "bench", "private": true}\n')
        subprocess.run(
            ["npm", "install", "--prefix", str(prefix), f"ccusage@{CCUSAGE_VERSION}"],
            capture_output=True,
            timeout=600,
        )
    return binary if binary.exists() else None


def history_and_ccusage(corpus: Path, tmp: Path, ccusage: Path | None) -> dict[str, Any]:
    """``proctor history CORPUS --json`` cold (``--no-cache``: every session parsed) and warm
    (the summaries of an earlier replay read from the cache), ``proctor history
    CORPUS/projects`` cold (see :data:`HISTORY_RUNS`), and ccusage's daily report when
    ``ccusage`` is given: each run is the whole command's wall time, the runs are taken in
    turns (so that they see the same load on a shared machine), medians of the runs."""
    proctor = Path(sys.executable).with_name("proctor")
    argv = [str(proctor), "history", str(corpus), "--agent", "claude-code", "--json"]
    env = {**os.environ, "PROCTOR_CACHE_DIR": str(tmp / "proctor-cache")}
    subprocess.run(argv, capture_output=True, check=True, env=env)  # fills the cache
    # The projects folder given as a PATH (read as Claude Code's: see proctor.history.sniff).
    folder = [str(proctor), "history", str(corpus / "projects"), "--agent", "claude-code"]
    commands = {
        "cold": ([*argv, "--no-cache"], env),
        "warm": (argv, env),
        "folder": ([*folder, "--json", "--no-cache"], env),
    }
    if ccusage is not None:
        cc_env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(tmp / "home"),
            "CLAUDE_CONFIG_DIR": str(corpus),
        }
        cc_argv = ["node", str(ccusage), "claude", "daily", "--json", "--offline"]
        commands["ccusage"] = (cc_argv, cc_env)
    runs: dict[str, list[tuple[float, float, float]]] = {label: [] for label in commands}
    outputs: dict[str, str] = {}
    for _ in range(HISTORY_ROUNDS):
        for label, (command, command_env) in commands.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            proc = subprocess.run(command, capture_output=True, text=True, env=command_env)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
            runs[label].append((wall, user, system))
            if proc.returncode != 0:
                raise SystemExit(f"{label} exited {proc.returncode}: {proc.stderr[-300:]}")
            outputs[label] = proc.stdout
    figures: dict[str, Any] = {}
    for label, _ in HISTORY_RUNS:
        report = json.loads(outputs[label])
        figures[label] = {
            **_timing(runs[label]),
            "sessions": report["total"]["sessions"],
            "usage": report["total"]["usage"],
            "costUsd": report["total"]["costUsd"],
        }
    if ccusage is not None:
        totals = json.loads(outputs["ccusage"])["totals"]
        figures["ccusage"] = {**_timing(runs["ccusage"]), "totals": totals}
    return figures


def _timing(runs: list[tuple[float, float, float]]) -> dict[str, Any]:
    """A command's runs: the median and the fastest wall time, the median CPU times (user and
    system, the command's whole process tree) and every run's wall time."""
    return {
        "seconds": statistics.median(run[0] for run in runs),
        "fastest": min(run[0] for run in runs),
        "user": statistics.median(run[1] for run in runs),
        "system": statistics.median(run[2] for run in runs),
        "walls": [run[0] for run in runs],
    }


def history_table(history: dict[str, Any]) -> None:
    """The history runs and ccusage's, taken in turns: median and fastest wall time, median CPU
    time, each run's wall time, and the ratios to ccusage's median and fastest.

    ccusage 20's time spreads in two: on Linux, where transparent huge pages are on for the
    memory a program asks for them (``madvise``, the usual setting), its allocator asks, and
    the kernel then clears each 2 MB page it hands over; a run that gets them spends about a
    second of system time doing so (seen with ``perf``), one that does not gets ordinary
    pages. Which one a run gets is the machine's state; both are shown."""
    theirs = history.get("ccusage")
    print(f"\nin turns, {HISTORY_ROUNDS} rounds (wall: median, fastest; CPU: median user + system)")
    print(f"{'command':<38} {'median':>7} {'fastest':>8} {'user':>6} {'system':>7}  runs")
    labels = [(kind, f"proctor history {label}") for kind, label in HISTORY_RUNS]
    if theirs is not None:
        labels.append(("ccusage", f"ccusage {CCUSAGE_VERSION} daily"))
    for kind, label in labels:
        run = history[kind]
        walls = " ".join(f"{wall:.2f}" for wall in run["walls"])
        print(
            f"{label:<38} {run['seconds']:7.2f} {run['fastest']:8.2f} {run['user']:6.2f} "
            f"{run['system']:7.2f}  {walls}"
        )
    if theirs is None:
        return
    for kind, label in HISTORY_RUNS:
        run = history[kind]
        print(
            f"proctor history {label} / ccusage: median {run['seconds'] / theirs['seconds']:.2f}, "
            f"fastest {run['fastest'] / theirs['fastest']:.2f}"
        )


def proctor_totals(usage: dict[str, dict[str, int]]) -> dict[str, int]:
    keys = {
        "inputTokens": "inputTokens",
        "outputTokens": "outputTokens",
        "cacheCreationTokens": "cacheWriteTokens",
        "cacheReadTokens": "cacheReadTokens",
    }
    return {k: sum(u[ours] for u in usage.values()) for k, ours in keys.items()}


Row = tuple[str, float, float, float | None]


def measure(
    sessions: list[list[Path]], size: int, tmp: Path, jobs: int, ccusage: Path | None
) -> dict[str, Any]:
    """Every proctor run of the table: corpus (1 and ``jobs`` processes) and one big file."""
    mb = size / 1e6
    full = run_worker("full", sessions, tmp)
    memory = run_worker("memory", sessions, tmp)
    fast = run_worker("usage", sessions, tmp)
    rows: list[Row] = [
        ("proctor full parse, streamed (corpus)", full["seconds"], mb, full["peak_mb"]),
        ("proctor full parse, in memory (corpus)", memory["seconds"], mb, memory["peak_mb"]),
        ("proctor usage-only (corpus)", fast["seconds"], mb, fast["peak_mb"]),
    ]
    if jobs > 1:
        for mode, label in (("full", "full streamed"), ("usage", "usage-only")):
            result = run_worker(mode, sessions, tmp, jobs)
            title = f"proctor {label} (corpus, {jobs} procs)"
            rows.append((title, result["seconds"], mb, result["peak_mb"]))
    for fraction in (0.1, 1.0):
        target = tmp / f"big-{fraction}.jsonl"
        big = big_file(sessions, target, size * fraction) / 1e6
        for mode in ("full", "memory", "usage"):
            result = run_worker(mode, [[target]], tmp)
            label = f"proctor {mode} one {big:.0f} MB file"
            rows.append((label, result["seconds"], big, result["peak_mb"]))
        target.unlink()
    history = history_and_ccusage(sessions[0][0].parents[2], tmp, ccusage)
    for kind, label in HISTORY_RUNS:
        title = f"proctor history {label}, {history[kind]['sessions']} sessions (wall)"
        rows.append((title, history[kind]["seconds"], mb, None))
    return {"rows": rows, "full": full, "memory": memory, "fast": fast, "history": history}


def report(sessions: list[list[Path]], size: int, runs: dict[str, Any], cc: Any) -> None:
    mb = size / 1e6
    rows: list[Row] = list(runs["rows"])
    if isinstance(cc, dict):
        rows.append((f"ccusage {CCUSAGE_VERSION} claude daily (wall)", cc["seconds"], mb, None))
    files = sum(len(s) for s in sessions)
    print(f"\ncorpus: {len(sessions)} sessions, {files} files, {mb:.1f} MB (Claude Code format)")
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, baseline RSS after import "
        f"{baseline_rss():.0f} MB; median of {RUNS} runs (of {HISTORY_ROUNDS} for the history "
        "runs and ccusage), each in a fresh process\n"
    )
    print(f"{'run':<44} {'seconds':>8} {'MB/s':>8} {'peak RSS MB':>12}")
    for label, seconds, size_mb, peak in rows:
        peak_text = f"{peak:12.0f}" if peak is not None else f"{'n/a':>12}"
        print(f"{label:<44} {seconds:8.2f} {size_mb / seconds:8.1f} {peak_text}")
    full, memory, fast = runs["full"], runs["memory"], runs["fast"]
    ours = proctor_totals(full["usage"])
    print(f"\nproctor token totals: {ours}")
    print(f"in-memory totals equal: {proctor_totals(memory['usage']) == ours}")
    print(f"usage-only totals equal: {proctor_totals(fast['usage']) == ours}")
    history = runs["history"]
    for kind, _ in HISTORY_RUNS:
        equal = proctor_totals(history[kind]["usage"]) == ours
        print(f"proctor history ({kind}) totals equal: {equal}")
    if not isinstance(cc, dict):
        history_table(history)
        print(f"ccusage: {cc}")
        return
    theirs = {k: cc["totals"][k] for k in ours}
    print(f"ccusage token totals: {theirs}")
    print(f"equal to ccusage: {theirs == ours}")
    history_table({**history, "ccusage": cc})
    dollars, their_dollars = history["cold"]["costUsd"], cc["totals"].get("totalCost")
    same = None not in (dollars, their_dollars) and abs(dollars - their_dollars) < 1e-6
    print(f"dollars: proctor history {dollars}, ccusage {their_dollars}, equal: {same}")
    print(
        "wall-time ratio proctor/ccusage (whole process each): "
        f"full streamed {full['wall'] / cc['seconds']:.2f}, "
        f"in memory {memory['wall'] / cc['seconds']:.2f}, "
        f"usage-only {fast['wall'] / cc['seconds']:.2f}, "
        f"history cold {history['cold']['seconds'] / cc['seconds']:.2f}, "
        f"history warm {history['warm']['seconds'] / cc['seconds']:.2f}, "
        f"history of the projects folder {history['folder']['seconds'] / cc['seconds']:.2f}"
    )


def report_history(
    sessions: int,
    files: int,
    size: int,
    history: dict[str, Any],
    cc: Any,
    title: str = "long sessions",
) -> None:
    """The history runs over one history (the long-session one, or the corpus with
    ``--history-only``): cold, warm and ccusage, and the totals."""
    mb = size / 1e6
    print(f"\n{title}: {sessions} sessions, {files} files, {mb:.1f} MB (Claude Code format)")
    print(f"{'run':<44} {'seconds':>8} {'MB/s':>8}")
    for kind, label in HISTORY_RUNS:
        seconds = history[kind]["seconds"]
        run = f"proctor history {label}, {history[kind]['sessions']} sessions"
        print(f"{run:<44} {seconds:8.2f} {mb / seconds:8.1f}")
    if "ccusage" not in history:
        history_table(history)
        print(f"ccusage: {cc}")
        return
    theirs = history["ccusage"]
    print(
        f"{'ccusage ' + CCUSAGE_VERSION + ' claude daily':<44} {theirs['seconds']:8.2f} "
        f"{mb / theirs['seconds']:8.1f}"
    )
    ours = proctor_totals(history["cold"]["usage"])
    print(f"equal to ccusage: {ours == {k: theirs['totals'][k] for k in ours}}")
    history_table(history)
    print(
        "wall-time ratio proctor/ccusage: "
        f"history cold {history['cold']['seconds'] / theirs['seconds']:.2f}, "
        f"history warm {history['warm']['seconds'] / theirs['seconds']:.2f}, "
        f"history of the projects folder {history['folder']['seconds'] / theirs['seconds']:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--size-mb", type=float, default=200)
    parser.add_argument("--keep", type=Path, help="build the corpus here and keep it")
    parser.add_argument("--no-ccusage", action="store_true")
    parser.add_argument("--ccusage-prefix", type=Path, default=Path("/tmp/ccusage"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--long-per-session",
        type=int,
        default=80,
        help="fixture sessions per session of the long-session history (0: skip it)",
    )
    parser.add_argument("--keep-long", type=Path, help="build the long-session history here")
    parser.add_argument(
        "--history-only",
        action="store_true",
        help="time only proctor history and ccusage (not the parses of the corpus)",
    )
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker[0], Path(args.worker[1]), int(args.worker[2]))
        return
    import compileall

    import proctor

    compileall.compile_dir(Path(proctor.__file__).parent, quiet=1)
    tmp = Path(tempfile.mkdtemp(prefix="proctor-parse-bench-"))
    corpus = args.keep or tmp / "corpus"
    try:
        print(f"building a {args.size_mb:.0f} MB corpus in {corpus} …", flush=True)
        sessions, size = build_corpus(corpus, args.size_mb)
        cc: dict[str, Any] | str = "skipped (--no-ccusage)"
        binary = None
        if not args.no_ccusage:
            binary = ccusage_binary(args.ccusage_prefix)
            cc = "could not be installed from npm"
        if args.history_only:
            files = sum(len(session) for session in sessions)
            history = history_and_ccusage(sessions[0][0].parents[2], tmp, binary)
            report_history(len(sessions), files, size, history, cc, "short sessions")
        else:
            runs = measure(sessions, size, tmp, args.jobs, binary)
            report(sessions, size, runs, runs["history"].get("ccusage", cc))
        if args.long_per_session > 0:
            long_root = args.keep_long or tmp / "long"
            print(f"\nbuilding a {args.size_mb:.0f} MB history of long sessions in {long_root} …")
            count, files, long_size = build_long_corpus(
                long_root, args.size_mb, args.long_per_session
            )
            history = history_and_ccusage(long_root, tmp, binary)
            report_history(count, files, long_size, history, cc)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
