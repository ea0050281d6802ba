"""The first phase of a trial: a fresh workspace from the fixture, a scratch home, the agent's
environment, the case's setup lines, proctor's own model roles, and what the workspace held
before the agent (for the diff)."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from proctor.agents.base import AgentAdapter, adapter_for
from proctor.agents.credentials import (
    Credentials,
    LentFile,
    give_back,
    lends,
    lent_folders,
    register_spec_secrets,
)
from proctor.agents.credentials import find as find_credentials
from proctor.agents.credentials import install as install_credentials
from proctor.errors import WorkspaceError
from proctor.execute.context import TrialContext
from proctor.execute.servers import start_harness_server
from proctor.llm.roles import RoleSet, roles_from
from proctor.llm.secrets import environment, load_dotenv
from proctor.paths import cache_folder
from proctor.util.cutting import output_tail
from proctor.util.logs import LOGGER, shown_as
from proctor.util.processes import MARKER_VARIABLE, run_captured
from proctor.workspace.confine import first_link_out
from proctor.workspace.diff import Snapshot, take_snapshot
from proctor.workspace.environment import agent_environment
from proctor.workspace.fixture import materialise_fixture, zip_template

SETUP_TIMEOUT_SEC = 600.0


@dataclass(frozen=True)
class Prepared:
    adapter: AgentAdapter[Any]
    agent_version: str | None
    env: dict[str, str]
    """The environment of the setup lines and the evaluators (and, with ``credentials``, of
    the agent)."""
    before: Snapshot
    """The workspace as the agent found it."""
    roles: RoleSet | None
    credentials: Credentials | None = None
    """What the agent is lent of the user's own key variables and login files."""

    @property
    def agent_env(self) -> dict[str, str]:
        """The agent's environment: ``env`` and the key variables lent to the agent only."""
        # What the profile, the case or the condition set wins over what is lent.
        if self.credentials is None:
            return self.env
        return {**self.credentials.keys, **self.credentials.routes, **self.env}


def shell_lines(
    ctx: TrialContext,
    env: dict[str, str],
    phase: str,
    lines: list[str],
    fatal: bool = True,
    confined: Iterable[str] = (),
) -> None:
    """Run setup or teardown lines in the workspace, their output appended to the trial's
    ``stdout.log``/``stderr.log``; a failing setup line is a WorkspaceError, and so is one
    after which a path of ``confined`` (relative to the trial's scratch folder) leads out of
    it through a link (see :func:`refuse_links_out`)."""
    for i, line in enumerate(lines):
        result = run_captured(
            ["/bin/sh", "-c", line], cwd=ctx.workspace, env=env, timeout=SETUP_TIMEOUT_SEC
        )
        with open(ctx.paths.stdout_log, "a", encoding="utf-8") as out:
            out.write(f"# {phase}[{i}]: {line}\n{result.stdout}")
        with open(ctx.paths.stderr_log, "a", encoding="utf-8") as err:
            err.write(f"# {phase}[{i}]: {line}\n{result.stderr}")
        flooded = result.stopped_for_output()
        if fatal and (result.returncode != 0 or result.timed_out or flooded):
            how = flooded or ("timed out" if result.timed_out else f"exited {result.returncode}")
            said = output_tail(result, 300).strip()  # masked before it is cut
            detail = f": {said}" if said else " (it wrote nothing)"
            raise WorkspaceError(f"{phase} line {i + 1} `{line}` {how}{detail}")
        refuse_links_out(ctx, confined, f"{phase} line {i + 1} `{line}`")


def refuse_links_out(ctx: TrialContext, confined: Iterable[str], who: str) -> None:
    """A WorkspaceError when a path of ``confined`` (relative to the trial's scratch folder:
    ``home/.claude``) now leads out of the scratch folder through a link: the agent's
    settings, and the login it is lent, would be written wherever the link leads."""
    found = first_link_out(ctx.scratch, [ctx.scratch / rel for rel in confined])
    if found is None:
        return
    link, target = found
    if link == ctx.scratch:
        where = f"the trial's scratch folder {link}"
    elif link.is_relative_to(ctx.home):
        where = "$HOME" + "".join(f"/{part}" for part in link.relative_to(ctx.home).parts)
    else:
        where = f"the trial's scratch folder's {link.relative_to(ctx.scratch)}"
    raise WorkspaceError(
        f"{who} made {where} a link to {target}, outside the trial's scratch folder: "
        f"proctor writes {ctx.spec.agent}'s settings and lent login in the scratch folder "
        "only, so the trial did not start (make a folder there, or a link that stays inside it)"
    )


def prepare(ctx: TrialContext) -> Prepared:
    spec = ctx.spec
    ctx.paths.root.mkdir(parents=True, exist_ok=True)
    adapter = adapter_for(spec.agent, {spec.agent: spec.profile})
    ctx.home.mkdir(parents=True, exist_ok=True)
    case = spec.case.case
    fixture, kind = case.fixture, case.fixture_kind
    if fixture is not None and kind == "zip":
        fixture, kind = zip_template(fixture, ctx.templates), "dir"
    fixture_stats = materialise_fixture(fixture, kind, ctx.workspace)
    register_spec_secrets(spec, os.environ)
    env = agent_environment(
        os.environ,
        home=ctx.home,
        forward=spec.profile.forward_env,
        extra={**spec.case.env, **spec.profile.env, **spec.variant.env},
    )
    env[MARKER_VARIABLE] = ctx.marker
    # Temp files of everything the trial runs (a CLI's task outputs, a test's temp folders)
    # go inside its scratch, and go with it: nothing of a trial outlives it in the user's
    # own temp folder.
    temp = ctx.scratch / "tmp"
    temp.mkdir(exist_ok=True)
    given = {**spec.case.env, **spec.profile.env, **spec.variant.env}
    if "TMPDIR" not in given:  # what the case, profile or condition sets wins, as ever
        env["TMPDIR"] = str(temp)
    # What the agent's adapter writes in the scratch folder (and the folder its login is lent
    # to) must stay there: a setup line's link out of it ends the trial before anything is.
    confined = [*adapter.scratch_writes, *lent_folders(adapter.name)]
    if spec.case.provision.merged_with(spec.variant.provision).skills:
        confined += adapter.skill_folders
    shell_lines(ctx, env, "setup", spec.case.setup, confined=confined)
    credentials = None  # lent after the setup lines: they never see the login
    if lends(spec.profile, on_scripted_model=spec.backend == "scripted"):
        credentials = find_credentials(adapter.name, os.environ)
        lent = install_credentials(credentials, ctx.home, within=ctx.scratch)
        if lent:
            ctx.cleanups.callback(_give_back, lent)
    roles = None
    if spec.roles is not None:
        roles = roles_from(spec.roles, environment(), load_dotenv(ctx.options.dotenv_dir))
        start_harness_server(ctx, roles)
        # When the trial is over (its judges' calls too), before its scripted server stops.
        ctx.cleanups.callback(roles.close)
    return Prepared(
        adapter=adapter,
        agent_version=adapter.version(spec.profile),
        env=env,
        before=take_snapshot(
            ctx.workspace,
            fixture,
            ctx.scratch / "before",
            fixture_stats,
        ),
        roles=roles,
        credentials=credentials,
    )


def _give_back(lent: list[LentFile]) -> None:
    """A login the agent renewed goes back to the user's file (see
    :func:`proctor.agents.credentials.give_back`), one trial at a time on this machine."""
    lock = cache_folder(os.environ) / "credentials.lock"
    for note in give_back(lent, lock):
        logging.getLogger(LOGGER).warning("%s", note, extra=shown_as("note"))
