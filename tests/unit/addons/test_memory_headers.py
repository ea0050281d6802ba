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
        (f"X Api Key: {SECRET}", "--header: the name of a header given holds a space, so it "
         "is no HTTP header name (expected 'NAME: VALUE', the name of letters, digits and "
         "!#$%&'*+-.^_`|~ before the colon); it is not shown, as it may hold the value"),
        (f"X-Key\x1b: {SECRET}", "--header: the name of a header given holds a control "
         "character, so it is no HTTP header name (expected 'NAME: VALUE', the name of letters, "
         "digits and !#$%&'*+-.^_`|~ before the colon); it is not shown, as it may hold the "
         "value"),
        # '=' typed for ':': the text before the first colon holds the value
        (f"Authorization=Bearer{SECRET}:x", "--header: the name of a header given holds '=', "
         "so it is no HTTP header name (expected 'NAME: VALUE', the name of letters, digits and "
         "!#$%&'*+-.^_`|~ before the colon); it is not shown, as it may hold the value"),
        (f"X-Key: {SECRET}\u00f8", "--header X-Key: its value holds a character outside ASCII "
         "(its character 17), which an HTTP header cannot carry as text; the value is not "
         "shown"),
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


def test_every_header_s_value_that_may_be_a_key_is_masked() -> None:
    # A service may name its key's header anything (X-AccessToken, X-Honeycomb-Team): no
    # name tells a credential apart, so every value is one.
    from proctor.addons.memory.headers import parse_headers

    given = ("X-Honeycomb-Team: hc-key-value", "X-AccessToken: ghp_Secret9", "X-Team: research")
    parse_headers((*given, "X-Pass: word", "X-Org: ${HDR_LOWER}"), {"HDR_LOWER": "lowerkey"})
    # A part that begins with a credential's word is one too (X-Authentication, X-Api-Keys).
    parse_headers(("X-Authentication: opensesame", "X-Api-Keys: ab1c"), {})
    assert mask("opensesame ab1c") == "*** ***"
    # Lowercase letters alone are no key, as an environment's value is not, but under a
    # credential's name or from a variable.
    said = "hc-key-value and ghp_Secret9, research, word, lowerkey"
    assert mask(said) == "*** and ***, research, ***, ***"


@pytest.mark.parametrize(
    ("typed", "option", "hint"),
    [("--headers", "--headers", "--header"), ("-H", "-H", "--header"),
     ("--header=x", None, None)],
)  # fmt: skip
def test_a_header_option_mistyped_after_a_url_shows_no_value(
    proctor: Run, typed: str, option: str | None, hint: str | None
) -> None:
    # curl's -H or a plural slips past the option, onto the URL: refused without its words.
    if option is None:  # the option itself, glued: proctor's own, a header without a colon
        result = proctor("memory-eval", "--dataset", DATASET, "--mcp", "http://127.0.0.1:9/mcp",
                         f"--header=Authorization Bearer {SECRET}")  # fmt: skip
        assert result.code == 2 and SECRET not in result.out + result.err
        return
    given = [typed, f"Authorization: Bearer {SECRET}"]
    result = proctor("memory-eval", "--dataset", DATASET, "--mcp", "http://127.0.0.1:9/mcp", *given)
    assert result.code == 2, result.out + result.err
    assert SECRET not in result.out + result.err
    assert "goes to the server" not in result.err  # (no server takes words after a URL)
    assert result.err.strip() == (
        f"proctor: error: --mcp: a URL takes no further words, and {option} is no option of "
        f"proctor's (did you mean {hint}?); the words given with it are not shown, as they may "
        "hold a credential"
    )


@pytest.mark.parametrize(
    "given",
    [["--header", "X-Api-Key:", SECRET], [f"Authorization: Bearer {SECRET}"]],
)
def test_a_header_given_unquoted_shows_no_value(proctor: Run, given: list[str]) -> None:
    # Its value, a word of its own, is a stray word of proctor's: refused, not shown.
    result = proctor("memory-eval", "--dataset", DATASET, *given, "--mcp", "python srv.py")
    assert result.code == 2, result.out + result.err
    assert SECRET not in result.out + result.err
    assert "not shown: it may be a header's value" in result.err


def test_a_command_server_s_own_header_values_are_masked(proctor: Run, tmp_path: Path) -> None:
    # mcp-remote's --header: the server's word, its value masked wherever it is shown.
    server = tmp_path / "srv.py"
    server.write_text("import sys\nsys.exit('refused: ' + ' '.join(sys.argv[1:]))\n")
    result = proctor("memory-eval", "--dataset", DATASET, "--mcp", "python3", str(server),
                     "--header", f"Ocp-Apim-Subscription-Key: {SECRET}", "-H", "Cookie: c00kie-v")  # fmt: skip
    assert result.code == 3, result.out + result.err
    assert "refused: --header" in result.err
    assert SECRET not in result.out + result.err and "c00kie-v" not in result.err


def test_a_double_dash_after_a_url_is_said_so(proctor: Run) -> None:
    url = "http://127.0.0.1:9/mcp"
    result = proctor("memory-eval", "--dataset", DATASET, "--mcp", url, "--header", "A: b", "--")
    assert result.code == 2, result.out + result.err
    assert result.err.strip() == (
        "proctor: error: --mcp: a URL takes no further words, and --header after a '--' that "
        "follows the URL is taken as one of them: leave out the '--'"
    )


def test_a_glued_header_given_unquoted_shows_no_value(proctor: Run) -> None:
    given = ["--header=X-Api-Key:", SECRET]
    result = proctor("memory-eval", "--dataset", DATASET, *given, "--mcp", "python srv.py")
    assert result.code == 2, result.out + result.err
    assert SECRET not in result.out + result.err


def test_a_url_given_without_mcp_is_named(proctor: Run) -> None:
    # A URL holds a colon, but is no header: the word is shown, and where it goes.
    result = proctor("memory-eval", "--dataset", DATASET, "http://localhost:8080/mcp")
    assert result.code == 2, result.out + result.err
    assert "unexpected word 'http://localhost:8080/…'" in result.err
    # Of a URL, its scheme and host alone: a service may hold its key in the path.
    keyed = f"https://example.com/mcp/{SECRET}"
    result = proctor("memory-eval", "--dataset", DATASET, keyed, "--mcp", "http://127.0.0.1:9/")
    assert result.code == 2 and SECRET not in result.out + result.err
    # A URL whose port is no number (a key where the port goes) is refused, never shown.
    odd = f"https://api.example.com:{SECRET}/mcp"
    result = proctor("memory-eval", "--dataset", DATASET, odd, "--mcp", "http://127.0.0.1:9/")
    assert result.code == 2 and SECRET not in result.out + result.err, result.err
    assert "a URL (not shown: it does not parse)" in result.err


def test_a_command_server_s_plain_words_are_left_alone(proctor: Run, tmp_path: Path) -> None:
    # -H is a host to some servers; a team's name or a port is no key, masked nowhere.
    server = tmp_path / "srv.py"
    server.write_text("import sys\nsys.exit('refused: ' + ' '.join(sys.argv[1:]))\n")
    result = proctor("memory-eval", "--dataset", DATASET, "--mcp", "python3", str(server),
                     "-H", "X-Team: research", "-H", "localhost:3000", "--header", "X-Design: plain")  # fmt: skip
    assert result.code == 3, result.out + result.err
    assert "-H X-Team: research -H localhost:3000 --header X-Design: plain" in result.err
