"""Sessions a person drives: ``proctor prepare`` makes the workspace and the exact prompt, the
person runs their agent there, and ``proctor record`` turns what happened into a trial of an
ordinary run folder, which ``report`` and ``compare`` read like any other.

``prepare`` writes ``<out>/prepared/<case>-<condition>-<stamp>/`` holding ``workspace/`` (the
fixture, after the case's setup lines, with the condition's skills in each CLI's project folder
and, with ``--configure-mcp``, its MCP servers in ``.mcp.json`` and ``.gemini/settings.json``),
``before/`` (the workspace as it was handed over, for the diff, its credentials masked: see
:mod:`proctor.session.handover`), ``prompt.md``, ``session.json`` and, for the scripted agent,
``steps.json`` (the steps of the case's plan its program plays). ``record`` finds the
agent's native transcript of a session in that workspace where the CLI keeps its history (or
takes the one given), runs the case's evaluators on the workspace, and writes the trial with
its trajectory, process metrics, rules, diff and, when given or when the case asks for one, the
agent's own JSON report; then it masks the prepared session's folder.
"""

from __future__ import annotations

import json
import logging
import os
import shlex
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from proctor.agents.provisioning import materialise_addon, mcp_server_config
from proctor.agents.scripted.adapter import by_hand
from proctor.agents.spec import spec_for
from proctor.errors import ConfigError
from proctor.evaluators.base import EvaluationContext
from proctor.evaluators.combiners import COMBINERS
from proctor.execute.collect import copy_session_files
from proctor.execute.driving import trial_prompt
from proctor.execute.evaluate import evaluated
from proctor.execute.prepare import SETUP_TIMEOUT_SEC
from proctor.execute.trial import case_labels, self_report
from proctor.execute.verdict import none_ran, verdict_reason
from proctor.llm.roles import roles_from
from proctor.llm.secrets import environment, load_dotenv
from proctor.metrics.effort import responses, spent_on
from proctor.metrics.process import compute_process_metrics
from proctor.metrics.rules import evaluate_rules
from proctor.models.io import write_json, write_record, write_text_atomic, write_trajectory
from proctor.models.plan import TrialSpec
from proctor.models.pricing import price_usage
from proctor.models.run import HostInfo, RunManifest, SkippedCaseRecord
from proctor.models.suite import SuiteRecord
from proctor.models.trajectory import Trajectory
from proctor.models.trial import (
    BY_HAND,
    NOT_EVALUATED_HERE,
    EvaluatorResult,
    TranscriptInfo,
    TrialRecord,
)
from proctor.paths import RunPaths, TrialPaths, current_folder, read_against
from proctor.plan.checks import check_out_outside_cases
from proctor.plan.records import resolved_record
from proctor.session import journal
from proctor.session.handover import (
    SESSION_FILE,
    link_outside,
    prepared_session,
    register_session_secrets,
    scrub_session,
    write_private_json,
)
from proctor.session.one_case import plan_one, session_source
from proctor.session.recorded import (
    PROMPT_DIGEST,
    as_prepared,
    find_transcript,
    mark_recorded,
    prompt_digest,
    refuse_changed_prompt,
    refuse_recorded_again,
    refuse_session_folder,
    refuse_session_recorded,
    session_prices,
    session_timings,
    transcript_notes,
)
from proctor.session.reports import SHOW_FINDINGS, held_changes, write_reports
from proctor.session.start import config_record, new_run_paths, source_suite
from proctor.session.step_summary import append_step_summary, suite_md
from proctor.session.transcript import session_in
from proctor.transcripts.detect import CLI_NAMES, PARSERS, session_parts
from proctor.util.clock import now_iso
from proctor.util.cutting import output_tail
from proctor.util.files import remove_tree
from proctor.util.logs import LOGGER, shown_as
from proctor.util.masking import mask_bytes, scrub_tree
from proctor.util.processes import run_captured
from proctor.util.text import noun_for
from proctor.workspace.diff import copy_snapshot, workspace_diff
from proctor.workspace.environment import agent_environment
from proctor.workspace.fixture import materialise_fixture

