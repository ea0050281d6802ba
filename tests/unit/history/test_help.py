"""`proctor history --help` and `proctor mark --help` name each option's value as
docs/history.md's synopsis does (`--home DIR`, `--since DATE`, `--at TIME`), not by the type
the parser happens to read it as (`--home PATH` beside a text that speaks of DIR)."""

from __future__ import annotations

from click.testing import CliRunner

from proctor.cli.main import cli


def _help(*args: str) -> str:
    result = CliRunner().invoke(cli, [*args, "--help"])
    assert result.exit_code == 0, result.output
    return result.output


def test_history_help_names_values_as_the_docs_do() -> None:
    text = _help("history")
    for shown in ("--home DIR", "--project PATH", "--since DATE", "--until DATE"):
        assert shown in text
    assert "--home PATH" not in text and "TEXT" not in text


def test_mark_help_names_values_as_the_docs_do() -> None:
    text = _help("mark")
    assert (
        "--at TIME" in text and "--project PATH" in text and "TEXT" not in text.split("Options:")[1]
    )
