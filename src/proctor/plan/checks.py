"""What the planner checks of a case before any trial: provisioned add-ons that exist, an agent
mode the adapter supports, profile settings its CLI honours, and agent CLIs that are installed
at the version their profile pins."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from proctor.agents.base import adapter_for
from proctor.agents.credentials import problem as credentials_problem
from proctor.agents.credentials import register_spec_secrets
from proctor.agents.spec import npm_specs
from proctor.errors import AgentError, ConfigError
from proctor.models.config import AgentProfile, CliOverrides, Provision
from proctor.models.plan import Mode, ResolvedCase, TrialSpec
from proctor.paths import NotAFullPath, cache_folder
from proctor.plan.plan_tools import plan_tool_warnings
from proctor.transcripts.detect import CLI_NAMES
from proctor.workspace.above import found_above
from proctor.workspace.archive import ZipFixtureError, check_zip


def check_provision(provision: Provision, case_dir: Path, where: str) -> None:
    """Plugins and skills need an existing ``path`` (relative to the case folder): a folder, or
    a ``.zip`` that passes the checks of a ``src.zip``; MCP servers a ``command`` or a
    ``url``."""
    for kind in ("plugins", "skills"):
        for i, entry in enumerate(getattr(provision, kind)):
            raw = entry.field("path")
            field_name = f"provision.{kind}[{i}].path"
            if not isinstance(raw, str) or not raw:
                raise ConfigError(f"{where}: field '{field_name}' is required ('{entry.name}')")
            path = Path(raw).expanduser()
            path = path if path.is_absolute() else case_dir / path
            if not path.exists():
                # A relative path is read from the case's folder, wherever it is written
                # (proctor.json too): said, for a file shared by every case.
                hint = (
                    ""
                    if Path(raw).expanduser().is_absolute()
                    else (
                        " (a relative path is read from the case's folder, in proctor.json too; "
                        "give an absolute path for one shared by every case)"
                    )
                )
                raise ConfigError(f"{where}: field '{field_name}': {path} does not exist{hint}")
            if path.is_file() and path.suffix == ".zip":
                try:  # checked as a src.zip is, before any trial extracts it
                    check_zip(path)
                except ZipFixtureError as exc:
                    raise ConfigError(f"{where}: field '{field_name}': {exc}") from exc
            elif not path.is_dir():
                raise ConfigError(
                    f"{where}: field '{field_name}': {path} is neither a folder nor a .zip"
                )
    for i, entry in enumerate(provision.mcps):
        if not isinstance(entry.field("command"), str) and not isinstance(entry.field("url"), str):
            raise ConfigError(
                f"{where}: field 'provision.mcps[{i}]' ('{entry.name}'): give 'command' or 'url'"
            )


def check_agent_provision(rc: ResolvedCase, agent: str, profile: AgentProfile) -> None:
    """Each add-on the case provisions (for itself or one of its conditions) is of a kind the
    agent's adapter gives its CLI: a plugin for Codex or Gemini CLI would be dropped, and the
    trial (a condition meant to measure it) would run without it."""
    takes = adapter_for(agent, {agent: profile}).provision_kinds
    parts: list[tuple[str, Provision | None]] = [("", rc.provision)]
    parts += [(f", condition '{n}'", c.provision) for n, c in rc.conditions.items()]
    for where, provision in parts:
        for kind in ("plugins", "skills", "hooks", "mcps"):
            entries = getattr(provision, kind) if provision is not None else []
            if entries and kind not in takes:
                names = ", ".join(f"'{e.name}'" for e in entries)
                loaders = [
                    spec.id
                    for spec in npm_specs()
                    if kind in adapter_for(spec.id, {}).provision_kinds
                ]
                # A plugin is a bundle of skills, hooks and MCP servers: the agent may load those.
                instead = (
                    ", or provision the plugin's skills, hooks and MCP servers as entries of "
                    "their own"
                    if kind == "plugins"
                    else ""
                )
                raise ConfigError(
                    f"case '{rc.name}'{where}: agent '{agent}' cannot load provision.{kind} "
                    f"({names}); it takes {', '.join(sorted(takes)) or 'none'}, and its trials "
                    f"would run without the {kind}. Run the case on an agent that loads them "
                    f"({kind}: {', '.join(loaders)}){instead}"
                )


def resolve_mode(rc: ResolvedCase, agent: str, profile: AgentProfile, cli: CliOverrides) -> Mode:
    """``--mode`` > the case's ``mode`` > the profile's ``mode`` > the adapter's default.

    Also checks what the adapter can check of the profile before any trial (a
    ``permissionMode`` the CLI does not have), as a config error.
    """
    adapter = adapter_for(agent, {agent: profile})
    try:
        adapter.check_profile(profile)
    except AgentError as exc:
        raise ConfigError(f"codingagents.{agent}: {exc}") from exc
    mode = cli.mode or rc.case.config.mode or profile.mode or adapter.default_mode
    if mode not in adapter.modes:
        raise ConfigError(
            f"agent '{agent}' cannot run in {mode} mode (it supports: {', '.join(adapter.modes)})"
        )
    return mode


def preflight(
    trials: Iterable[TrialSpec],
    dotenv_dir: Path | None = None,
    warn: Callable[[str], None] | None = None,
) -> None:
    """Every agent CLI the trials will run is installed, at the version its profile pins, and
    can authenticate when it talks to a real provider (a key or a login is there to lend it);
    one sentence per agent that cannot, naming the fix (a ConfigError, exit 2). ``dotenv_dir``:
    the folder whose ``.env`` the run reads for its roles (default the current one), named
    when it holds a key the agent is not lent. ``warn`` is given :func:`profile_warnings`."""
    trials = list(trials)
    for spec in trials:  # masked in what is said from here on (a CLI's version among it)
        register_spec_secrets(spec, os.environ)
    problems = preflight_problems(trials, dotenv_dir)
    if problems:
        raise ConfigError("; ".join(problems))
    if warn is not None:
        for warning in profile_warnings(trials):
            warn(warning)


def profile_warnings(trials: Iterable[TrialSpec]) -> list[str]:
    """What the agents' profiles take from them in the trials' modes, though the user may mean
    it (Gemini CLI headless with a ``permissionMode`` but ``yolo`` has no shell tool), a CLI
    found at another version than proctor pins when the profile pins none, and, on a real
    provider, an ACP agent whose profile passes it no key (proctor lends it none): one
    sentence per agent profile and mode, naming it; then, on the scripted model, each plan's
    raw ``tool`` step naming another real CLI's own tool (:func:`plan_tool_warnings`)."""
    trials = list(trials)
    said: dict[str, None] = {}
    seen: set[tuple[str, str, str | None]] = set()
    for spec in trials:
        key = (spec.agent, spec.profile.model_dump_json(), spec.mode)
        if key in seen:
            continue  # each agent, profile and mode once, not once per trial
        seen.add(key)
        adapter = adapter_for(spec.agent, {spec.agent: spec.profile})
        try:
            warnings = [
                adapter.version_warning(spec.profile),
                adapter.profile_warning(spec.profile, spec.mode or adapter.default_mode),
            ]
            if spec.backend != "scripted":  # an ACP agent is lent nothing: none to check
                warnings.append(adapter.credentials_warning(spec.profile, os.environ))
        except AgentError:
            continue  # a setting the planner refuses, said there
        for warning in filter(None, warnings):
            said[f"codingagents.{spec.agent}: {warning}"] = None
    return [*said, *above_scratch_warnings(trials), *plan_tool_warnings(trials)]