SKILL_FOLDERS = (".claude/skills", ".agents/skills", ".gemini/skills")
"""Where Claude Code, Codex and Gemini CLI find a project's skills."""


def _provision(spec: TrialSpec, workspace: Path, configure_mcp: bool) -> list[str]:
    """The condition's add-ons in the workspace's project folders; what is left to the person."""
    provision = spec.case.provision.merged_with(spec.variant.provision)
    left: list[str] = []
    for entry in provision.skills:
        for root in SKILL_FOLDERS:
            link = link_outside(workspace / root, workspace)
            if link is not None:  # copying would replace the folder of that name there
                raise ConfigError(
                    f"{link}: the skill '{entry.name}' is copied into the workspace only "
                    "(remove the link the fixture or a setup line made)"
                )
            materialise_addon(entry, spec.case.case.path, "skills", workspace / root / entry.name)
    if provision.mcps and configure_mcp:
        # The person's agent starts these servers: their credentials are written as they are,
        # for the owner's eyes only, and masked everywhere else (see proctor.session.handover).
        servers = {e.name: mcp_server_config(e) for e in provision.mcps}
        for path in (workspace / ".mcp.json", workspace / ".gemini" / "settings.json"):
            write_private_json(path, {"mcpServers": servers}, workspace)
    elif provision.mcps:
        names = ", ".join(e.name for e in provision.mcps)
        servers_word = noun_for(len(provision.mcps), "MCP server")
        left.append(
            f"Add the {servers_word} {names} to your agent (or prepare with --configure-mcp)."
        )
    for plugin in provision.plugins:
        left.append(f"Install the plugin '{plugin.name}' the condition provisions.")
    for hook in provision.hooks:
        left.append(f"Install the hook '{hook.name}' the condition provisions.")
    return left


def _set_up(spec: TrialSpec, root: Path, workspace: Path) -> None:
    """The fixture in ``workspace``, then the case's setup lines run there as in a trial: a
    scratch home, the deny-listed environment, a deadline."""
    c = spec.case.case
    materialise_fixture(c.fixture, c.fixture_kind, workspace)
    env = agent_environment(os.environ, home=root / "setup-home")
    for line in spec.case.setup:
        argv = ["/bin/sh", "-c", line]
        done = run_captured(argv, cwd=workspace, env=env, timeout=SETUP_TIMEOUT_SEC)
        flooded = done.stopped_for_output()
        if done.returncode != 0 or done.timed_out or flooded:
            how = flooded or ("timed out" if done.timed_out else f"exited {done.returncode}")
            said = output_tail(done, 300).strip()  # masked before it is cut
            detail = f": {said}" if said else " (it wrote nothing)"
            raise ConfigError(
                f"case '{spec.case.name}' ({c.path}): setup line `{line}` {how}{detail}; "
                "nothing was prepared"
            )
    remove_tree(root / "setup-home")  # a scratch home, as a trial's: it goes when done


