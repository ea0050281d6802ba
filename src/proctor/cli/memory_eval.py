"""``proctor memory-eval``: seed a memory MCP server with planted notes, ask planted queries,
and score what comes back."""

from __future__ import annotations

import difflib
import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import click

from proctor.cli.options import FiniteRange
from proctor.cli.signals import echo_unless_gone

if TYPE_CHECKING:
    from proctor.addons.memory import ServerTarget

#: Exit code when the server could not be started or a tool call errored.
SERVER_ERROR = 3


OWN_OPTIONS = frozenset(
    {
        "--dataset",
        "--adapter",
        "--k",
        "--env",
        "--header",
        "--json",
        "--timeout",
        "--min-recall",
        "--min-precision",
        "--min-mrr",
        "--min-ndcg",
        "--min-abstention",
        "--min-update",
        "--help",
        "-h",
    }
)


class McpCommand(click.Command):
    """``--mcp`` takes every word up to the next option of proctor's own, so both
    ``--mcp CMD ARGS… --dataset F`` and ``--dataset F --mcp CMD ARGS…`` work; when a ``--``
    follows, every word up to it is the command's, even one named like an option of proctor's
    (``--mcp srv --timeout 5 -- --json``: the server gets ``--timeout 5``, proctor ``--json``)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        args = _mcp_split(args)
        if "--mcp" in args:
            at = args.index("--mcp")
            if "--" in args[at + 1 :]:
                end = args.index("--", at + 1)
                words, rest = args[at + 1 : end], args[end + 1 :]
            else:
                end = at + 1
                own = OWN_OPTIONS if _is_url(args[at + 1 : at + 2]) else _COMMAND_OWN
                while end < len(args) and args[end].split("=", 1)[0] not in own:
                    end += 1
                words, rest = args[at + 1 : end], args[end:]
            _refuse_strays(ctx, [*args[:at], *rest])
            if not ctx.resilient_parsing and not _is_url(words[:1]):  # (a URL takes no words)
                _note_near_misses(words[1:])
            if words:
                args = [*args[:at], *rest, "--mcp", words[0], "--", *words[1:]]
        elif not ctx.resilient_parsing:
            _refuse_strays(ctx, args)
        return super().parse_args(ctx, args)


_FLAGS = frozenset({"--json", "--help", "-h"})
_COMMAND_OWN = OWN_OPTIONS - {"--header"}
"""proctor's options that end a command's words: a server started by command takes no HTTP
header of proctor's, so a ``--header`` among its words is its own (``--mcp npx mcp-remote
URL --header 'Authorization: …'``), as it was before proctor had the option."""


def _is_url(first: list[str]) -> bool:
    """Whether the word after ``--mcp`` (a list of it, or none) names a server at a URL."""
    return bool(first) and first[0].startswith(("http://", "https://"))


def _mcp_split(args: list[str]) -> list[str]:
    """``--mcp=COMMAND`` (or ``--mcp=URL``) as ``--mcp COMMAND``, so that it takes the server's
    words as ``--mcp COMMAND`` does and is not refused as an option of no one's."""
    for at, word in enumerate(args):
        if word in ("--", "--mcp"):
            break
        if word.startswith("--mcp="):
            return [*args[:at], "--mcp", word.split("=", 1)[1], *args[at + 1 :]]
    return args


def _note_near_misses(words: list[str]) -> None:
    """A server's word a letter away from one of proctor's options (``--min-recal``) is the
    server's, as the words after ``--mcp`` are: said in a note, so a slip is not silent."""
    for word in words:
        name = word.split("=", 1)[0]
        if not name.startswith("--") or name in OWN_OPTIONS:  # (--header: see _COMMAND_OWN)
            continue
        near = difflib.get_close_matches(name, sorted(OWN_OPTIONS), n=1, cutoff=0.88)
        if near:
            click.echo(
                f"proctor: note: {name} goes to the server, as every word after --mcp up to an "
                f"option of proctor's own does; proctor's own option is {near[0]}",
                err=True,
            )


