"""proctor's benchmarks: wall-clock medians measured here, never asserted in tests.

(a) ``proctor --help``; (b) ``proctor run`` of one trivial trial (one ``write``, one
``file-exists``); (c) the same case with 200 repeats at ``--concurrency 2``, as wall time per trial
(median of 3 runs); (d) a three-step headless Claude Code trial on the scripted model.
Targets on a 2-core machine: (a) <= 0.25 s, (b) <= 1.5 s, (c) <= 60 ms per trial.

With ``BENCH_AGAINST=DIR`` (another checkout with its own ``.venv``) every measurement is
taken of both, in turns, and the table shows both medians and their ratio.

proctor's own modules are byte-compiled first, as an installed proctor is: with
``PYTHONDONTWRITEBYTECODE`` set (many container images set it) an editable checkout would
otherwise compile every module on every command, and the benchmark would time the compiler.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HARNESS_SHARE_TARGET = 10
"""Percent of a real-CLI trial that proctor's own work may take (issue target)."""
PROCTOR_ENTRY = Path(sys.executable).with_name("proctor")
PROCTOR = [str(PROCTOR_ENTRY)] if PROCTOR_ENTRY.exists() else [sys.executable, "-m", "proctor"]


def timed(argv: list[str], expect: int = 0, **kwargs: object) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, **kwargs)  # type: ignore[call-overload]
    elapsed = time.perf_counter() - t0
    if proc.returncode != expect:
        raise SystemExit(f"{argv} exited {proc.returncode}: {proc.stderr.decode()[-2000:]}")
    return elapsed


def trivial_case(root: Path) -> Path:
    case = root / "cases" / "trivial"
    case.mkdir(parents=True)
    (case / "prompt.md").write_text("Write hello.txt.\n")
    (case / "plan.json").write_text(
        json.dumps({"turns": [{"write": {"path": "hello.txt", "content": "hello\n"}}]})
    )
    (case / "config.json").write_text(
        json.dumps({"evaluators": [{"use": "file-exists", "must": ["hello.txt"]}]})
    )
    return root / "cases"


THREE_STEPS = {
    "turns": [
        {"write": {"path": "hello.txt", "content": "hello\n"}},
        {"shell": "cat hello.txt"},
        {"say": "Done."},
    ]
}


def real_cli_overhead(root: Path, proctor: list[str], runs: int = 5) -> dict[str, object]:
    """A three-step headless Claude Code trial on the scripted model: the harness's time
    (total minus the agent phase) next to the agent phase and the CLI's own duration_ms."""
    case = root / "real" / "three-steps"
    case.mkdir(parents=True)
    (case / "prompt.md").write_text("Write hello.txt and show it.\n")
    (case / "plan.json").write_text(json.dumps(THREE_STEPS))
    (case / "config.json").write_text(json.dumps({"agents": ["claude-code"]}))
    totals, agents, clis = [], [], []
    for i in range(runs):
        out = root / f"real-out-{i}"
        proc = subprocess.run(
            [*proctor, "run", "--source", str(case), "--out", str(out), "--model", "scripted"],
            capture_output=True,
        )
        if proc.returncode != 0:
            return {"real_cli": f"skipped: claude-code run exited {proc.returncode}"}
        trial_dir = next(out.glob("run-*/trials/three-steps/claude-code/default/1"))
        trial = json.loads((trial_dir / "trial.json").read_text())
        totals.append(trial["timings"]["totalMs"])
        agents.append(trial["timings"]["agentMs"])
        for line in (trial_dir / "agent-stdout.jsonl").read_text().splitlines():
            event = json.loads(line)
            if event.get("type") == "result":
                clis.append(event.get("duration_ms", 0))
    return {
        "real_cli_trial_ms": statistics.median(totals),
        "real_cli_agent_phase_ms": statistics.median(agents),
        "real_cli_own_duration_ms": statistics.median(clis) if clis else None,
        "real_cli_harness_ms": statistics.median(
            t - a for t, a in zip(totals, agents, strict=True)
        ),
    }