def prepare_session(
    case: str,
    condition: str,
    *,
    source: Path,
    config: Path | None,
    agent: str,
    out: Path | None,
    configure_mcp: bool,
) -> dict[str, Any]:
    """Make the prepared session; what ``proctor prepare`` prints. ``out`` None: the results
    folder a run takes (``proctor.json``'s ``out``, else ``./proctor-results``)."""
    plan, spec = plan_one(case, condition, source, config, agent, out)
    out = out if out is not None else plan.out
    check_out_outside_cases(out, plan.cases)  # the workspace would be copied into itself
    given, out = out, out.resolve()  # the person works elsewhere: every path printed is absolute
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    parent = out / "prepared"
    prefix = f"{spec.case.name}-{condition}-{agent}-{stamp}-"
    try:
        parent.mkdir(parents=True, exist_ok=True)
        root = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))  # never two sessions in one
    except OSError as exc:  # a file named `prepared` there (left as it is), a folder not ours
        why = "a file, not a folder" if parent.exists() and not parent.is_dir() else exc.strerror
        raise ConfigError(
            f"--out {given}: prepared sessions go in {parent}, which cannot be made ({why})"
        ) from None
    workspace = root / "workspace"
    c = spec.case.case
    try:
        _set_up(spec, root, workspace)
        left = _provision(spec, workspace, configure_mcp)
    except BaseException:
        # A session that cannot be handed over leaves no half-made folder to be taken for one.
        remove_tree(root)
        raise
    shutil.copytree(workspace, root / "before", symlinks=True)
    # Only the workspace holds the credentials the person's agent needs: the copy kept for
    # the diff holds them masked (`record` diffs the workspace masked too).
    register_session_secrets(spec, agent)
    scrub_tree(root / "before")
    prompt = root / "prompt.md"
    handed = trial_prompt(spec)
    write_text_atomic(prompt, handed + "\n")
    case_dir = c.path.resolve()  # `record` runs from the workspace: never a relative path
    session = {
        "case": str(case_dir),
        "name": spec.case.name,
        "condition": condition,
        "agent": agent,
        "source": str(session_source(case, source)),
        "config": str(config) if config else None,
        "preparedAt": now_iso(),
        PROMPT_DIGEST: prompt_digest(handed),
    }
    write_json(root / SESSION_FILE, session)
    words = ["proctor", "record", str(case_dir), "--condition", condition]
    words += ["--workspace", str(workspace), "--agent", agent, "--out", str(out)]
    if config is not None:
        words += ["--config", str(config.resolve())]
    record = shlex.join(words)
    return {
        "workingDirectory": str(workspace),
        "promptFile": str(prompt),
        "resultsDir": str(out),
        "nextSteps": [
            f"cd {workspace}",
            _start(spec, agent, root, prompt),
            *left,
            f"When the session is over: {record}",
        ],
    }


def _start(spec: TrialSpec, agent: str, root: Path, prompt: Path) -> str:
    """The step that starts the person's agent in the workspace: its CLI, or, for the scripted
    agent (which has no command of its own), the exact command line that runs its program on
    the case's plan (its steps written to ``root/steps.json``)."""
    if (spec.profile.agent or agent) != "scripted":
        return f"Start {agent}{_binary(agent)} there and give it the prompt in {prompt}, exactly."
    argv = by_hand(
        spec.profile, spec.case.case.plan, spec.condition, spec.agent_model, root / "steps.json"
    )
    return (
        f"Start the scripted agent there with `{shlex.join(argv)}`, give it the prompt in "
        f"{prompt}, exactly, and quit it with /exit once it is done."
    )


def _binary(agent: str) -> str:
    """`` (`claude`)``: the command that starts ``agent``, when it is not its id."""
    spec = spec_for(agent)
    binary = spec.binary if spec is not None else None
    return f" (`{binary}`)" if binary and binary != agent else ""


def _json_report(value: str) -> dict[str, Any]:
    path = Path(value)
    is_file = path.is_file()
    try:
        text = path.read_text(encoding="utf-8") if is_file else value
        data = json.loads(text)
    except ValueError as exc:  # (UnicodeDecodeError too)
        if not is_file and not value.lstrip().startswith(("{", "[")):  # a file name, mistyped
            raise ConfigError(f"--result-json {value}: no such file, nor a JSON object") from None
        where = f"{value}: " if is_file else ""
        raise ConfigError(f"--result-json: {where}not a JSON object ({exc})") from exc
    except OSError as exc:
        raise ConfigError(f"--result-json {value}: cannot be read ({exc})") from exc
    if not isinstance(data, dict):
        raise ConfigError("--result-json: expected a JSON object")
    return data


