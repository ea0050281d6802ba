"""Very large advice: checked in time that grows with its length, listed within bounds, and an
advisor that prints without end stopped at a bound rather than filling the disk."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from proctor.addons.grounding import (
    AdvisorSettings,
    CheckpointFile,
    GroundingReport,
    check_grounding,
    exit_code,
    render_text,
    select_all,
)
from proctor.addons.grounding import figures as figures_module
from proctor.addons.grounding import runner as runner_module
from proctor.exit_codes import ExitCode
from proctor.util.processes import run_captured

SIGNALS = {"tokensSoFar": 48210}


def run(command: str) -> GroundingReport:
    file = CheckpointFile.model_validate({"checkpoints": [{"id": "cp", "signals": SIGNALS}]})
    settings = AdvisorSettings(command=command, parent_env={"PATH": os.environ["PATH"]})
    return check_grounding(file, select_all(file), settings)


def test_many_ungrounded_figures_are_counted_all_and_listed_within_bounds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sentences = 0
    real = figures_module.sentence_around

    def counting(*args: object, **kwargs: object) -> str:
        nonlocal sentences
        sentences += 1
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(figures_module, "sentence_around", counting)
    (result,) = run("cat >/dev/null; for i in $(seq 500); do printf 'word 15 '; done").results
    assert result.ungrounded_count == 500
    assert len(result.ungrounded) == runner_module.LISTED_FIGURES == 100
    assert sentences == 100  # a sentence is looked for only for the figures listed
    text = render_text(run("cat >/dev/null; for i in $(seq 500); do printf 'word 15 '; done"))
    assert "FAIL  cp (no waste): 500 ungrounded figures" in text
    assert text.count("        15 in:") == 10
    assert "… and 490 more (--json lists the first 100)" in text


def test_a_few_more_than_shown_say_json_lists_them_all() -> None:
    text = render_text(run("cat >/dev/null; echo 'word 15 ' 'word 15 ' | sed 's/.*/&&&&&&/'"))
    assert "12 ungrounded figures" in text and "… and 2 more (--json lists all)" in text


def test_matching_figures_against_many_signals_does_not_compare_every_pair(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = 0
    real = figures_module._close

    def counting(target: float, value: float, tolerance: float) -> bool:
        nonlocal calls
        calls += 1
        return real(target, value, tolerance)

    monkeypatch.setattr(figures_module, "_close", counting)
    signals = {"values": [float(n) for n in range(10, 3010)]}
    advice = " ".join(f"{n}.5 and {n}" for n in range(10, 3010))
    found = figures_module.ungrounded_figures(advice, signals)
    assert [u.figure for u in found[:2]] == ["10.5", "11.5"] and len(found) == 3000
    assert calls < 20 * 6000  # a few neighbours each, not 6000 × 3000 pairs


def test_an_advisor_printing_without_end_is_stopped_at_the_bound_not_the_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(runner_module, "ADVICE_LIMIT_BYTES", 1024 * 1024)
    report = run("cat >/dev/null; yes 'word 15'")
    (result,) = report.results
    assert result.error == (
        "the advisor printed more than 1 MiB of advice and was stopped there "
        "(its first 1 MiB are kept)"
    )
    assert len(result.advice) <= 1024 * 1024 and result.advice.startswith("word 15")
    assert exit_code(report) == ExitCode.TRIAL_ERRORS


def test_run_captured_keeps_bounded_output_off_the_disk(tmp_path: Path) -> None:
    outcome = run_captured(
        ["/bin/sh", "-c", "yes 'err' >&2 & yes 'out'"],
        cwd=tmp_path,
        env={**os.environ, "TMPDIR": str(tmp_path)},
        timeout=30,
        output_limit=4096,
    )
    assert outcome.stdout_cut and not outcome.timed_out
    assert outcome.stdout == "out\n" * 1024
    assert len(outcome.stderr.encode()) <= 4096


def test_run_captured_with_a_bound_keeps_a_stderr_tail_and_the_exit(tmp_path: Path) -> None:
    command = "head -c 100000 /dev/zero | tr '\\0' x >&2; echo last >&2; echo done; exit 4"
    outcome = run_captured(
        ["/bin/sh", "-c", command], cwd=tmp_path, env=None, timeout=30, output_limit=4096
    )
    assert (outcome.returncode, outcome.stdout, outcome.stdout_cut) == (4, "done\n", False)
    assert outcome.stderr.endswith("xxlast\n") and len(outcome.stderr) == 4096
