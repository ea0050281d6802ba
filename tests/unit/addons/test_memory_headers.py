"""``proctor memory-eval --header 'NAME: VALUE'``: a header that cannot be sent is refused
with exit 2 in one sentence naming the option, never showing the value; the value (and the
credential after its scheme) is masked; a server started by command takes no header."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from proctor.util import masking
from proctor.util.masking import mask
from tests.conftest import CliResult

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "addons" / "memory"
DATASET = str(EXAMPLES / "dataset.json")
ADAPTER = str(EXAMPLES / "reference.adapter.toml")
SECRET = "ZZq7-secret-4b1e"

Run = Callable[..., CliResult]


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(masking, "_SECRETS", set())
    monkeypatch.setenv("HDR_SET", SECRET)
    monkeypatch.setenv("HDR_EMPTY", "")
    monkeypatch.setenv("HDR_BROKEN", f"{SECRET}\r\nX-Evil: 1")
    monkeypatch.delenv("HDR_UNSET", raising=False)


def refused(proctor: Run, *headers: str, server: str = "http://127.0.0.1:9/mcp") -> str:
    given = [word for header in headers for word in ("--header", header)]
    result = proctor(
        "memory-eval", "--dataset", DATASET, "--adapter", ADAPTER, "--mcp", server, *given
    )
    assert result.code == 2, result.out + result.err
    assert SECRET not in result.out + result.err
    [line] = result.err.splitlines()
    return line.removeprefix("proctor: error: ")


@pytest.mark.parametrize(
    ("header", "sentence"),
    [
        (f"Bearer {SECRET}", "--header: expected 'NAME: VALUE', with a colon after the name; "
         "one given has no colon (not shown: a header's value is a secret)"),
        (f": {SECRET}", "--header: a header's name is empty (expected 'NAME: VALUE')"),
        (f"X Api Key: {SECRET}", "--header 'X Api Key: …': 'X Api Key' is not an HTTP header "
         "name (letters, digits and !#$%&'*+-.^_`|~, no space or control character, then the "
         "colon)"),
        (f"X-Key\x1b: {SECRET}", "--header 'X-Key\\x1b: …': 'X-Key\\x1b' is not an HTTP header "
         "name (letters, digits and !#$%&'*+-.^_`|~, no space or control character, then the "
         "colon)"),
        (f"X-Key: {SECRET}\r\nX-Evil: 1", "--header X-Key: its value holds a line break (CR "
         "or LF), which would end the header; the value is not shown"),
        ("X-Key: ${HDR_BROKEN}", "--header X-Key: its value (with ${HDR_BROKEN} expanded) "
         "holds a line break (CR or LF), which would end the header; the value is not shown"),
        (f"X-Key: {SECRET}\x00", "--header X-Key: its value holds the control character \\x00; "
         "the value is not shown"),
        ("Authorization: Bearer ${HDR_UNSET}",
         "--header Authorization: ${HDR_UNSET} is not set in this environment"),
        ("Authorization: Bearer ${HDR_EMPTY}",
         "--header Authorization: ${HDR_EMPTY} is empty in this environment"),
        ("Mcp-Session-Id: abc", "--header Mcp-Session-Id: the MCP client sets this header "
         "itself on every request"),
    ],
)  # fmt: skip
def test_a_header_that_cannot_be_sent_is_refused(proctor: Run, header: str, sentence: str) -> None:
    assert refused(proctor, header) == sentence


def test_a_header_given_twice_is_refused(proctor: Run) -> None:
    assert (
        refused(proctor, "X-Key: ${HDR_SET}", f"x-key: {SECRET}") == "--header x-key: given twice"
    )


def test_a_server_started_by_command_takes_no_header(proctor: Run) -> None:
    given = ("--header", f"X-Key: {SECRET}")
    result = proctor("memory-eval", *given, "--dataset", DATASET, "--mcp", "python srv.py")
    assert result.code == 2, result.out + result.err
    assert SECRET not in result.out + result.err
    assert result.err.removeprefix("proctor: error: ").rstrip("\n") == (
        "--header sends HTTP headers to a server at a URL; --mcp is a command (give it a "
        "variable with --env; a --header of the server's own goes among its words, after "
        "--mcp COMMAND)"
    )


def test_the_value_and_its_credential_are_masked() -> None:
    from proctor.addons.memory.headers import parse_headers

    headers = parse_headers(
        ("Authorization: Bearer ${HDR_SET}", "X-Api-Key:  k3y-Value9 "), {"HDR_SET": SECRET}
    )
    assert headers == (("Authorization", f"Bearer {SECRET}"), ("X-Api-Key", "k3y-Value9"))
    said = f"sent Bearer {SECRET}, then {SECRET} alone, and k3y-Value9"
    assert mask(said) == "sent ***, then *** alone, and ***"


def test_a_server_words_before_a_double_dash_keep_their_header() -> None:
    from proctor.cli.memory_eval import command

    args = ["--dataset", "d.json", "--mcp", "npx", "mcp-remote", "--header", "A: b", "--"]
    params = command.make_context("memory-eval", args).params
    assert (params["server"], *params["server_args"]) == ("npx", "mcp-remote", "--header", "A: b")
    assert params["headers"] == ()


def test_a_header_among_a_command_servers_words_is_the_servers() -> None:
    # mcp-remote's own --header: a server started by command takes no header of proctor's,
    # so the option ends no command's words (it did for a moment, and took mcp-remote's).
    from proctor.cli.memory_eval import command

    args = ["--mcp", "npx", "mcp-remote", "https://x.test/mcp", "--header", "A: b", "--json"]
    args += ["--dataset", "d.json"]
    params = command.make_context("memory-eval", args).params
    assert (params["server"], *params["server_args"]) == (
        "npx", "mcp-remote", "https://x.test/mcp", "--header", "A: b"
    )  # fmt: skip
    assert params["headers"] == ()
    assert params["as_json"] is True


def test_a_header_after_a_url_is_proctors() -> None:
    from proctor.cli.memory_eval import command

    args = ["--mcp", "https://x.test/mcp", "--header", "A: b", "--json", "--dataset", "d.json"]
    params = command.make_context("memory-eval", args).params
    assert (params["server"], params["server_args"]) == ("https://x.test/mcp", ())
    assert params["headers"] == ("A: b",)
