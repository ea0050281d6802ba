"""How a file-system error the user cannot work around is named."""

from __future__ import annotations

import errno
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from proctor.cli.main import _written_path


def test_the_file_named_is_the_one_being_written_not_its_temporary_copy() -> None:
    made = OSError(errno.EACCES, "Permission denied", "/r/run-1/.junit.xml.a1b2c3d4.tmp")
    assert _written_path(made) == "/r/run-1/junit.xml"
    renamed = OSError(errno.EISDIR, "Is a directory", "/r/.suite.json.zzzzzzzz.tmp", None, "/r/s")
    assert _written_path(renamed) == "/r/s"
    plain = OSError(errno.ENOSPC, "No space left on device", "/r/trial.json")
    assert _written_path(plain) == "/r/trial.json"
    assert _written_path(OSError(errno.ENOSPC, "No space left on device")) is None


def test_ctrl_c_while_the_command_is_loading_is_an_interrupt_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.abc
    import sys

    from proctor.cli import entry
    from proctor.exit_codes import ExitCode

    class Interrupted(importlib.abc.MetaPathFinder):
        def find_spec(self, name: str, *args: object) -> None:
            if name == "proctor.cli.main":
                raise KeyboardInterrupt

    monkeypatch.delitem(sys.modules, "proctor.cli.main")
    monkeypatch.setattr(sys, "meta_path", [Interrupted(), *sys.meta_path])
    with pytest.raises(SystemExit) as stopped:
        entry.main(["--version"])
    assert stopped.value.code == entry.INTERRUPTED == ExitCode.INTERRUPTED
    assert capsys.readouterr().err == "proctor: error: interrupted\n"


