"""Running a real advisor process: what it reads, what it sees, how it ends, and the verdict."""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
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
from proctor.exit_codes import ExitCode

SIGNALS = {"tokensSoFar": 48210, "redundantReads": 14, "nested": {"contextUsed": 0.71}}
PARENT_ENV = {
    "PATH": os.environ["PATH"],
    "FOO_TOKEN": "token-value-123456",
    "OPENAI_API_KEY": "sk-should-never-pass",
    "PLAIN": "plain-value",
    "HOME": "/the/real/home",
}


def checkpoints(*signals: dict[str, object]) -> CheckpointFile:
    items = [{"id": f"cp{i}", "signals": s} for i, s in enumerate(signals or (SIGNALS,))]
    return CheckpointFile.model_validate({"checkpoints": items})


def run(command: str, file: CheckpointFile | None = None, **kwargs: object) -> GroundingReport:
    file = file or checkpoints()
    settings = AdvisorSettings(command=command, parent_env=PARENT_ENV, **kwargs)  # type: ignore[arg-type]
    return check_grounding(file, select_all(file), settings)


def test_the_advisor_reads_exactly_the_signals_on_stdin(tmp_path: Path) -> None:
    seen = tmp_path / "stdin.json"
    report = run(f"cat > {shlex.quote(str(seen))}; echo 'Nothing to add.'", cwd=tmp_path)
    assert json.loads(seen.read_text()) == SIGNALS
    assert report.ok and report.results[0].advice == "Nothing to add."


def test_the_advisor_sees_no_secret_and_no_real_home(tmp_path: Path) -> None:
    command = 'printf "%s|%s|%s|%s" "$FOO_TOKEN" "$OPENAI_API_KEY" "$PLAIN" "$HOME"'
    (result,) = run(command, cwd=tmp_path).results
    token, key, plain, home = result.advice.split("|")
    assert (token, key, plain) == ("", "", "plain-value")
    assert home != "/the/real/home" and "proctor-grounding-" in home


def test_a_forwarded_variable_reaches_the_advisor_and_is_masked_in_the_advice(
    tmp_path: Path,
) -> None:
    (result,) = run('printf "key=%s" "$FOO_TOKEN"', cwd=tmp_path, forward=("FOO_TOKEN",)).results
    assert result.advice == "key=***"


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("correcthorsebatterystaple", "key=***"),  # lowercase letters: named, so masked
        ("Ab1x9", "key=***"),  # short, but named
        ("abc", "key=abc"),  # the control: too short to mask without hiding figures
    ],
)
def test_a_value_named_with_env_is_masked_whatever_its_letters(
    tmp_path: Path, value: str, shown: str
) -> None:
    settings = AdvisorSettings(
        command='printf "key=%s" "$MY_TOKEN"',
        parent_env={**PARENT_ENV, "MY_TOKEN": value},
        cwd=tmp_path,
        forward=("MY_TOKEN",),
    )
    file = checkpoints()
    (result,) = check_grounding(file, select_all(file), settings).results
    assert result.advice == shown


def test_grounded_advice_passes_and_an_invented_figure_fails_on_the_same_checkpoint(
    tmp_path: Path,
) -> None:
    good = run("echo 'You re-read files 14 times; 71% of the context is used.'", cwd=tmp_path)
    bad = run("echo 'You wasted 4,200 tokens re-reading files.'", cwd=tmp_path)
    assert good.ok and exit_code(good) == ExitCode.OK
    assert not bad.ok and exit_code(bad) == ExitCode.GATE_FAILED
    (figure,) = bad.results[0].ungrounded
    assert (figure.figure, figure.text) == ("4,200", "You wasted 4,200 tokens re-reading files.")


def test_each_checkpoint_is_judged_on_its_own_signals(tmp_path: Path) -> None:
    script = tmp_path / "advisor.py"
    script.write_text("print('You re-read files 14 times.')\n")
    file = checkpoints({"redundantReads": 14}, {"redundantReads": 3})
    report = run(f"{shlex.quote(sys.executable)} {script}", file, cwd=tmp_path)
    assert [r.ok for r in report.results] == [True, False]
    assert (report.checked, report.failed) == (2, 1)


def test_a_non_zero_exit_is_an_error_never_a_pass(tmp_path: Path) -> None:
    report = run("echo 'fine'; echo 'boom' >&2; exit 4", cwd=tmp_path)
    (result,) = report.results
    assert not result.ok and result.error == "the advisor exited 4: boom"
    assert exit_code(report) == ExitCode.TRIAL_ERRORS


def test_a_slow_advisor_times_out_as_an_error(tmp_path: Path) -> None:
    started = time.monotonic()
    report = run("sleep 20", cwd=tmp_path, timeout=0.5)
    assert time.monotonic() - started < 10
    assert report.results[0].error == "the advisor ran past 0.5s"
    assert exit_code(report) == ExitCode.TRIAL_ERRORS


