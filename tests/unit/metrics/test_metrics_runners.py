"""Unit tests of stepping over runners: docker's own options, detached commands, ``env -S``,
``!``, and options a runner is not known to take."""

from __future__ import annotations

import shlex

import pytest

from proctor.metrics import MetricsConfig, is_check
from proctor.metrics.runners import negates, run_by_runner, runner_detaches


@pytest.mark.parametrize(
    "line",
    [
        "docker --context x exec app pytest",
        "docker -c x exec app pytest",
        "docker -H tcp://h:2375 exec app pytest",
        "docker --host h exec -it app pytest",
        "docker --config ~/.docker-ci --log-level debug exec app pytest",
        "docker -l debug --tlsverify --tlscacert ca.pem --tlscert c.pem --tlskey k.pem exec app pytest",
        "docker -D --tls exec app pytest",
        "docker -c x compose run web pytest",
        "docker --context ci compose -f ci.yml exec web pytest",
        "docker compose -p proj exec web pytest",
        "docker-compose -H tcp://h:2375 run --rm web pytest",
    ],
)
def test_docker_s_own_options_before_its_subcommand_are_stepped_over(line: str) -> None:
    assert run_by_runner(line.split())[-1:] == ("pytest",)  # type: ignore[index]
    assert is_check(MetricsConfig(), line)


def test_a_docker_option_s_value_is_not_its_subcommand() -> None:
    assert not is_check(MetricsConfig(), "docker --context exec ps app pytest")
    assert not is_check(MetricsConfig(), "docker -H tcp://h:2375 exec app echo pytest")


@pytest.mark.parametrize(
    "line",
    [
        "docker exec -d app pytest",
        "docker exec --detach app pytest",
        "docker exec -dit app pytest",
        "docker exec -itd -u root app pytest",
        "docker --context x exec -d app pytest",
        "docker compose run -d web pytest",
        "docker compose run --rm --detach web pytest",
        "docker compose exec -d web pytest",
        "docker-compose run -d web pytest",
        "docker-compose exec --detach web pytest",
        "sudo -b pytest",
    ],
)
def test_a_runner_that_detaches_its_command_is_told(line: str) -> None:
    assert runner_detaches(line.split())
    assert is_check(MetricsConfig(), line)


@pytest.mark.parametrize(
    "line",
    [
        "docker exec -it app pytest",
        "docker exec -ud app pytest",  # the user ``d``
        "docker exec -u d app pytest",
        "docker exec --detach-keys ctrl-x app pytest",
        "docker exec app pytest -d",  # the command's own option
        "docker compose up -d",
        "pytest -d",
        "sudo -u b pytest",
    ],
)
def test_a_runner_without_a_detaching_flag_keeps_its_command(line: str) -> None:
    assert not runner_detaches(line.split())


@pytest.mark.parametrize(
    ("words", "want"),
    [
        (("env", "-S", "pytest -q"), ("pytest", "-q")),
        (("env", "-Spytest -q"), ("pytest", "-q")),
        (("env", "--split-string=pytest -q"), ("pytest", "-q")),
        (("env", "--split-string", "pytest -q"), ("pytest", "-q")),
        (("env", "-iS", "FOO=1 pytest -q"), ("pytest", "-q")),
        (("env", "-S", "-u X uv run pytest", "tests"), ("pytest", "tests")),
        (("env", "-S", "'a b' c"), ("a b", "c")),
        (("env", "-S", "'unbalanced pytest"), ("'unbalanced", "pytest")),
    ],
)
def test_env_s_splits_its_value_into_the_words_it_runs(
    words: tuple[str, ...], want: tuple[str, ...]
) -> None:
    assert run_by_runner(words) == want


@pytest.mark.parametrize(
    ("line", "want"),
    [
        ("env -S 'pytest -q'", True),
        ('env -S"pytest -q"', True),
        ("env --split-string='pytest -q'", True),
        ("env -S 'timeout 60 make test'", True),
        ("env -S 'echo pytest'", False),
        ("env -S", False),
    ],
)
def test_env_s_is_read_for_checks(line: str, want: bool) -> None:
    assert is_check(MetricsConfig(), line) is want


def _nested_env_s(depth: int) -> list[str]:
    line = "pytest"
    for _ in range(depth):
        line = f"env -S {shlex.quote(line)}"
    return shlex.split(line)


def test_env_s_values_are_split_a_bounded_number_of_times() -> None:
    # Each split copies the words after it: eight per command, then -S's value is a value.
    assert run_by_runner(_nested_env_s(8)) == ("pytest",)
    assert run_by_runner(_nested_env_s(9)) is None


@pytest.mark.parametrize(
    ("words", "want"),
    [
        (("!", "pytest"), True),
        (("if", "!", "make", "check"), True),
        (("while", "!", "FOO=1", "pytest"), True),
        (("pytest", "!"), False),
        (("echo", "!", "pytest"), False),
        (("if", "pytest"), False),
    ],
)
def test_negates_tells_a_bang_before_the_command(words: tuple[str, ...], want: bool) -> None:
    assert negates(words) is want


def test_a_bang_is_stepped_over_to_the_command() -> None:
    assert run_by_runner(("!", "pytest", "-q")) == ("pytest", "-q")
    assert is_check(MetricsConfig(), "! pytest")
    assert is_check(MetricsConfig(), "if ! make check; then exit 1; fi")


def test_an_unknown_option_of_a_runner_is_read_as_a_flag() -> None:
    """The documented trade-off: a flag the runner's grammar does not list (``--frozen``)
    keeps the command after it; an unknown option's value is read as the command, which is a
    check only when that value is itself a tool's name."""
    assert run_by_runner(["uv", "run", "--frozen", "pytest"]) == ("pytest",)
    assert run_by_runner(["env", "--foo", "bar", "pytest"]) == ("bar", "pytest")
    assert not is_check(MetricsConfig(), "env --foo bar pytest")
    assert is_check(MetricsConfig(), "uv run --foo pytest python x.py")