@pytest.mark.parametrize(
    ("argv", "sentence"),
    [
        (
            ["history", "--bogus"],
            "proctor: error: No such option '--bogus' (usage: proctor history [OPTIONS] "
            "[PATHS]...; `proctor history --help` says more)\n",
        ),
        (
            ["findings", "dismiss", "4ade"],
            "proctor: error: Missing option '--reason' (usage: proctor findings dismiss "
            "[OPTIONS] ID; `proctor findings dismiss --help` says more)\n",
        ),
        (
            ["history", "--by", "year"],
            "proctor: error: Invalid value for '--by': 'year' is not one of 'project', 'day', "
            "'week', 'month', 'agent' (usage: proctor history [OPTIONS] [PATHS]...; `proctor "
            "history --help` says more)\n",
        ),
        (
            ["run", "--repeat-check", "abc"],
            "proctor: error: Invalid value for '--repeat-check': 'abc' is not a whole number "
            "(usage: proctor run [OPTIONS]; `proctor run --help` says more)\n",
        ),
        (
            ["history", "--workers", "two"],
            "proctor: error: Invalid value for '--workers': 'two' is not a whole number "
            "(usage: proctor history [OPTIONS] [PATHS]...; `proctor history --help` says "
            "more)\n",
        ),
        (
            ["history", "--home", "/dev/null"],
            "proctor: error: Invalid value for '--home': /dev/null is not a folder (usage: "
            "proctor history [OPTIONS] [PATHS]...; `proctor history --help` says more)\n",
        ),
        (  # Click's "No such option '--nope'. (Did you mean one of: …?)": one sentence
            ["run", "--sourc", "x"],
            "proctor: error: No such option '--sourc' (did you mean '--source', '--source-root' "
            "or '--src'? usage: proctor run [OPTIONS]; `proctor run --help` says more)\n",
        ),
        (
            ["history", "--projct", "x"],
            "proctor: error: No such option '--projct' (did you mean '--project'? usage: "
            "proctor history [OPTIONS] [PATHS]...; `proctor history --help` says more)\n",
        ),
        (
            ["histroy"],
            "proctor: error: No such command 'histroy' (did you mean 'history'? usage: proctor "
            "[OPTIONS] COMMAND [ARGS]...; `proctor --help` says more)\n",
        ),
        (
            ["xyzzy"],
            "proctor: error: No such command 'xyzzy' (usage: proctor [OPTIONS] COMMAND "
            "[ARGS]...; `proctor --help` says more)\n",
        ),
        (  # Click's parser raises this one without naming the command
            ["run", "--executor"],
            "proctor: error: Option '--executor' requires an argument (usage: proctor run "
            "[OPTIONS]; `proctor run --help` says more)\n",
        ),
        (
            ["findings", "dismiss", "x", "--reason"],
            "proctor: error: Option '--reason' requires an argument (usage: proctor findings "
            "dismiss [OPTIONS] ID; `proctor findings dismiss --help` says more)\n",
        ),
        (  # a repeatable option given several values at once: how to repeat it
            ["audit", "--agent", "codex", "gemini", "--json"],
            "proctor: error: Got unexpected extra argument (gemini) (did you mean '--agent "
            "codex --agent gemini'? --agent takes one value, so give it once for each; usage: "
            "proctor audit [OPTIONS]; `proctor audit --help` says more)\n",
        ),
        (
            ["addon", "check-install", "--install", "true", "--agent=claude", "codex", "gemini"],
            "proctor: error: Got unexpected extra arguments (codex gemini) (did you mean "
            "'--agent claude --agent codex --agent gemini'? --agent takes one value, so give it "
            "once for each; usage: proctor addon check-install [OPTIONS]; `proctor addon "
            "check-install --help` says more)\n",
        ),
        (  # control: an extra word after an option that takes one value only
            ["audit", "--home", "/tmp", "extra"],
            "proctor: error: Got unexpected extra argument (extra) (usage: proctor audit "
            "[OPTIONS]; `proctor audit --help` says more)\n",
        ),
        (  # the first fix is CASE, which Click used: the second alone is extra
            ["record", "--workspace", "w", "--reporter", "md", "fix", "fix"],
            "proctor: error: Got unexpected extra argument (fix) (usage: proctor record "
            "[OPTIONS] CASE; `proctor record --help` says more)\n",
        ),
        (
            ["record", "--workspace", "w", "--reporter", "md", "cases/fix", "cases/fix-typo"],
            "proctor: error: Got unexpected extra argument (cases/fix-typo) (usage: proctor "
            "record [OPTIONS] CASE; `proctor record --help` says more)\n",
        ),
        (  # CASE before the option: the word after its value is extra
            ["record", "--workspace", "w", "fix", "--reporter", "md", "json"],
            "proctor: error: Got unexpected extra argument (json) (did you mean '--reporter md "
            "--reporter json'? --reporter takes one value, so give it once for each; usage: "
            "proctor record [OPTIONS] CASE; `proctor record --help` says more)\n",
        ),
        (  # after --, a word is no option's value
            ["audit", "--agent", "codex", "--", "gemini"],
            "proctor: error: Got unexpected extra argument (gemini) (usage: proctor audit "
            "[OPTIONS]; `proctor audit --help` says more)\n",
        ),
        (  # a group's repeatable option: the next value is taken for a command
            ["agents", "--agent", "scripted", "claude-code", "codex", "--json"],
            "proctor: error: No such command 'claude-code' (did you mean '--agent scripted "
            "--agent claude-code --agent codex'? --agent takes one value, so give it once for "
            "each; usage: proctor agents [OPTIONS] [COMMAND] [ARGS]...; `proctor agents --help` "
            "says more)\n",
        ),
        (
            ["agents", "--check", "claude-code"],
            "proctor: error: No such command 'claude-code' (usage: proctor agents [OPTIONS] "
            "[COMMAND] [ARGS]...; `proctor agents --help` says more)\n",
        ),
    ],
)
def test_a_usage_error_is_one_sentence_with_the_usage_and_exit_2(
    argv: list[str], sentence: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from proctor.cli.main import main

    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", sentence)


def test_no_command_at_all_shows_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    from proctor.cli.main import main

    with pytest.raises(SystemExit) as stopped:
        main([])
    assert stopped.value.code == 2
    assert "Commands:" in capsys.readouterr().err


def test_an_error_sentence_masks_every_registered_key(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sentence quoting the user's value (a key pasted where a path belongs) is printed
    with the key masked, as everything else proctor prints."""
    from proctor.cli.main import main
    from proctor.util import masking

    key = "sk-ant-api03-ERRORLEAK0123456789abcdef"
    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(key)
    with pytest.raises(SystemExit):
        main(["report", f"/nowhere/{key}"])
    err = capsys.readouterr().err
    assert "proctor: error:" in err and "***" in err and key[:14] not in err


def test_mirror_with_the_ray_executor_is_refused_before_anything_runs(
    proctor: Callable[..., Any], tmp_path: Path
) -> None:
    """A Ray trial's terminal is on its node and is never streamed to the driver: --mirror with
    --executor ray is refused (exit 2) rather than run without the mirror it asked for."""
    examples = Path(__file__).parents[3] / "examples" / "cases"
    args = ("run", "--source", str(examples), "--case", "fix-a-bug", "--out", str(tmp_path))
    refused = proctor(*args, "--executor", "ray", "--mirror")
    assert refused.code == 2
    assert "--mirror streams the terminals of trials on this machine" in refused.err
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_before_any_trial_says_interrupted_without_a_blank_line_before(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    number: int,
) -> None:
    """A SIGTERM while `validate` (or `run`, before its first trial) planned printed a blank
    line (Click's, closing a terminal's ^C echo) before `proctor: error: interrupted`."""
    import os

    import proctor.plan.resolve
    from proctor.cli.main import main
    from proctor.exit_codes import ExitCode

    def stopped(*args: object, **kwargs: object) -> None:
        os.kill(os.getpid(), number)  # raised as KeyboardInterrupt where it lands

    monkeypatch.setattr(proctor.plan.resolve, "load_run_plan", stopped)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as ended:
        main(["validate", "--source", str(tmp_path)])
    assert ended.value.code == ExitCode.INTERRUPTED
    assert capsys.readouterr().err == "proctor: error: interrupted\n"


def test_a_second_ctrl_c_while_the_interruption_is_said_is_no_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Ctrl-C pressed twice while the command still loads: the second landed while `proctor:
    error: interrupted` imported what it needs, and ended proctor with that import's traceback."""
    import os

    import proctor.cli.main
    import proctor.plan.resolve
    from proctor.exit_codes import ExitCode

    def stopped(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    saying = proctor.cli.main.error

    def pressed_again(message: str) -> None:
        os.kill(os.getpid(), signal.SIGINT)  # the second Ctrl-C, as the sentence is made
        saying(message)

    monkeypatch.setattr(proctor.plan.resolve, "load_run_plan", stopped)
    monkeypatch.setattr(proctor.cli.main, "error", pressed_again)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as ended:
        proctor.cli.main.main(["validate", "--source", str(tmp_path)])
    assert ended.value.code == ExitCode.INTERRUPTED
    assert capsys.readouterr().err == "proctor: error: interrupted\n"
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN  # until the process exits