def test_an_ungrounded_figure_outweighs_an_advisor_error(tmp_path: Path) -> None:
    file = checkpoints({"n": 1}, {"n": 2})
    report = run('if grep -q 1; then echo "99 calls"; else exit 2; fi', file, cwd=tmp_path)
    assert (report.failed, report.errors) == (1, 1)
    assert exit_code(report) == ExitCode.GATE_FAILED


def test_processes_the_advisor_leaves_behind_are_killed(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    run(f"sleep 60 & echo $! > {shlex.quote(str(pid_file))}; echo done", cwd=tmp_path)
    pid = int(pid_file.read_text())
    for _ in range(50):
        if not _alive(pid):
            break
        time.sleep(0.1)
    assert not _alive(pid)


def test_the_advisor_s_temporary_files_go_with_its_scratch_even_after_ctrl_c(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import proctor.addons.grounding.runner as runner

    users = tmp_path / "user-tmp"  # the user's TMPDIR
    users.mkdir()
    real = runner.run_captured

    def interrupted(*args: object, **kwargs: object) -> object:
        real(*args, **kwargs)  # type: ignore[arg-type]
        raise KeyboardInterrupt  # Ctrl-C once the advisor has left its files

    monkeypatch.setattr(runner, "run_captured", interrupted)
    seen = tmp_path / "seen"
    command = f'echo "$TMPDIR" > {shlex.quote(str(seen))}; mkdir "$TMPDIR/x" && touch "$TMPDIR/x/y"'
    settings = AdvisorSettings(
        command=command, cwd=tmp_path, parent_env={**PARENT_ENV, "TMPDIR": str(users)}
    )
    file = checkpoints()
    with pytest.raises(KeyboardInterrupt):
        check_grounding(file, select_all(file), settings)
    temp = Path(seen.read_text().strip())
    assert "proctor-grounding-" in str(temp) and not temp.exists()
    assert list(users.iterdir()) == []


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_nothing_run_cannot_pass() -> None:
    empty = CheckpointFile.model_validate({"checkpoints": []})
    report = check_grounding(empty, select_all(empty), AdvisorSettings(command="true"))
    assert not report.ok and exit_code(report) == ExitCode.GATE_FAILED
    assert "cannot pass without running" in render_text(report)


@pytest.mark.parametrize("words", ["whether the advice is good", "figures below 10"])
def test_the_report_says_what_it_does_not_judge(tmp_path: Path, words: str) -> None:
    report = run("echo fine", cwd=tmp_path)
    assert any(words in item for item in report.not_judged)
    assert words in render_text(report)


def test_the_package_exports_exactly_its_public_names() -> None:
    import proctor.addons.grounding as grounding

    assert sorted(grounding.__all__) == sorted(
        name for name in vars(grounding) if not name.startswith("_") and name not in MODULES
    )


MODULES = {"checkpoints", "figures", "from_run", "report", "runner"}


def test_a_long_stderr_is_cut_to_whole_last_lines_and_shown_indented(tmp_path: Path) -> None:
    """A traceback's tail, never cut mid-line ('adv/fmt.py", line 3, in <module>'); its last
    line, what broke, always there; the lines under the first indented in the text."""
    script = tmp_path / "advisor.py"
    script.write_text(
        "import sys\n"
        "sys.stdin.read()\n"
        "for i in range(40):\n"
        "    print(f'  File \"/some/long/path/to/the/advisor/module_{i}.py\", line {i}', "
        "file=sys.stderr)\n"
        "print('TypeError: unsupported format string', file=sys.stderr)\n"
        "sys.exit(1)\n"
    )
    report = run(f"{shlex.quote(sys.executable)} {script}", cwd=tmp_path)
    error = report.results[0].error
    assert error is not None and error.startswith('the advisor exited 1:   File "/some/')
    assert error.endswith("\nTypeError: unsupported format string")
    lines = render_text(report).splitlines()
    (at,) = [i for i, line in enumerate(lines) if line.startswith("  ERROR cp0 ")]
    assert lines[at + 1].startswith('          File "/some/long/path')
    one = run("echo x; printf '%0400d' 7 >&2; exit 2", cwd=tmp_path).results[0].error
    assert one is not None and one.startswith("the advisor exited 2: …000") and one.endswith("7")


def test_a_checkpoint_the_advisor_said_nothing_on_is_shown_so(tmp_path: Path) -> None:
    file = checkpoints({"n": 12}, {"n": 13})
    report = run('if grep -q 12; then echo "12 calls"; fi', file, cwd=tmp_path)
    lines = render_text(report).splitlines()
    assert "  ok    cp0 (no waste)" in lines and "  ok    cp1 (no waste): no advice" in lines