def _refuse_strays(ctx: click.Context, words: list[str]) -> None:
    """proctor's own words (those not after ``--mcp``) hold only its options and their values:
    a misspelled option (``--min-recal``) or a stray word there is refused, not handed to the
    server as one of its arguments."""
    at = 0
    after = ""  # the option whose value the word before was
    while at < len(words):
        word = words[at]
        name = word.split("=", 1)[0]
        if name in OWN_OPTIONS:
            # (--header=X-Api-Key: KEY, unquoted: KEY is the word after it too)
            after = "" if name in _FLAGS or ("=" in word and name != "--header") else name
            at += 1 if name in _FLAGS or "=" in word else 2
            continue
        if name.startswith("-") and name not in ("-", "--"):
            near = difflib.get_close_matches(name, sorted(OWN_OPTIONS | {"--mcp"}), n=1)
            hint = f"did you mean {near[0]}? " if near else ""
            raise click.UsageError(
                f"no such option: {name} ({hint}an option of the server's own goes after "
                "--mcp COMMAND)",
                ctx,
            )
        if after == "--header" or (":" in word and "://" not in word):
            # The rest of a header given unquoted (--header X-Api-Key: KEY), or a header
            # without its option: the word may be a credential, and is not shown.
            raise click.UsageError(
                "unexpected word (not shown: it may be a header's value): a header is one "
                "word, quoted, --header 'NAME: VALUE'; the server's command line goes after "
                "--mcp",
                ctx,
            )
        raise click.UsageError(
            f"unexpected word '{_stray_shown(word)}': the server's command line goes after --mcp",
            ctx,
        )


def _stray_shown(word: str) -> str:
    """A stray word as a refusal shows it: masked, and of a URL its scheme and host alone (a
    service may hold its key in the path)."""
    from proctor.addons.shown import command_masked

    if "://" in word:
        try:  # (a port that is no number raises only when it is read)
            parts = urlsplit(word)
            host = parts.hostname or ""
            port = f":{parts.port}" if parts.port else ""
        except ValueError:
            return "a URL (not shown: it does not parse)"
        if parts.path.strip("/") or parts.query or parts.fragment:
            return f"{parts.scheme}://{host}{port}/…"
        return f"{parts.scheme}://{host}{port}"
    return command_masked(word)


class _ServerWords(click.Argument):
    """The words of ``--mcp COMMAND ARGS…`` after its first: they follow ``--mcp`` on the
    command line, and the usage line names them there (``--mcp URL | COMMAND [ARGS]...``),
    not as an argument of their own (``[SERVER_ARGS]...``, a name no one types)."""

    def get_usage_pieces(self, ctx: click.Context) -> list[str]:
        return []


@click.command(
    "memory-eval",
    cls=McpCommand,
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
    epilog="--mcp takes the words after it up to the next option of proctor's own, or up to "
    "'--' (use '--' or one quoted word when the server has an option of the same name). "
    "Exit codes: 0 every check passed, 1 a check failed, 2 configuration error, "
    "3 the server could not be started or a tool call errored.",
)
@click.option(
    "--mcp",
    "server",
    required=True,
    metavar="URL | COMMAND [ARGS]...",
    help="The memory server: an http(s) URL (streamable HTTP) or a command line (stdio).",
)
@click.argument("server_args", nargs=-1, type=click.UNPROCESSED, cls=_ServerWords)
@click.option(
    "--dataset",
    type=click.Path(path_type=Path, dir_okay=False),
    required=True,
    help="Notes and queries (JSON or JSONL).",
)
@click.option(
    "--adapter",
    type=click.Path(path_type=Path, dir_okay=False),
    help="How the server's tools seed and search (JSON or TOML; default: the knowledge-graph "
    "mapping of @modelcontextprotocol/server-memory).",
)
@click.option(
    "--k",
    "k",
    type=click.IntRange(min=1),
    default=5,
    show_default=True,
    help="Score the first K results of each query (recall@K, precision@K, nDCG@K; the adapter's "
    "search gets it as {k}).",
)
@click.option(
    "--env",
    "forward",
    multiple=True,
    metavar="NAME",
    help="Pass this environment variable to a server started by command (an embedding "
    "service's key, say; repeatable; its value is masked in the output). Nothing else of "
    "the environment reaches the server but PATH and the like.",
)
@click.option(
    "--header",
    "headers",
    multiple=True,
    metavar="'NAME: VALUE'",
    help="Send this HTTP header on every request to a server at a URL (a credential, say; "
    "repeatable). ${VAR} in the value is that environment variable's value "
    "(--header 'Authorization: Bearer ${TOKEN}', in single quotes); a value that may be a "
    "key is masked in the output (docs/addons.md, Headers).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the full record as JSON.")
