"""``proctor hooks test``: run an add-on's hook commands on planted hook inputs and check what
they decide, with no agent and no model."""

from __future__ import annotations

from pathlib import Path

import click

from proctor.cli.options import FiniteRange
from proctor.cli.signals import echo_unless_gone


@click.group("hooks")
def command() -> None:
    """Test an add-on's hook commands on planted hook inputs."""


@command.command("test")
@click.argument("plugin_or_settings", type=click.Path(path_type=Path))
@click.option(
    "--cases",
    "cases_file",
    required=True,
    type=click.Path(path_type=Path),
    help="JSON file of planted hook inputs and what each must produce.",
)
@click.option(
    "--agent",
    default="claude-code",
    show_default=True,
    help="Agent whose hook input to imitate, for cases that name none "
    "(claude-code, codex, gemini-cli).",
)
@click.option(
    "--timeout",
    "timeout_cap",
    type=FiniteRange(min=0.1),
    default=30.0,
    show_default=True,
    help="Longest a hook may run, in seconds, even when it declares a longer timeout.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
def test_command(
    plugin_or_settings: Path, cases_file: Path, agent: str, timeout_cap: float, as_json: bool
) -> int:
    """Run the hooks of PLUGIN_OR_SETTINGS (a plugin or extension folder, or a settings file)
    on each case of --cases, as the agent CLI would run them, and check the decision, output
    and exit code.

    Exit codes: 0 every case passed, 1 a case failed, 2 configuration error, 3 a hook could
    not be run (timeout, program not found) and no case failed.
    """
    from proctor.addons.hooks import run_hook_tests
    from proctor.addons.hooks.cases import check_default_agent
    from proctor.agents.credentials import register_user_keys
    from proctor.models.io import dump_json
    from proctor.util.text import controls_escaped

    # Every key of the environment and ./.env is masked in what this prints: a case's input,
    # what a hook read on stdin and wrote back.
    register_user_keys()
    agent = check_default_agent(agent)
    run = run_hook_tests(plugin_or_settings, cases_file, agent=agent, timeout_cap=timeout_cap)
    report = run.shown()
    if as_json:
        echo_unless_gone(dump_json(report.to_dict()), nl=False)
        return run.exit_code

    # A hook's output and the file's names and commands, with their control characters
    # escaped: a terminal's escape sequence a hook printed is shown, never obeyed.
    def say(text: str, nl: bool = True) -> None:
        echo_unless_gone(controls_escaped(text), nl=nl)

    for result in report.results:
        status = "PASS" if result.ok else "ERROR" if result.errored else "FAIL"
        subject = f"{result.event} {result.tool}" if result.tool else result.event
        say(f"{status:5} {result.id}  [{result.agent} {subject}] {result.decision}: ", nl=False)
        say(result.message)
    for skipped in report.skipped_handlers:
        if "(switched off: " in skipped or "(not loaded: " in skipped:  # nor would the CLI
            say(f"note: not run: {skipped}")
        else:
            say(f"note: not run (proctor runs command hooks only): {skipped}")
    if report.not_loaded is not None and report.untrusted:
        say(
            f"note: Codex would not run these hooks in their project: {report.not_loaded} "
            "(it reads a project's .codex/hooks.json and config.toml only in a trusted folder)"
        )
    elif report.not_loaded is not None:  # the user's config.toml: Codex would not start
        say(f"note: Codex would not run these hooks: {report.not_loaded}")
    if report.loaded_with is not None:
        say(
            f"note: Codex also loads the hooks of {report.loaded_with}, not tested here, and "
            'warns: "loading hooks from both …; prefer a single representation for this layer"'
        )
    for copied in report.home_copies:
        say(f"note: copied into each scratch home for the hooks that name it: {copied}")
    for withheld in report.home_withheld:
        say(
            "note: not copied (it holds credentials or session records, leads to them or above "
            f"its folder, or leads nowhere), though a hook names it: "
            f"{withheld}"
        )
    for command in report.home_unresolved:
        say(
            "note: names your agent folder, but nothing of it was copied into the scratch "
            f"home: {command}; name each file the hook needs by its path (~/.claude/hooks/x.sh)"
        )
    summary = f"{report.passed} passed, {report.failed} failed"
    if report.errored:
        summary += f", {report.errored} could not run"
    say(summary)
    return run.exit_code
