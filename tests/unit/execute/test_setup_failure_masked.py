"""A failing setup line's error quotes the end of its output with every registered key masked
before the cut: a key the cut would split (the output's end reached past it once the keys
after it were masked) shows no part of it, in a trial and in a prepared session alike."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from proctor.errors import ConfigError, ProctorError, WorkspaceError
from proctor.execute.prepare import shell_lines
from proctor.session import manual
from proctor.util import masking

KEY = "sk-ant-api03-" + "Q" * 87  # 100 characters


@pytest.fixture(autouse=True)
def secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(KEY)


def straddling_line(tmp_path: Path) -> str:
    """A line that prints a key 60 characters of which are in the output's last 2000, then
    the key 19 times and 40 characters: masked, the end is short enough to show them all."""
    script = tmp_path / "out.py"
    script.write_text(
        f"import sys\nk = {KEY!r}\nsys.stdout.write('A' * 50 + k + k * 19 + 'x' * 40)\n"
        "sys.exit(3)\n"
    )
    return f"python3 {script}"


def shows_part_of_the_key(text: str) -> bool:
    return any(KEY[:n] in text or KEY[-n:] in text for n in range(8, len(KEY) + 1))


def test_a_trials_failing_setup_line_shows_no_part_of_a_key(tmp_path: Path) -> None:
    trial = tmp_path / "trial"
    trial.mkdir()
    paths = SimpleNamespace(stdout_log=trial / "stdout.log", stderr_log=trial / "stderr.log")
    ctx = SimpleNamespace(workspace=tmp_path, paths=paths)
    with pytest.raises(WorkspaceError) as raised:
        shell_lines(ctx, {"PATH": "/usr/bin:/bin"}, "setup", [straddling_line(tmp_path)])  # type: ignore[arg-type]
    message = str(raised.value)
    assert "exited 3: " in message and message.endswith("***" * 19 + "x" * 40)
    assert not shows_part_of_the_key(message), message


def test_a_prepared_sessions_failing_setup_line_shows_no_part_of_a_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = SimpleNamespace(fixture=None, fixture_kind=None, path=tmp_path / "c")
    spec = SimpleNamespace(
        case=SimpleNamespace(name="c", case=case, setup=[straddling_line(tmp_path)])
    )
    plan = SimpleNamespace(cases=[])
    monkeypatch.setattr(manual, "plan_one", lambda *_: (plan, spec))
    with pytest.raises(ProctorError) as raised:
        manual.prepare_session(
            "c",
            "base",
            source=tmp_path,
            config=None,
            agent="scripted",
            out=tmp_path / "out",
            configure_mcp=False,
        )
    assert isinstance(raised.value, ConfigError)
    message = str(raised.value)
    assert "exited 3: " in message
    assert message.endswith("***" * 19 + "x" * 40 + "; nothing was prepared")
    assert not shows_part_of_the_key(message), message