def case_commands_ms(trial_json: Path) -> float:
    """The time the case's own programs took in a trial's evaluation (the ``command`` and
    ``external`` evaluators' processes, as their logs record it)."""
    logs = trial_json.parent / "evaluators"
    return sum(
        json.loads(log.read_text()).get("durationMs") or 0.0
        for log in logs.glob("*.json")
        if log.stem.split("-", 1)[-1] in ("command", "external")
    )


def harness_shares(root: Path, proctor: list[str], repeats: int = 3) -> dict[str, object]:
    """``fix-a-bug`` (examples/cases) on each real CLI with the scripted model, one trial at a
    time: the median share of a trial that is not the agent's (total − agent phase); that share
    less the case's own programs (its test suite, run by ``command`` evaluators), which is
    proctor's own part; and the share without any evaluation."""
    examples = Path(__file__).resolve().parents[1] / "examples" / "cases"
    out = root / "shares"
    argv = [*proctor, "run", "--source", str(examples), "--case", "fix-a-bug", "--out", str(out)]
    argv += ["--model", "scripted", "--concurrency", "1", "--repeats", str(repeats)]
    shares: dict[str, object] = {}
    for agent in ("claude-code", "codex", "gemini-cli"):
        proc = subprocess.run([*argv, "--agent", agent], capture_output=True)
        paths = list(out.glob(f"run-*/trials/*/{agent}/*/*/trial.json"))
        if proc.returncode not in (0, 1) or not paths:
            shares[f"harness_share_{agent}"] = f"skipped: run exited {proc.returncode}"
            continue
        timings = [json.loads(p.read_text())["timings"] for p in paths]
        whole = [(t["totalMs"] - t["agentMs"]) / t["totalMs"] for t in timings]
        own = [
            (t["totalMs"] - t["agentMs"] - case_commands_ms(p)) / t["totalMs"]
            for t, p in zip(timings, paths, strict=True)
        ]
        bare = [(t["totalMs"] - t["agentMs"] - t["evaluateMs"]) / t["totalMs"] for t in timings]
        shares[f"harness_share_{agent}"] = round(100 * statistics.median(whole), 1)
        shares[f"harness_share_own_{agent}"] = round(100 * statistics.median(own), 1)
        shares[f"harness_share_no_eval_{agent}"] = round(100 * statistics.median(bare), 1)
        shutil.rmtree(out)
    return shares


def python_shim() -> str | None:
    """The ``python3`` on ``PATH`` when it is a shell script (a version manager's shim, such
    as pyenv's) rather than the interpreter: each start of it costs tens of milliseconds."""
    found = shutil.which("python3")
    if found is None:
        return None
    try:
        with open(found, "rb") as fh:
            head = fh.read(64)
    except OSError:
        return None
    return found if head.startswith(b"#!") and b"python" not in head.split(b"\n")[0] else None


def proctor_of(python: Path) -> list[str]:
    """How to run the proctor installed for ``python`` (its console script when there is one)."""
    script = python.with_name("proctor")
    return [str(script)] if script.exists() else [str(python), "-m", "proctor"]


def byte_compile(python: Path) -> None:
    """Write the ``.pyc`` files of the proctor that ``python`` imports."""
    subprocess.run(
        [
            str(python),
            "-c",
            "import compileall, pathlib, proctor;"
            "compileall.compile_dir(pathlib.Path(proctor.__file__).parent, quiet=1)",
        ],
        check=True,
    )


def subjects() -> dict[str, list[str]]:
    """The proctor measured (this interpreter's) and, with ``BENCH_AGAINST=DIR`` (another
    checkout with its own ``.venv``), the one it is compared with."""
    found = {"this": proctor_of(Path(sys.executable))}
    against = os.environ.get("BENCH_AGAINST")
    if against:
        python = Path(against) / ".venv" / "bin" / "python"
        if not python.exists():
            raise SystemExit(f"BENCH_AGAINST={against}: no .venv/bin/python there")
        byte_compile(python)
        found["against"] = proctor_of(python)
    byte_compile(Path(sys.executable))
    return found


