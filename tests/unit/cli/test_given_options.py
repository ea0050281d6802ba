"""Which options a command was given that change something (what `run --resume` refuses)."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from proctor.cli.options import given_options, source_option


@click.command()
@source_option
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local")
@click.option("--repeats", type=int, envvar="TEST_PROCTOR_REPEATS")
@click.option("--tag", "tags", multiple=True)
@click.option("--collect-cost/--no-collect-cost", default=True)
@click.option("--dry-run", is_flag=True)
@click.option("--resume")
def probe(**_: object) -> None:
    click.echo(" ".join(given_options(click.get_current_context(), frozenset({"resume"}))))


def given(*args: str, env: dict[str, str] | None = None) -> str:
    result = CliRunner().invoke(probe, ["--resume", "r", *args], env=env)
    assert result.exit_code == 0, result.output
    return result.output.strip()


@pytest.mark.parametrize(
    "args",
    [
        ("--executor", "local"),
        ("--source", "."),
        ("--source", "./"),
        ("--collect-cost",),
    ],
)
def test_an_option_given_its_default_is_not_named(args: tuple[str, ...]) -> None:
    assert given(*args) == ""


def test_an_option_given_another_value_is_named_as_spelt() -> None:
    args = ("--executor", "ray", "--source", "cases", "--no-collect-cost", "--tag", "x")
    assert given(*args, "--dry-run") == "--source --executor --tag --no-collect-cost --dry-run"
    assert Path("cases") != Path(".")


def test_an_option_set_by_its_environment_variable_is_named() -> None:
    assert given(env={"TEST_PROCTOR_REPEATS": "3"}) == "--repeats"
