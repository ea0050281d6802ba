"""--mirror streams the agent's terminal; progress is a bar on a terminal, lines elsewhere."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from proctor.cli.display import BarProgress, PlainProgress
from proctor.execute.events import RunFinished, RunStarted, TrialFinished, TrialStarted
from proctor.models.trial import TrialRecord
from tests.conftest import write_case


def run_cases(tmp_path: Path, *options: str, **env: str) -> subprocess.CompletedProcess[bytes]:
    """``proctor run`` of ``tmp_path/cases`` in a process of its own, with ``env`` added."""
    return subprocess.run(
        [sys.executable, "-m", "proctor", "run", *options, "--source", str(tmp_path / "cases"),
         "--out", str(tmp_path / "out")],
        capture_output=True,
        timeout=60,
        env={**os.environ, **env},
    )  # fmt: skip


def test_mirror_streams_the_agent_terminal(tmp_path: Path) -> None:
    write_case(tmp_path / "cases", "m", plan={"turns": [{"say": "visible on the mirror"}]})
    proc = run_cases(tmp_path, "--mirror")
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"visible on the mirror" in proc.stderr
    assert b"scripted agent" in proc.stderr
    # stdout holds the one report a script parses, the terminal's stream on stderr.
    assert proc.stdout.startswith(b"# proctor run ") and b"scripted agent" not in proc.stdout


def test_the_mirror_masks_every_key_the_agent_shows(tmp_path: Path) -> None:
    """The mirrored terminal is printed as it comes, with every registered key masked (the
    files were; the live stream was not)."""
    key = "sk-ant-api03-MIRRORLEAK0123456789abcdef"
    write_case(  # the key in a file of the workspace: the plan itself is masked
        tmp_path / "cases",
        "m",
        plan={"turns": [{"shell": "echo the key is $(cat k.txt) here"}]},
        src={"k.txt": key},
    )
    proc = run_cases(tmp_path, "--mirror", ANTHROPIC_API_KEY=key)
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"the key is *** here" in proc.stderr.replace(b"\r\n", b" ").replace(b"\n", b" ")
    assert key[:12].encode() not in proc.stderr + proc.stdout


def test_a_stream_mask_holds_back_only_what_could_begin_a_key() -> None:
    from proctor.util import masking, terminal_masking

    saved = set(masking._SECRETS)
    masking._SECRETS.clear()
    try:
        masking.register_secret("sk-SPLITKEY-123")
        stream = terminal_masking.StreamMask()
        chunks = [b"a sk-SPL", b"ITKEY-1", b"23 b sk", b"-x end"]
        out = b"".join(stream.feed(c) for c in chunks) + stream.flush()
        assert out == b"a *** b sk-x end"
        assert stream.feed(b"plain text") == b"plain text"  # nothing held without a start
    finally:
        masking._SECRETS.clear()
        masking._SECRETS.update(saved)


def _events() -> list[object]:
    ok = TrialRecord(case="c", agent="a", repeat=1, status="passed", score=100)
    bad = TrialRecord(case="c", agent="a", repeat=2, status="timeout", score=0, reason="slow")
    return [
        RunStarted(2),
        TrialStarted("c", "a", "default", 1),
        TrialFinished(ok),
        TrialFinished(bad),
        RunFinished(2, False),
    ]


def test_plain_progress_prints_one_line_per_trial() -> None:
    stream = io.StringIO()
    display = PlainProgress(stream)
    for event in _events():
        display(event)  # type: ignore[arg-type]
    lines = stream.getvalue().splitlines()
    assert lines == [
        "proctor: running 2 trials",
        "[1/2] passed c/a/default/1 (score 100)",
        "[2/2] timeout c/a/default/2 (score 0): slow",
    ]


def test_plain_progress_shows_a_label_s_line_break_and_escape_sequence_on_one_line() -> None:
    stream = io.StringIO()
    display = PlainProgress(stream)
    reason = "gate 'fl\nag \x1b[31mRED' failed"
    odd = TrialRecord(case="c", agent="a", repeat=1, status="failed", score=0, reason=reason)
    for event in (RunStarted(1), TrialFinished(odd)):
        display(event)  # type: ignore[arg-type]
    lines = stream.getvalue().splitlines()
    assert lines[1] == "[1/1] failed c/a/default/1 (score 0): gate 'fl ag \\x1b[31mRED' failed"
    assert "\x1b" not in stream.getvalue()


def test_a_trial_s_warnings_follow_its_line_quietly() -> None:
    """A warning decides nothing: it is a line below the trial's (plain) or above the bar,
    and the trial still counts as passed."""
    said = "the plan has 2 turns (split by endTurn) and the case sent 1 message"
    warned = TrialRecord(case="c", agent="a", repeat=1, status="passed", score=100)
    warned.warnings = [said, "second\nline"]
    stream = io.StringIO()
    plain = PlainProgress(stream)
    for event in (RunStarted(1), TrialFinished(warned)):
        plain(event)  # type: ignore[arg-type]
    assert stream.getvalue().splitlines()[1:] == [
        "[1/1] passed c/a/default/1 (score 100)",
        f"    warning: {said}",
        "    warning: second line",
    ]
    bar = BarProgress()
    bar.progress.console.file = shown = io.StringIO()
    for event in (RunStarted(1), TrialFinished(warned), RunFinished(1, False)):
        bar(event)  # type: ignore[arg-type]
    assert f"warning: c/a/default/1: {said}" in shown.getvalue()
    assert bar.counts == {"passed": 1, "failed": 0, "errors": 0}


def test_bar_progress_counts_outcomes() -> None:
    display = BarProgress()
    display.progress.console.file = io.StringIO()
    for event in _events():
        display(event)  # type: ignore[arg-type]
    assert display.counts == {"passed": 1, "failed": 1, "errors": 0}
    assert display.progress.tasks[0].completed == 2


def test_cost_warnings_once_per_model_and_once_for_the_budget() -> None:
    from proctor.cli.display import CostWarnings
    from proctor.models.trial import CostInfo

    stream = io.StringIO()
    warn = CostWarnings(budget_usd=1.0, stream=stream)
    for _ in range(3):
        record = TrialRecord(
            case="c",
            agent="a",
            repeat=1,
            status="passed",
            cost=CostInfo(by_model={"priced": 0.6, "free": None}, unpriced=["free"]),
        )
        warn(TrialFinished(record))
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    assert "no price for model 'free'" in lines[0]
    assert "passed the budget of $1.00; the run goes on" in lines[1]
    # A budget under a cent is shown to its digits, not as $0.00.
    small = io.StringIO()
    warn = CostWarnings(budget_usd=0.0001, stream=small)
    record = TrialRecord(
        case="c", agent="a", repeat=1, status="passed", cost=CostInfo(by_model={"m": 0.00345})
    )
    warn(TrialFinished(record))
    assert "estimated cost $0.0034 passed the budget of $0.0001" in small.getvalue()


def test_the_budget_counts_the_attempts_a_retry_ran_and_the_priced_part_of_a_cost(
    tmp_path: Path,
) -> None:
    """What a trial spent is what the run's cost counts: its earlier attempts' too, and the
    priced models of a cost whose total is unknown (an unpriced model beside them), live and
    in what a resume counts as spent before."""
    from proctor.cli.display import CostWarnings, spent_before
    from proctor.models.io import write_record
    from proctor.models.trial import AttemptRecord, CostInfo
    from proctor.paths import RunPaths

    cost = CostInfo(total_usd=None, by_model={"priced": 0.6, "free": None}, unpriced=["free"])
    attempt = AttemptRecord(status="infra-error", reason="r", folder="attempts/1", cost=cost)
    record = TrialRecord(
        case="c", agent="a", repeat=1, status="passed", cost=cost, attempts=[attempt]
    )
    stream = io.StringIO()
    CostWarnings(budget_usd=1.0, stream=stream)(TrialFinished(record))
    assert "estimated cost $1.20 passed the budget of $1.00" in stream.getvalue()
    run = RunPaths(tmp_path / "run")
    trial = run.trial("c", "a", "default", 1)
    trial.root.mkdir(parents=True)
    write_record(trial.trial_json, record)
    assert spent_before(run.root) == pytest.approx(1.2)


def test_a_key_the_terminal_wraps_is_masked_in_the_screen_the_trial_keeps(tmp_path: Path) -> None:
    """The scripted agent's terminal is 160 columns: a line that puts a key across its edge
    left the key in screen.log split over two lines, which masking whole keys never found."""
    key = "sk-ant-api03-WRAPLEAK0123456789abcdefgh"
    write_case(
        tmp_path / "cases",
        "w",
        plan={"turns": [{"shell": "cat k.txt"}]},
        src={"k.txt": "p" * 150 + key + "\n"},
    )
    proc = run_cases(tmp_path, ANTHROPIC_API_KEY=key)
    assert proc.returncode == 0, proc.stderr.decode()
    (screen,) = (tmp_path / "out").glob("run-*/trials/w/*/*/*/screen.log")
    text = screen.read_text()
    assert "pppp" in text and "***" in text
    joined = text.replace("\n", "")
    assert not any(key[n : n + 12] in joined for n in range(len(key) - 11)), text[-400:]


def test_a_ci_log_hears_a_heartbeat_while_a_long_trial_runs(tmp_path: Path) -> None:
    """Plain progress says what is still running after PROCTOR_HEARTBEAT_SEC seconds without
    a line (a minute unless set), on stderr: stdout keeps the one JSON report."""
    import json

    write_case(tmp_path / "cases", "long", plan={"turns": [{"shell": "sleep 3"}]})
    proc = run_cases(tmp_path, "--json", PROCTOR_HEARTBEAT_SEC="1", CI="true")
    err = proc.stderr.decode()
    assert proc.returncode == 0, err
    beats = [line for line in err.splitlines() if "running, the longest" in line]
    assert beats and beats[0].startswith("proctor: 1 trial running, the longest for "), err
    assert beats[0].endswith(": long/scripted/default/1"), err
    assert json.loads(proc.stdout)["exitCode"] == 0  # nothing of it on stdout
    quiet = run_cases(tmp_path, PROCTOR_HEARTBEAT_SEC="0", CI="true")
    assert quiet.returncode == 0 and b"running, the longest" not in quiet.stderr


def test_the_model_the_scripted_agent_was_given_has_no_price_warning() -> None:
    """The scripted agent only writes the model's name into its transcript: the model is
    warned of before the run, its price would be noise. The same model on another agent, or
    a model the scripted agent's plan names itself, is warned of still."""
    from proctor.cli.display import CostWarnings
    from proctor.models.trial import CostInfo

    stream = io.StringIO()
    warn = CostWarnings(budget_usd=None, stream=stream)
    for agent, model, unpriced in (
        ("scripted", "opus", "opus"),
        ("scripted", None, "plan-model"),
        ("claude-code", "opus", "opus"),
    ):
        record = TrialRecord(
            case="c",
            agent=agent,
            repeat=1,
            status="passed",
            agent_model=model,
            cost=CostInfo(by_model={unpriced: None}, unpriced=[unpriced]),
        )
        warn(TrialFinished(record))
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2, lines
    assert "no price for model 'plan-model'" in lines[0]
    assert "no price for model 'opus'" in lines[1]