def evaluate_on(
    spec: TrialSpec,
    workspace: Path,
    trial_root: TrialPaths,
    trajectory: Trajectory,
    raw: Path | None,
    *,
    home: Path,
    timed_out: bool = False,
) -> list[EvaluatorResult]:
    """The case's evaluators over a workspace and a trajectory outside a trial's run (a
    session recorded by hand, a stored trial re-evaluated); ``home`` is their scratch home."""
    roles = roles_from(spec.roles, environment(), load_dotenv()) if spec.roles else None
    context = EvaluationContext(
        workspace=workspace,
        trial=trial_root,
        case_dir=spec.case.case.path,
        agent=spec.agent,
        trajectory=trajectory,
        raw_transcript=raw,
        env=agent_environment(os.environ, home=home),
        timed_out=timed_out,
        roles=roles,
        case_evaluators=spec.case.evaluators,
    )
    try:
        return [evaluated(entry, context, spec.condition) for entry in spec.case.evaluators]
    finally:
        if roles is not None:
            roles.close()


def _session_of(found: Path, agent: str, spec: TrialSpec) -> tuple[Path, str]:
    """The transcript file ``found`` names and its format, which must be the one ``agent``
    writes: a Codex rollout recorded as a Claude Code session would count on the wrong side of
    an A/B, with the wrong CLI's tokens and steps. A folder gives the agent's own session."""
    agent_spec = spec_for(spec.profile.agent or agent)
    wanted = agent_spec.transcript_format if agent_spec is not None else None
    # A recording reads what it is given, never forced to a format; of a folder, the newest
    # session of the agent's as `proctor parse` shows it (never a subagent's thread).
    agent_id = agent_spec.id if agent_spec is not None else None
    file, fmt, _ = session_in(found, agent_id, forcible=False)
    if wanted is not None and fmt != wanted:
        raise ConfigError(
            f"--transcript {found}: a session of {_CLI.get(fmt, fmt)}, but it is recorded "
            f"as {agent}'s ({_CLI.get(wanted, wanted)}); give the transcript {agent} wrote, or "
            "prepare and record the session for the agent that ran it"
        )
    return file, fmt


_CLI = {**CLI_NAMES, "acp": "an ACP agent"}