@click.option(
    "--timeout",
    type=FiniteRange(min=0, min_open=True),
    default=30.0,
    show_default=True,
    help="Seconds allowed for starting the server and for each tool call.",
)
@click.option(
    "--min-recall",
    type=FiniteRange(0, 1),
    default=0.8,
    show_default=True,
    help="Exit 1 when the mean recall@K is below this (0 to 1).",
)
@click.option(
    "--min-precision",
    type=FiniteRange(0, 1),
    default=0.5,
    show_default=True,
    help="Exit 1 when the mean precision@K is below this (0 to 1).",
)
@click.option(
    "--min-mrr",
    type=FiniteRange(0, 1),
    default=0.5,
    show_default=True,
    help="Exit 1 when the mean reciprocal rank is below this (0 to 1).",
)
@click.option(
    "--min-ndcg",
    type=FiniteRange(0, 1),
    default=0.5,
    show_default=True,
    help="Exit 1 when the mean nDCG@K is below this (0 to 1).",
)
@click.option(
    "--min-abstention",
    type=FiniteRange(0, 1),
    default=1.0,
    show_default=True,
    help="Exit 1 when the abstention accuracy (the share of queries that should find nothing for "
    "which nothing comes back) is below this (0 to 1).",
)
@click.option(
    "--min-update",
    type=FiniteRange(0, 1),
    default=1.0,
    show_default=True,
    help="Exit 1 when the knowledge-update accuracy (each newer note in the top K, the note it "
    "replaces below it or absent) is below this (0 to 1).",
)
def command(
    server: str,
    server_args: tuple[str, ...],
    dataset: Path,
    adapter: Path | None,
    k: int,
    forward: tuple[str, ...],
    headers: tuple[str, ...],
    as_json: bool,
    timeout: float,
    **minimums: float,
) -> int:
    """Score a memory or retrieval MCP server on a planted dataset.

    Seeds each project's notes (and other projects' notes, and superseded notes) through the
    server's own tools, runs the queries, and reports recall, precision, MRR and nDCG at k,
    abstention and knowledge-update accuracy, per ability label and overall.
    """
    from proctor.addons.memory import (
        MemoryServerError,
        Thresholds,
        collect_results,
        load_adapter,
        load_dataset,
        render_text,
        score_run,
    )
    from proctor.addons.shown import command_masked
    from proctor.agents.credentials import register_user_keys
    from proctor.errors import ConfigError
    from proctor.models.io import dump_json
    from proctor.util.cutting import masked_data
    from proctor.util.masking import mask
    from proctor.util.text import escaped_line

    # Every key of the environment and ./.env is masked in what this prints, as the values
    # forwarded with --env are.
    register_user_keys()
    target = server_target(server, server_args)
    _register_server_headers(server_args)
    if headers:
        target = _with_headers(target, headers)
    if target.is_url and adapter is None:
        raise ConfigError(
            f"--mcp {target.url}: a server at a URL needs --adapter, with scope mode 'argument' "
            "(the built-in adapter, for @modelcontextprotocol/server-memory, starts one server "
            "process per project, which needs --mcp with the server's command)"
        )
    data = load_dataset(dataset)
    mapping = load_adapter(adapter)
    passed = _forwarded(forward, target.is_url)
    try:
        returned = collect_results(target, mapping, data, k, timeout, passed)
    except MemoryServerError as exc:
        sentence = command_masked(str(exc))
        tail = command_masked(exc.stderr_tail)
        whole = command_masked(exc.tool_error)
        # The server's words are shown with their control characters escaped, never obeyed.
        click.echo(f"proctor: error: {escaped_line(sentence)}", err=True)
        if whole:  # a tool's error of several lines, whose first the sentence quotes
            click.echo("proctor: the tool's whole error:", err=True)
            click.echo(_quoted(whole), err=True, nl=False)
        if tail:  # the server's own words (a traceback, a log line) under the sentence
            click.echo("proctor: the end of the memory server's stderr:", err=True)
            click.echo(_quoted(tail), err=True, nl=False)
        if as_json:
            error = {"error": sentence, "toolError": whole or None, "serverStderr": tail or None}
            echo_unless_gone(dump_json(error), nl=False)
        return SERVER_ERROR
    record = score_run(
        data,
        returned,
        k=k,
        thresholds=Thresholds(**minimums),
        server=command_masked(target.describe()),
        dataset_name=str(dataset),
        adapter_name=str(adapter) if adapter else "built-in knowledge-graph",
    )
    if as_json:
        echo_unless_gone(dump_json(masked_data(record.to_dict())), nl=False)
    else:
        echo_unless_gone(mask(render_text(record)))
    return record.exit_code


def _quoted(text: str) -> str:
    """A server's text of several lines, each quoted under ``  | `` with its control characters
    escaped."""
    from proctor.util.text import escaped_line

    return "".join(f"  | {escaped_line(line)}\n" for line in text.splitlines())


