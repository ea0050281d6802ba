"""``proctor prepare`` and ``proctor record``: a session a person drives, as a trial."""

from __future__ import annotations

import json
from pathlib import Path

import click

from proctor.cli.options import (
    CasesPath,
    ConfigPath,
    ResultsFolder,
    config_option,
    reporter_option,
)
from proctor.cli.signals import echo_unless_gone

RESULTS = Path("proctor-results")
case_source = click.option(
    "--source",
    type=CasesPath(),
    default=Path("."),
    help="Where CASE is found by name.",
)


@click.command("prepare")
@click.argument("case")
@click.option("--condition", default="default", show_default=True, help="The condition.")
@case_source
@click.option(
    "--config",
    "config",
    # The `proctor record` line prepare prints names the file, read again when it is run.
    type=ConfigPath(no_stdin="prepare names the file in the `proctor record` line it prints"),
    default=None,
    help="Top-level configuration file (default: ./proctor.json when present).",
)
@click.option(
    "--agent", default="claude-code", show_default=True, help="The agent the person runs."
)
@click.option(
    "--out",
    type=ResultsFolder(),
    help="Results folder (default: proctor.json's out, else ./proctor-results).",
)
@click.option("--configure-mcp", is_flag=True, help="Write the condition's MCP servers too.")
def prepare_command(
    case: str,
    condition: str,
    source: Path,
    config: Path | None,
    agent: str,
    out: Path | None,
    configure_mcp: bool,
) -> int:
    """Make CASE's workspace (a case folder, or a case name or task id under --source) with the
    condition's add-ons, and its exact prompt in a file; print JSON with workingDirectory,
    promptFile, resultsDir and nextSteps."""
    from proctor.session.manual import prepare_session

    prepared = prepare_session(
        case,
        condition,
        source=source,
        config=config,
        agent=agent,
        out=out,
        configure_mcp=configure_mcp,
    )
    echo_unless_gone(json.dumps(prepared, indent=2))
    return 0


@click.command("record")
@click.argument("case")
@click.option(
    "--condition",
    help="The condition it ran (default: the one it was prepared with, else default).",
)
@click.option(
    "--workspace",
    type=click.Path(path_type=Path),
    required=True,
    help="The workspace the session ran in (prepare's workingDirectory).",
)
@click.option(
    "--transcript",
    type=click.Path(path_type=Path, exists=True),
    help="The agent's transcript (default: found in its history for --workspace).",
)
@click.option("--result-json", help="The agent's own final JSON report (text or a file).")
@click.option(
    "--agent",
    help="The person's agent (default: the one it was prepared for, else claude-code).",
)
@click.option(
    "--model",
    help="The model the agent used, when known (scripted: proctor's scripted model server, "
    "whose responses cost nothing).",
)
@click.option(
    "--keep-workspace",
    is_flag=True,
    help="Keep a copy of the workspace in the trial folder (for run --repeat-check --recorded).",
)
@case_source
@config_option
@reporter_option
@click.option(
    "--out",
    type=ResultsFolder(),
    help="Results folder (default: proctor.json's out, else ./proctor-results).",
)
def record_command(
    case: str,
    condition: str | None,
    workspace: Path,
    transcript: Path | None,
    result_json: str | None,
    agent: str | None,
    model: str | None,
    keep_workspace: bool,
    source: Path,
    config: Path | None,
    reporters: tuple[str, ...],
    out: Path | None,
) -> int:
    """Record a session a person drove in --workspace as a trial of CASE: its transcript, the
    case's evaluators on the workspace, process metrics and rules, in a new run folder that
    `report` and `compare` read like any other. Exits like `proctor run`."""
    from proctor.cli.options import blank_refused
    from proctor.report.reporters import printed, reporter_names
    from proctor.session.manual import record_session

    # Blank, each would read as not given: the prepared session's, or the default.
    blank_refused(("--condition", condition), ("--agent", agent), ("--model", model))
    names = reporter_names(reporters or ["markdown"])
    run_dir, _, outputs, code = record_session(
        case,
        condition,
        workspace=workspace.resolve(),
        source=source,
        config=config,
        agent=agent,
        out=out,
        transcript=transcript,
        result_json=result_json,
        model=model,
        reporters=tuple(names),
        keep_workspace=keep_workspace,
    )
    echo_unless_gone(outputs[printed(names)], nl=False)  # one document; the others are files
    click.echo(f"proctor: recorded in {run_dir}", err=True)
    return code