def above_scratch_warnings(trials: Iterable[TrialSpec]) -> list[str]:
    """What a trial's agent CLI would load from the folders above its workspace, which lies
    in the temporary folder: one sentence per file and agent (see
    :mod:`proctor.workspace.above`)."""
    temporary = Path(tempfile.gettempdir())
    said: dict[str, None] = {}
    for agent, profile in {spec.agent: spec.profile for spec in trials}.items():
        # With its profile: an id the configuration defines ("agent": "claude-code") too.
        adapter = adapter_for(agent, {agent: profile})
        reads, cli = adapter.read_above, CLI_NAMES.get(adapter.spec.id, agent)
        for path, read in found_above(temporary, reads) if reads else ():
            said[
                f"{agent}: {path} lies above the trials' workspaces (in {temporary}): "
                f"{cli} would take {read.gives} from it in every trial; "
                "remove it, or set TMPDIR to a folder with none above it"
            ] = None
    return list(said)


def preflight_problems(trials: Iterable[TrialSpec], dotenv_dir: Path | None = None) -> list[str]:
    """What :func:`preflight` finds, one sentence per agent (``validate`` lists each)."""
    problems: dict[str, str] = {}
    checked: set[tuple[str, str]] = set()
    try:  # where a trial's renewed login goes back to the user's file under a lock
        cache_folder(os.environ)
    except NotAFullPath as exc:
        problems[""] = str(exc)  # (no agent is named so)
    for spec in trials:
        key = (spec.agent, spec.profile.model_dump_json())
        if spec.agent in problems or key in checked:
            continue  # each agent and profile once, not once per trial
        checked.add(key)
        adapter = adapter_for(spec.agent, {spec.agent: spec.profile})
        problem = adapter.preflight(spec.profile) or authentication_problem(
            adapter.name, spec.profile, spec.backend, dotenv_dir
        )
        if problem:
            problems[spec.agent] = named_as_profile(problem, adapter.name, spec.agent)
    return list(problems.values())


