"""``proctor model``: the scripted model server from the command line."""

from __future__ import annotations

import ipaddress
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
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


def notice(record: RequestRecord) -> str | None:
    """What ``serve`` says on stderr of a request that did not go as planned, or None.

    A request the server refused (an unknown path, a body it cannot read: the status and why),
    a plan tool call the request did not offer the model, and a prompt past the plan's last
    turn. An injected error is the plan's own doing and a client that went away is no fault
    of the plan: neither is said.
    """
    from proctor.scripted.offered import unoffered_sentence, unoffered_tool
    from proctor.scripted.plan import NOTHING_LEFT

    asked = f"{record.method} {record.path}"
    if record.status >= 400 and record.played != "error":
        return f"{asked} answered {record.status}: {record.error or 'no reason recorded'}"
    played = record.played
    if not isinstance(played, dict):
        return None
    request = f"{asked} (request {record.index}, {record.dialect})"
    tool = unoffered_tool(played, record.tools)
    if tool is not None:
        turn, response = played.get("segment", 0), played.get("response", 0)
        said = unoffered_sentence(tool, turn, response, "the client", record.tools)
        return f"{request}: {said}"
    if played.get("exhausted") is True:
        return (
            f"{request}: prompt {played.get('segment')} comes after the plan's last turn, "
            f"so the model replied '{NOTHING_LEFT}'"
        )
    return None


def _say_notice(record: RequestRecord) -> None:
    """Say :func:`notice` of ``record`` on stderr, as a warning."""
    said = notice(record)
    if said is not None:
        click.echo(f"warning: {said}", err=True)


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
    help="A/B condition: selects the plan under 'conditions'.",
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
    from proctor.errors import ConfigError
    from proctor.scripted.plan import PlanError, plan_errors, plan_for_condition, validate_plan
    from proctor.scripted.server import ScriptedModelServer

    plan = _load_plan(plan_path)
    try:  # named as given, not as "plan.json"
        validate_plan(plan, where=f"--plan {plan_path}")
    except PlanError as exc:
        raise ConfigError(str(exc)) from exc
    if plan_for_condition(plan, condition) is None:
        names = ", ".join(plan["conditions"])  # type: ignore[arg-type]
        raise ConfigError(
            f"--condition {condition}: --plan {plan_path} has no entry for it under "
            f"'conditions' (conditions: {names})"
        )
    server = ScriptedModelServer(
        plan,
        port=port,
        host=host,
        log_path=log_path,
        repeat=repeat,
        condition=condition,
        errors=plan_errors(plan, condition),  # as a trial's server plays them
        on_request=_say_notice,
    )
    if log_path is not None:
        _check_log(log_path)
    try:
        server.start()
    except OSError as exc:
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    try:  # from here on a Ctrl-C or SIGTERM, even one that comes as the URL is printed, stops it
        if not _is_loopback(host):
            click.echo(
                f"warning: listening on {host}, not loopback; anyone who can reach it can use it",
                err=True,
            )
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
    return 0