def _forwarded(names: tuple[str, ...], is_url: bool) -> dict[str, str]:
    """``--env`` names and their values, registered for masking; a name the environment does
    not hold, or given with a server at a URL (proctor starts no process for it), is an
    error."""
    from proctor.errors import ConfigError
    from proctor.util.masking import register_secret

    if names and is_url:
        raise ConfigError("--env passes variables to a server proctor starts; --mcp is a URL")
    passed: dict[str, str] = {}
    for name in names:
        if name not in os.environ:
            raise ConfigError(f"--env {name}: not set in this environment")
        passed[name] = os.environ[name]
        register_secret(passed[name], named=True)
    return passed


def _register_server_headers(words: tuple[str, ...]) -> None:
    """The values of the headers a command server is given among its words (``mcp-remote URL
    --header 'X-Api-Key: KEY'``, ``-H``), registered for masking, as proctor's own
    ``--header`` values are: the server's command line and its errors show them masked."""
    from proctor.addons.memory.headers import register_value

    for at, word in enumerate(words):
        if word in ("--header", "-H") and at + 1 < len(words):
            given = words[at + 1]
        elif word.startswith("--header="):
            given = word.split("=", 1)[1]
        else:
            continue
        name, colon, value = given.partition(":")
        if colon and value.strip() and name.strip() and " " not in name.strip():
            # (a value of lowercase letters alone, or a short one, is left as proctor's own
            # --header leaves it: -H is another option to some servers, a host say)
            register_value(name.strip(), value.strip())


def _with_headers(target: ServerTarget, given: tuple[str, ...]) -> ServerTarget:
    """``target`` with the ``--header`` headers (their values registered for masking); given
    with a server started by command (it is spoken to over stdio: no HTTP) it is an error."""
    import dataclasses

    from proctor.addons.memory.headers import parse_headers
    from proctor.errors import ConfigError

    if not target.is_url:
        raise ConfigError(
            "--header sends HTTP headers to a server at a URL; --mcp is a command (give it a "
            "variable with --env; a --header of the server's own goes among its words, after "
            "--mcp COMMAND)"
        )
    return dataclasses.replace(target, headers=parse_headers(given, os.environ))


def server_target(server: str, rest: tuple[str, ...]) -> ServerTarget:
    """A URL alone, or a command line: ``--mcp npx -y pkg`` or ``--mcp "npx -y pkg"``."""
    from proctor.addons.memory import ServerTarget
    from proctor.errors import ConfigError

    if server.startswith(("http://", "https://")):
        if rest:
            raise ConfigError(_words_after_url(rest))
        try:
            host = urlsplit(server).hostname
        except ValueError as exc:  # e.g. an unclosed IPv6 bracket
            raise ConfigError(f"--mcp {server}: not a valid URL ({exc})") from exc
        if not host:
            raise ConfigError(
                f"--mcp {server}: the URL names no host (e.g. http://127.0.0.1:8000/mcp)"
            )
        return ServerTarget(url=server)
    try:
        words = [*(shlex.split(server) if not rest else [server]), *rest]
    except ValueError as exc:  # an unclosed quote
        raise ConfigError(f"--mcp {server}: not a command line ({exc})") from exc
    if not words:
        raise ConfigError("--mcp: expected a URL or a command, got nothing")
    return ServerTarget(argv=tuple(_absolute(word) for word in words))


def _words_after_url(rest: tuple[str, ...]) -> str:
    """The refusal of words after ``--mcp URL``: an option that is none of proctor's
    (``--headers``, curl's ``-H``) is named, with proctor's nearest, and the words after it
    are not shown (a header's value is a credential); other words are shown masked."""
    from proctor.addons.shown import command_masked
    from proctor.util.text import escaped_line

    option = next((word for word in rest if word.startswith("-")), None)
    if option is None:
        return f"--mcp: a URL takes no further words, got '{command_masked(' '.join(rest))}'"
    name = option.split("=", 1)[0]
    if name in OWN_OPTIONS:  # after a '--' that follows the URL: the server's words
        return (
            f"--mcp: a URL takes no further words, and {escaped_line(name)} after a '--' that "
            "follows the URL is taken as one of them: leave out the '--'"
        )
    near = difflib.get_close_matches(name, sorted(OWN_OPTIONS), n=1, cutoff=0.6)
    hint = f" (did you mean {near[0]}?)" if near else ""
    if name in ("-H", "--headers"):
        hint = " (did you mean --header?)"
    return (
        f"--mcp: a URL takes no further words, and {escaped_line(name)} is no option of "
        f"proctor's{hint}; the words given with it are not shown, as they may hold a credential"
    )


def _absolute(word: str) -> str:
    """The server runs in a scratch folder: a word naming an existing file or folder relative to
    the current folder (``memory_server.py``, ``./bin/server``) becomes an absolute path."""
    if word.startswith("-") or Path(word).is_absolute() or not Path(word).exists():
        return word
    return os.path.abspath(word)