def authentication_problem(
    adapter: str, profile: AgentProfile, backend: str | None, dotenv_dir: Path | None = None
) -> str | None:
    """The sentence when the agent ``adapter`` with ``profile`` cannot authenticate on the
    backend its trials use (a key or a login to lend it, a key without whitespace in it), as
    run and validate check it; None on the scripted model, which needs no credentials."""
    if backend == "scripted":
        return None
    return credentials_problem(adapter, profile, os.environ, dotenv_dir)


def named_as_profile(said: str, adapter: str, profile: str) -> str:
    """A sentence an adapter says of itself (``agent 'claude-code': …``,
    ``codingagents.claude-code.binary``) said of the profile of its own that runs on it
    (``cc2``): the profile to mend is the one named."""
    if profile == adapter:
        return said
    said = said.replace(f"agent '{adapter}'", f"agent '{profile}'", 1)
    return said.replace(f"codingagents.{adapter}.", f"codingagents.{profile}.")


def check_keys(
    trials: Iterable[TrialSpec],
    cwd: Path | None,
    warn: Callable[[str], None],
    before_run: bool = True,
) -> list[str]:
    """The keys of proctor's own roles (the judge, the answering and classifying models) are
    not refused by their providers: one cheap request each before any trial; a refused key is
    a ConfigError (exit 2), a provider that cannot be reached is ``warn``-ed and let pass.
    ``before_run`` False: ``validate --check-keys``, whose sentences speak of no run. Returns
    what each provider not refusing its key answered (none: no role calls one with a key)."""
    from proctor.llm.keycheck import check_role_keys
    from proctor.llm.secrets import environment, load_dotenv

    models = {spec.roles.model_dump_json(): spec.roles for spec in trials if spec.roles}
    if not models:
        return []
    return check_role_keys(
        models.values(), environment(), load_dotenv(cwd), warn, before_run=before_run
    )


def writable_problem(folder: Path, what: str) -> str | None:
    """One sentence when proctor could not write into ``folder``, else None. A folder that
    does not exist yet is not made: the nearest folder above it must let it be made (a
    folder made there and removed at once tells: permissions alone do not, for root, nor in
    /proc)."""
    existing = folder
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    if existing != folder:
        if not existing.is_dir():
            return f"{what} {folder} cannot be made: {existing} is a file, not a folder"
        try:
            os.rmdir(tempfile.mkdtemp(dir=existing, prefix=".proctor-probe-"))
        except OSError as exc:
            why = exc.strerror or exc
            return f"{what} {folder} cannot be made: {existing} is not writable ({why})"
        return None
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".proctor-probe-"):
            pass
    except OSError as exc:
        return f"{what} {folder} is not writable ({exc.strerror or exc})"
    return None


def check_out_outside_cases(out: Path, cases: Iterable[ResolvedCase], what: str = "--out") -> None:
    """The results directory is not inside a case's fixture (``src/``), nor where a case folder
    without one would keep it: every trial's workspace is a copy of it, so the next trials
    would find the earlier runs' results in theirs. A ConfigError (exit 2) naming the fixture,
    and the directory as ``what``."""
    where = Path(os.path.realpath(out))  # realpath: a symlink loop leads nowhere, no traceback
    for rc in cases:
        if rc.case.fixture is None and (rc.case.path / "prompt.md").is_file():
            # A case folder without a fixture: results written to its `src/` would make one.
            fixture = Path(os.path.realpath(rc.case.path / "src"))
            if where == fixture or fixture in where.parents:
                raise ConfigError(
                    f"{what} {out}: inside {rc.case.path / 'src'}, where case '{rc.name}' keeps "
                    "its fixture: the results would become the fixture every later trial's "
                    "workspace is a copy of; choose a folder outside it"
                )
        if rc.case.fixture is None or rc.case.fixture_kind != "dir":
            continue
        fixture = Path(os.path.realpath(rc.case.fixture))
        if where == fixture or fixture in where.parents:
            raise ConfigError(
                f"{what} {out}: inside the fixture {rc.case.fixture} of case '{rc.name}'; every "
                "trial's workspace is a copy of it, so the next trials would find these results "
                "in theirs: choose a folder outside it"
            )


def check_writable(out: Path) -> None:
    """The results directory and the temporary folder (where every trial's workspace and
    scratch home live) are writable; a ConfigError (exit 2) naming each one that is not."""
    problems = [
        p
        for p in (
            writable_problem(out, "the results directory"),
            writable_problem(Path(tempfile.gettempdir()), "the temporary folder (scratch homes)"),
        )
        if p
    ]
    if problems:
        raise ConfigError("; ".join(problems))