def record_session(
    case: str,
    condition: str | None,
    *,
    workspace: Path,
    source: Path,
    config: Path | None,
    agent: str | None,
    out: Path | None,
    transcript: Path | None,
    result_json: str | None,
    model: str | None,
    reporters: tuple[str, ...],
    keep_workspace: bool = False,
) -> tuple[Path, TrialRecord, dict[str, str], int]:
    """Write the run folder of the recorded session; its folder, trial, reports, exit code.
    ``keep_workspace``: a copy of the workspace is kept in the trial folder, as a run keeps a
    trial's (what ``run --repeat-check --recorded`` re-evaluates)."""
    if not workspace.is_dir():
        what = "a file, not a folder" if workspace.exists() else "no such folder"
        raise ConfigError(f"--workspace {workspace}: {what}")
    refuse_session_folder(workspace)
    prepared = prepared_session(workspace)
    if prepared is not None:
        refuse_recorded_again(prepared, workspace)
    condition = as_prepared("--condition", condition, prepared, "condition", "default")
    agent = as_prepared("--agent", agent, prepared, "agent", "claude-code")
    plan, spec = plan_one(case, condition, source, config, agent, out)
    # Absolute: evaluators run from the case folder, and are given the trial's paths. Not
    # given: the results folder a run takes (proctor.json's out, else ./proctor-results).
    out = Path(os.path.abspath(out if out is not None else plan.out))
    check_out_outside_cases(out, plan.cases)
    # The person's own keys may be anywhere in their transcript or workspace: masked like a
    # run's, every key of the environment and ./.env (not only the recorded agent's own).
    register_session_secrets(spec, agent)
    if prepared is not None and prepared.get("name") not in (None, spec.case.name):
        raise ConfigError(
            f"{case}: the session in {workspace} was prepared for case {prepared['name']} "
            f"({workspace.parent / SESSION_FILE}); record it as that case"
        )
    if prepared is not None:
        refuse_changed_prompt(prepared, workspace.parent, trial_prompt(spec), case)
    found = transcript or find_transcript(
        agent, workspace, prepared is not None, spec.profile.agent or agent
    )
    file, fmt = _session_of(found, agent, spec)
    # The agent's own report is read before the run folder is made: a bad one leaves nothing
    # behind (a run folder without its trial reads as an interrupted run).
    reported = _json_report(result_json) if result_json is not None else None
    trajectory = PARSERS[fmt](file, None, None)
    # Before the run folder is made: a session recorded already is refused with nothing
    # written (its earlier run folder, and the prepared session's folder, left as they are).
    refuse_session_recorded(out, file, fmt, trajectory.session_id)
    here = current_folder()
    paths = new_run_paths(out)
    # Named in the journal before run.json is written, as a run is: a reader never takes the
    # recording, while its evaluators run, for a run that was killed.
    journal.note(paths.journal, "run-started")
    manifest = RunManifest(
        run_id=paths.root.name,
        proctor_version=_version(),
        started_at=now_iso(),
        argv=["proctor", "record", case],
        host=HostInfo(),
        source=str(session_source(case, source)),
        cwd=str(here) if here is not None else None,  # (None: gone, every path whole)
        trials_planned=1,
        # The findings' suite: the one a run of the case names (a case given as a folder
        # belongs to the folder that holds it, not to --source).
        suite=source_suite(read_against(here, Path(case) if Path(case).is_dir() else source), out),
    )
    write_record(paths.run_json, manifest)
    write_json(paths.config_json, config_record(plan))
    write_record(paths.resolved_json, resolved_record(plan))
    trial = paths.trial(*spec.key)
    trial.root.mkdir(parents=True)
    # As a run keeps a trial's: the main file, and every file of the session in transcript/
    # when it has subagents (copies; the user's files are never touched).
    files = [file, *session_parts(file, fmt)]
    shutil.copyfile(file, trial.raw_transcript)
    if len(files) > 1:
        copy_session_files(files, trial.transcript_dir)
    write_trajectory(trial.trajectory, trajectory.events)
    prices, warnings = session_prices(spec, model, file, sorted(trajectory.usage))
    warnings += transcript_notes(file, fmt, workspace)
    cfg = spec.case.case.config
    metrics = compute_process_metrics(
        trajectory.events,
        expected_files=cfg.expected_files,
        expected_symbols=cfg.expected_symbols,
        config=spec.metrics,
        workspace=str(workspace),
        pricing=prices,
    )
    before = workspace.parent / "before"
    if before.is_dir():
        # As a trial's: its files (the two sides masked: before/ holds the credentials the
        # workspace has in the clear), its links, and no large file read whole.
        diff = workspace_diff(copy_snapshot(before), workspace, mask_bytes)
        write_text_atomic(trial.workspace_diff, diff)
    if keep_workspace:  # as the session left it, before an evaluator writes into it
        shutil.copytree(workspace, trial.workspace, symlinks=True)
    results = evaluate_on(
        spec,
        workspace,
        trial,
        trajectory,
        trial.raw_transcript,
        home=trial.root / ".evaluator-home",
    )
    errored = [r for r in results if r.error]
    passed, score = COMBINERS[spec.case.combiner](
        [r for r in results if not r.error and r.counted], spec.case.pass_threshold
    )
    skipped = none_ran(results)
    if skipped:
        status, reason = "skipped", NOT_EVALUATED_HERE
    elif errored:
        status, reason = "eval-error", "; ".join(f"{r.use}: {r.message}" for r in errored)
    else:
        status = "passed" if passed else "failed"
        reason = verdict_reason(
            passed,
            score,
            spec.case.pass_threshold,
            results,
            combiner=spec.case.combiner,
            labels=[e.label for e in spec.case.evaluators],
        )
    record = TrialRecord(
        case=spec.case.name,
        agent=agent,
        condition=condition,
        repeat=1,
        status=status,
        passed=None if errored or skipped else passed,
        score=None if errored or skipped else score,
        reason=f"{reason} {BY_HAND}",
        combiner=spec.case.combiner,
        pass_threshold=spec.case.pass_threshold,
        evaluators=results,
        timings=session_timings(trajectory),
        usage=trajectory.usage,
        cost=price_usage(
            trajectory.usage,
            prices,
            responses(trajectory.events),
            spent_on(trajectory.events),
        ),
        transcript=TranscriptInfo(
            format=fmt,
            source=str(file),
            raw=trial.raw_transcript.name,
            trajectory=trial.trajectory.name,
            events=len(trajectory.events),
            coverage=trajectory.coverage,
        ),
        process=metrics,
        rules=evaluate_rules(metrics, spec.metrics),
        tool_calls=len(trajectory.agent_calls()),
        tags=spec.case.case.tags,
        labels=case_labels(spec),
        agent_model=model,
        agent_version=trajectory.agent_version,
        session_id=trajectory.session_id,
        warnings=warnings,
    )
    if keep_workspace:
        record.workspace = trial.workspace.name
    if reported is not None:
        record.self_report = reported
    elif cfg.self_report:
        record.self_report, record.self_report_missing = self_report(trajectory)
    record.secrets_masked = scrub_tree(trial.root)
    shutil.rmtree(trial.root / ".evaluator-home", ignore_errors=True)
    if prepared is not None:  # the session is over: what it left keeps no key in the clear
        scrub_session(workspace.parent)
    write_record(trial.trial_json, record)
    if prepared is not None:  # recorded once: a second trial of it would count twice
        mark_recorded(workspace.parent, prepared, paths.root)
    from proctor.report.aggregate import aggregate
    from proctor.report.run_wall import session_span

    suite = aggregate(
        [record],
        plan.gate,
        run_id=paths.root.name,
        skipped_cases=[SkippedCaseRecord(case=s.name, reason=s.reason) for s in plan.skipped],
        planned=1,
        # The session's time, as `proctor report` of the run gives it: not the recording's.
        wall_ms=session_span([record]),
        wall_session=True,
    )
    # The HTML report, and the job summary, once the ledger took the run in (as a run's).
    first = tuple(name for name in reporters if name != "html")
    outputs = write_reports(paths, suite, [record], first, step_summary=False)
    manifest.finished_at = now_iso()
    manifest.trials_finished = 1
    write_record(paths.run_json, manifest)
    journal.note(paths.journal, "run-finished")
    outputs = _with_findings(paths, suite, record, outputs, reporters)
    return paths.root, record, outputs, suite.exit_code


