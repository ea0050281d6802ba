"""``proctor model``: the scripted model server from the command line."""

from __future__ import annotations

import errno
import ipaddress
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from proctor.errors import ConfigError
    from proctor.models.logs import RequestRecord


def _load_plan(path: Path) -> dict[str, object]:
    from proctor.errors import ConfigError
    from proctor.models.loading import parse_json_text

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"--plan {path}: cannot be read ({exc.strerror})") from exc
    except UnicodeDecodeError as exc:
        where = f"byte 0x{exc.object[exc.start]:02x} at offset {exc.start}"
        raise ConfigError(f"--plan {path}: not UTF-8 text ({where})") from exc
    try:  # read as validate reads a case's plan.json: line and column, BOM, comments, depth
        data = parse_json_text(text, path, unique=True)
    except ConfigError as exc:
        said = str(exc)
        said = said[len(f"{path}: ") :] if said.startswith(f"{path}: ") else said
        raise ConfigError(f"--plan {path}: {said}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"--plan {path}: expected a JSON object with 'turns' or 'variants'")
    return data


def _check_log(path: Path) -> None:
    """Fail before serving when the request log cannot be written, instead of losing it.

    Creates the log file itself (it is appended to anyway) but never a missing folder.
    """
    from proctor.cli.options import check_folder_of
    from proctor.errors import ConfigError

    check_folder_of("--log", path)
    try:
        with path.open("a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise ConfigError(f"--log {path}: cannot be written ({exc.strerror or exc})") from exc


def notice(record: RequestRecord, turns: int | None = None, asks: bool = False) -> str | None:
    """What ``serve`` says on stderr of a request that did not go as planned, or None.

    A request the server refused (an unknown path, a body it cannot read: the status and why),
    a plan tool call the request did not offer the model, and a prompt past the plan's last
    turn, with how many ``turns`` the plan has (split by ``endTurn``; ``asks``: it has an
    ``ask`` step, which a CLI may ask as plain text, ending a turn there too). An injected
    error is the plan's own doing and a client that went away is no fault of the plan: neither
    is said. A registered secret in it (a key a refused body held) is masked, and its control
    characters (a path's escape sequence) are shown, not obeyed.
    """
    said = _notice(record, True, turns, asks)
    return None if said is None else _shown(said)


def _shown(said: str) -> str:
    from proctor.util.masking import mask
    from proctor.util.text import escaped_line

    return escaped_line(mask(said))


def _notice(
    record: RequestRecord, numbered: bool, turns: int | None = None, asks: bool = False
) -> str | None:
    """:func:`notice`'s sentence as it is (``numbered``: with the request's number, which
    tells apart requests said alike)."""
    from proctor.scripted.offered import unoffered_sentence, unoffered_tool
    from proctor.scripted.plan import NOTHING_LEFT
    from proctor.util.text import plural

    asked = f"{record.method} {record.path}"
    if record.status >= 400 and record.played != "error":
        return f"{asked} answered {record.status}: {record.error or 'no reason recorded'}"
    played = record.played
    if not isinstance(played, dict):
        return None
    number = f"request {record.index}, " if numbered else ""
    request = f"{asked} ({number}{record.dialect})"
    tool = unoffered_tool(played, record.tools)
    if tool is not None:
        turn, response = played.get("segment", 0), played.get("response", 0)
        said = unoffered_sentence(tool, turn, response, "the client", record.tools)
        return f"{request}: {said}"
    if played.get("exhausted") is True:
        has = ""
        if turns is not None:
            count = "no turn" if turns == 0 else plural(turns, "turn")
            also = "; an ask asked as plain text ends one too" if asks else ""
            has = f" (it has {count}, split by endTurn{also})"
        return (
            f"{request}: prompt {played.get('segment')} comes after the plan's last turn{has}, "
            f"so the model replied '{NOTHING_LEFT}'"
        )
    return None


class Notices:
    """What ``serve`` says on stderr of the requests that did not go as planned (see
    :func:`notice`), one line each the first time; a request said alike again (but for its
    number: a client retrying after the plan's last turn, a loop of the same unoffered tool)
    is counted, and said with its count as the count reaches 10, 100, 1,000, …, and when the
    server stops (:meth:`stopped`), not a line each. Called from the server's threads."""

    def __init__(
        self, echo: Callable[[str], None], turns: int | None = None, asks: bool = False
    ) -> None:
        self._echo = echo
        self._turns, self._asks = turns, asks
        self._counts: dict[str, int] = {}
        self._said: dict[str, int] = {}
        """Each sentence's count when it was last said."""
        self._lock = threading.Lock()

    def __call__(self, record: RequestRecord) -> None:
        first = notice(record, self._turns, self._asks)
        if first is None:
            return
        alike = _shown(_notice(record, False, self._turns, self._asks) or "")
        with self._lock:
            count = self._counts[alike] = self._counts.get(alike, 0) + 1
            if count == 1:
                line = first
            elif _is_power_of_ten(count):
                line = f"{alike} ({count} times so far)"
            else:
                return
            self._said[alike] = count
            self._echo(f"warning: {line}")

    def stopped(self) -> None:
        """Say the count of each sentence said alike again since it was last said."""
        with self._lock:
            for alike, count in self._counts.items():
                if count != self._said.get(alike):
                    self._said[alike] = count
                    self._echo(f"warning: {alike} ({count} times in all)")


def _is_power_of_ten(count: int) -> bool:
    text = str(count)
    return text[0] == "1" and set(text[1:]) == {"0"}


def _say(line: str) -> None:
    click.echo(line, err=True)


def _check_condition(plan: dict[str, Any], plan_path: Path, condition: str) -> None:
    """Refuse a ``--condition`` the plan cannot play: one a plan split by condition has no
    entry for, and any but the default for a plan that is not split (it plays the same for
    every condition, so the option would be ignored)."""
    from proctor.errors import ConfigError
    from proctor.scripted.plan import plan_for_condition

    if "conditions" not in plan:
        if condition != "default":
            raise ConfigError(
                f"--condition {condition}: --plan {plan_path} is not split by condition (it has "
                "no 'conditions'), so it plays the same for every condition; leave --condition "
                "out, or give the plan a 'conditions' object"
            )
        return
    if plan_for_condition(plan, condition) is None:
        names = ", ".join(plan["conditions"])
        raise ConfigError(
            f"--condition {condition}: --plan {plan_path} has no entry for it under "
            f"'conditions' (conditions: {names})"
        )


def _empty_plan_warning(
    plan: dict[str, Any], plan_path: Path, condition: str, repeat: int
) -> str | None:
    """The warning for a plan that has no turn for the agent's model (no step, or only
    ``endTurn`` steps): it is served, as ``proctor run`` plays such a plan, but every prompt
    ends at once. None when it has a turn."""
    from proctor.scripted.plan import NOTHING_LEFT, _field, steps_for_repeat
    from proctor.scripted.server.player import DONE
    from proctor.scripted.turns import plan_turns

    if plan_turns(plan, condition, repeat):
        return None
    at = _field("conditions", condition) if "conditions" in plan else ""
    chosen = plan["conditions"][condition] if "conditions" in plan else plan
    steps = steps_for_repeat(chosen, repeat)
    has = "only endTurn steps" if steps else "no step"
    if "variants" in chosen:
        at = _field(_field(at, "variants"), (repeat - 1) % len(chosen["variants"]))
        why = f"field '{at}', the variant --repeat {repeat} plays, has {has}"
    elif "turns" in chosen:
        why = f"field '{_field(at, 'turns')}' has {has}"
    else:
        why = "it has neither 'turns' nor 'variants'"
    return (
        f"--plan {plan_path} has no turn to play ({why}): every prompt ends at once, with no "
        f"tool call and the reply '{DONE}' (or '{NOTHING_LEFT}' past the plan's end)"
    )


def _listen_error(exc: OSError, host: str, port: int) -> ConfigError:
    """The error for a server that could not bind ``host:port``, worded as ``proctor view``
    words it: a port taken or reserved names ``--port`` and the free port ``--port 0`` picks;
    anything else names ``--host``."""
    import socket

    from proctor.errors import ConfigError

    said = f"cannot listen on {host}:{port} ({exc.strerror or exc})"
    taken = not isinstance(exc, socket.gaierror) and exc.errno in (errno.EADDRINUSE, errno.EACCES)
    if taken and port != 0:
        return ConfigError(f"--port {port}: {said}; --port 0 picks a free port")
    return ConfigError(f"--host {host}: {said}")


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


@click.group("model")
def command() -> None:
    """The scripted model: replay a plan to real agent CLIs with zero tokens."""


@command.command("serve")
@click.option(
    "--plan",
    "plan_path",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="plan.json to play (the scripted agent's format).",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    help="Port to listen on; 0 picks a free one.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option(
    "--log",
    "log_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Append one JSON line per request to FILE.",
)
@click.option(
    "--repeat",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Repeat number: selects the plan variant.",
)
@click.option(
    "--condition",
    default="default",
    show_default=True,
    help="A/B condition: selects the plan under 'conditions' (none but default without them).",
)
def serve(
    plan_path: Path,
    port: int,
    host: str,
    log_path: Path | None,
    repeat: int,
    condition: str,
) -> int:
    """Serve the Anthropic, OpenAI and Gemini APIs from a plan until interrupted.

    Prints the base URL. Point Claude Code at it with ANTHROPIC_BASE_URL=URL, Codex with a
    provider whose base_url is URL/v1, Gemini CLI with GOOGLE_GEMINI_BASE_URL=URL.
    """
    from proctor.agents.credentials import register_user_keys
    from proctor.errors import ConfigError
    from proctor.scripted.plan import (
        PlanError,
        plan_errors,
        plan_for_condition,
        steps_for_repeat,
        validate_plan,
    )
    from proctor.scripted.server import ScriptedModelServer
    from proctor.scripted.turns import plan_turns

    register_user_keys()  # masked in what it says (a refused body's value) and its log
    plan = _load_plan(plan_path)
    try:  # named as given, not as "plan.json"
        validate_plan(plan, where=f"--plan {plan_path}")
    except PlanError as exc:
        raise ConfigError(str(exc)) from exc
    _check_condition(plan, plan_path, condition)
    turns = len(plan_turns(plan, condition, repeat))
    asks = any(
        "ask" in step
        for step in steps_for_repeat(plan_for_condition(plan, condition) or {}, repeat)
    )
    notices = Notices(_say, turns, asks)
    server = ScriptedModelServer(
        plan,
        port=port,
        host=host,
        log_path=log_path,
        repeat=repeat,
        condition=condition,
        errors=plan_errors(plan, condition),  # as a trial's server plays them
        on_request=notices,
    )
    if log_path is not None:
        _check_log(log_path)
    try:
        server.start()
    except OSError as exc:
        raise _listen_error(exc, host, port) from exc
    try:  # from here on a Ctrl-C or SIGTERM, even one that comes as the URL is printed, stops it
        if not _is_loopback(host):
            click.echo(
                f"warning: listening on {host}, not loopback; anyone who can reach it can use it",
                err=True,
            )
        empty = _empty_plan_warning(plan, plan_path, condition, repeat)
        if empty is not None:
            click.echo(f"warning: {empty}", err=True)
        # The note before the URL: a script that reads the URL and stops the server at once
        # has had the note (said after it, a stop that came first left it unsaid).
        steps = len(server.steps)
        click.echo(
            f"scripted model: {steps} step{'' if steps == 1 else 's'}; Ctrl-C stops", err=True
        )
        click.echo(server.base_url)
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        notices.stopped()
    return 0