def interleaved(
    who: dict[str, list[str]], samples: int, argv: Callable[[list[str], int], list[str]]
) -> dict[str, list[float]]:
    """``samples`` timings of each subject, taken in turns so that both see the same noise."""
    times: dict[str, list[float]] = {name: [] for name in who}
    for i in range(samples):
        for name, proctor in who.items():
            times[name].append(timed(argv(proctor, i)))
    return times


def main() -> None:
    repeats = int(os.environ.get("BENCH_REPEATS", "200"))
    many_runs = int(os.environ.get("BENCH_MANY_RUNS", "3"))
    who = subjects()
    medians: dict[str, dict[str, float]] = {name: {} for name in who}

    def record(key: str, times: dict[str, list[float]], scale: float = 1.0) -> None:
        for name, values in times.items():
            medians[name][key] = scale * statistics.median(values)

    record("help_median_s", interleaved(who, 11, lambda p, i: [*p, "--help"]))
    results: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cases = trivial_case(root)

        def one(proctor: list[str], i: int) -> list[str]:
            out = root / f"o{i}-{len(proctor[0])}-{time.monotonic_ns()}"
            return [*proctor, "run", "--source", str(cases), "--out", str(out)]

        def many(proctor: list[str], i: int) -> list[str]:
            out = root / f"many-{i}-{time.monotonic_ns()}"
            argv = [*proctor, "run", "--source", str(cases), "--out", str(out)]
            return [*argv, "--repeats", str(repeats), "--concurrency", "2"]

        record("one_trial_median_s", interleaved(who, 7, one))
        record("many_per_trial_ms", interleaved(who, many_runs, many), 1000 / repeats)
        results["many_trials"] = repeats
        results.update(real_cli_overhead(root, PROCTOR))
        results.update(harness_shares(root, PROCTOR))
    results.update(medians["this"])
    targets = {"help_median_s": 0.25, "one_trial_median_s": 1.5, "many_per_trial_ms": 60}
    if "against" in medians:
        print(f"{'benchmark':28} {'measured':>10} {'against':>10} {'ratio':>7} {'target':>8}")
    else:
        print(f"{'benchmark':28} {'measured':>10} {'target':>8}")
    for key, target in targets.items():
        value = medians["this"][key]
        verdict = "ok" if value <= target else "OVER"
        if "against" in medians:
            other = medians["against"][key]
            ratio = value / other
            print(f"{key:28} {value:10.3f} {other:10.3f} {ratio:7.2f} {target:8g}  {verdict}")
        else:
            print(f"{key:28} {value:10.3f} {target:8g}  {verdict}")
    if "against" in medians:
        results["against"] = {"dir": os.environ["BENCH_AGAINST"], **medians["against"]}
    for key in (
        "real_cli_trial_ms",
        "real_cli_agent_phase_ms",
        "real_cli_own_duration_ms",
        "real_cli_harness_ms",
        "real_cli",
    ):
        if key in results:
            print(f"{key:28} {results[key]}")
    for key, value in results.items():
        if key.startswith("harness_share"):
            unit = "%" if isinstance(value, float) else ""
            verdict = ""
            if key.startswith("harness_share_own_") and isinstance(value, float):
                ok = "ok" if value < HARNESS_SHARE_TARGET else "OVER"
                verdict = f"  (target < {HARNESS_SHARE_TARGET}%: {ok})"
            print(f"{key:40} {value}{unit}{verdict}")
    shim = python_shim()
    if shim and any(k.startswith("harness_share") for k in results):
        results["python3_shim"] = shim
        print(
            f"note: python3 on PATH is a shell-script shim ({shim}): the case's own test "
            "commands pay its start-up in every trial, inside harness_share_<agent> (not "
            "harness_share_own_<agent>)"
        )
    out = Path(__file__).with_name("results")
    out.mkdir(exist_ok=True)
    (out / "latest.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
