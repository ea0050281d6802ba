"""One run: a results folder with its manifest, configuration, every trial, the aggregate and
the reporters' files (see :mod:`proctor.paths` for the layout), from a request to its result.

Its stages are modules of their own: the request and the result (:mod:`.request`), the plan,
the folder and its first records (:mod:`.start`), the trials executed and the run finished
(:mod:`.finish`), the reports and the findings ledger (:mod:`.reports`), the CI's job summary
(:mod:`.step_summary`)."""

from __future__ import annotations

from proctor.errors import ConfigError
from proctor.execute.events import Subscriber
from proctor.models.plan import RunPlan
from proctor.plan.checks import check_keys, check_out_outside_cases, check_writable, preflight
from proctor.plan.resolve import nothing_runnable
from proctor.session import journal
from proctor.session.finish import execute_and_finish
from proctor.session.request import RunRequest, RunResult
from proctor.session.start import new_run_paths, plan_run, warn, write_start_records
from proctor.util.files import missing_folders, remove_empty_folders, remove_tree
from proctor.util.signals import HeldStops


def run_plan(
    plan: RunPlan,
    request: RunRequest,
    subscribers: list[Subscriber],
) -> RunResult:
    """Run a plan: check the agent CLIs, write the run's records, execute every trial,
    aggregate, render the reporters, and update the results directory's findings ledger."""
    check_out_outside_cases(plan.out, plan.cases)
    check_writable(plan.out)
    if not request.agents_checked:
        preflight(plan.trials, request.key_folder(), warn)
    if not request.keys_checked:
        check_keys(plan.trials, request.key_folder(), warn)
    # A run folder with its records, or none; and from the folder on, a stop is noted until
    # execute_and_finish acts on it: the run then ends before its first trial, its aggregate
    # written as interrupted (raised here, it left a folder with neither aggregate nor end).
    stops = HeldStops().hold()
    made = missing_folders(plan.out)  # (--out and above: they go too, when left empty)
    try:
        paths = new_run_paths(plan.out)
        # The journal's first line before run.json: a run folder that has its manifest names
        # the proctor running it, so no reader takes a run starting for one killed.
        try:
            journal.note(paths.journal, "run-started")
            manifest = write_start_records(paths, plan, request)
        except OSError as exc:  # a full disk: no trial ran, and its folder goes if it may
            journal.not_started(paths.root, exc, made)
            raise
    except BaseException:
        stops.release()
        raise
    try:
        return execute_and_finish(
            plan, request, paths, manifest, plan.trials, [], subscribers, stops=stops
        )
    except ConfigError:
        # Refused before any trial (a Ray cluster that cannot be joined, no node able to run
        # the trials): the run folder holds only what this call wrote, and goes with it.
        if not any(paths.root.glob("trials/*")) and remove_tree(paths.root):
            remove_empty_folders(made)
        raise
    finally:
        stops.release()  # (released at the start of execute_and_finish, unless it failed first)


def run_session(request: RunRequest, subscribers: list[Subscriber] | None = None) -> RunResult:
    """Discover, plan and run (see :func:`run_plan`). Raises ConfigError when nothing is
    runnable."""
    plan = plan_run(request)
    if not plan.trials:
        raise nothing_runnable(request.source, plan)
    return run_plan(plan, request, list(subscribers or []))
