"""``proctor memory-eval``'s command line: which words ``--mcp`` takes, as docs/addons.md says."""

from __future__ import annotations

from typing import Any

import click
import pytest

from proctor.cli.memory_eval import command


def parsed(*args: str) -> dict[str, Any]:
    ctx = command.make_context("memory-eval", list(args))
    return ctx.params


@pytest.mark.parametrize(
    ("args", "server", "own"),
    [
        # The words up to the next option of proctor's own, before or after the others.
        (("--mcp", "npx", "-y", "some-server", "--dataset", "d.json"),
         ("npx", "-y", "some-server"), {}),
        (("--dataset", "d.json", "--mcp", "npx", "-y", "some-server"),
         ("npx", "-y", "some-server"), {}),
        # With `--`, every word up to it is the server's, even one named like proctor's.
        (("--dataset", "d.json", "--mcp", "python", "srv.py", "--timeout", "5", "--", "--json"),
         ("python", "srv.py", "--timeout", "5"), {"as_json": True, "timeout": 30.0}),
        (("--dataset", "d.json", "--mcp", "server", "--timeout", "5", "--", "--json"),
         ("server", "--timeout", "5"), {"as_json": True, "timeout": 30.0}),
        (("--dataset", "d.json", "--mcp", "srv", "--json", "--"),
         ("srv", "--json"), {"as_json": False}),
        (("--dataset", "d.json", "--mcp", "srv", "--", "--json"), ("srv",), {"as_json": True}),
        # Without `--`, proctor's own options end the server's words.
        (("--dataset", "d.json", "--mcp", "srv", "--timeout", "5", "--json"),
         ("srv",), {"as_json": True, "timeout": 5.0}),
        (("--mcp", "python", "srv.py", "--env", "EMBED_KEY", "--dataset", "d.json"),
         ("python", "srv.py"), {"forward": ("EMBED_KEY",)}),
        (("--dataset", "d.json", "--mcp", "srv", "--env=EMBED_KEY"),
         ("srv",), {"forward": ("EMBED_KEY",)}),
    ],
)  # fmt: skip
def test_the_words_of_mcp(
    args: tuple[str, ...], server: tuple[str, ...], own: dict[str, Any]
) -> None:
    params = parsed(*args)
    assert (params["server"], *params["server_args"]) == server
    assert str(params["dataset"]) == "d.json"
    for name, value in own.items():
        assert params[name] == value


def test_every_option_of_proctor_s_own_ends_the_server_s_words() -> None:
    """The list the words of --mcp stop at holds every option the command has, so an option
    added later cannot become a word of the server's."""
    from proctor.cli.memory_eval import OWN_OPTIONS

    names = {name for p in command.params for name in p.opts if name.startswith("-")}
    assert names - {"--mcp"} <= OWN_OPTIONS


def test_the_usage_line_names_no_argument_no_one_types() -> None:
    """The words after ``--mcp COMMAND`` read as an argument of their own in the usage line
    (``[OPTIONS] [SERVER_ARGS]...``): they are ``--mcp``'s, which its metavar names."""
    from click.testing import CliRunner

    shown = CliRunner().invoke(command, ["--help"], prog_name="proctor memory-eval").output
    assert shown.splitlines()[0] == "Usage: proctor memory-eval [OPTIONS]"
    assert "--mcp URL | COMMAND [ARGS]..." in shown


@pytest.mark.parametrize(
    ("args", "said"),
    [
        # before --mcp: never the server's, so refused rather than added to its command line
        (("--jsn", "--dataset", "d.json", "--mcp", "srv"),
         "no such option: --jsn (did you mean --json?"),
        (("--dataset", "d.json", "--min-recal", "0.5", "--mcp", "srv"),
         "no such option: --min-recal (did you mean --min-recall?"),
        # after the `--` that ends the server's words: proctor's again
        (("--dataset", "d.json", "--mcp", "srv", "--", "--jsn"), "no such option: --jsn"),
        (("--dataset", "d.json", "--mpc", "srv"), "no such option: --mpc (did you mean --mcp?"),
        (("stray", "--dataset", "d.json", "--mcp", "srv"),
         "unexpected word 'stray': the server's command line goes after --mcp"),
    ],
)  # fmt: skip
def test_a_word_of_proctor_s_that_is_no_option_of_its_is_refused(
    args: tuple[str, ...], said: str
) -> None:
    with pytest.raises(click.UsageError) as raised:
        parsed(*args)
    assert said in raised.value.format_message()


def test_a_server_word_close_to_an_option_of_proctor_s_is_noted(
    capsys: pytest.CaptureFixture[str],
) -> None:
    params = parsed("--dataset", "d.json", "--mcp", "srv", "--min-recal", "0.5", "--port", "1")
    assert (params["server"], *params["server_args"]) == (
        "srv",
        "--min-recal",
        "0.5",
        "--port",
        "1",
    )
    assert capsys.readouterr().err == (
        "proctor: note: --min-recal goes to the server, as every word after --mcp up to an "
        "option of proctor's own does; proctor's own option is --min-recall\n"
    )


@pytest.mark.parametrize(
    ("args", "server"),
    [
        (("--dataset", "d.json", "--mcp=http://127.0.0.1:9/mcp"), ("http://127.0.0.1:9/mcp",)),
        (("--mcp=srv", "--port", "1", "--dataset", "d.json"), ("srv", "--port", "1")),
    ],
)
def test_mcp_with_an_equals_sign_is_the_server_as_with_a_space(
    args: tuple[str, ...], server: tuple[str, ...]
) -> None:
    params = parsed(*args)
    assert (params["server"], *params["server_args"]) == server