def _with_findings(
    paths: RunPaths,
    suite: SuiteRecord,
    record: TrialRecord,
    outputs: dict[str, str],
    reporters: tuple[str, ...],
) -> dict[str, str]:
    """As ``proctor run`` does once its run is written: the findings ledger of the results
    directory updated with the recording (never raising: a ledger problem is one warning), and
    the reports that show findings written again with what it did; the outputs."""
    from proctor.report.findings import update_after_run
    from proctor.report.reporters import render_into

    changes = None
    try:
        changes = update_after_run(paths.root.parent, paths.root.name)
    except KeyboardInterrupt:  # the recording is written whole: it stands, and is told so
        logging.getLogger(LOGGER).warning(
            "stopped once the session was recorded: the recording stands; the findings "
            "ledger's update was cut short (the next run in %s applies it)",
            paths.root.parent,
            extra=shown_as("note"),
        )
        changes = held_changes(paths)
    again = []
    if changes is not None:
        suite = suite.model_copy(update={"findings": changes})
        again = [name for name in outputs if name in SHOW_FINDINGS]
    if "html" in reporters:
        again.append("html")
    if again:
        outputs = {**outputs, **render_into(paths.root, suite, [record], again)}
    append_step_summary(outputs["markdown"], suite_md(paths.root))
    return outputs


def _version() -> str:
    from proctor._version import __version__

    return __version__
