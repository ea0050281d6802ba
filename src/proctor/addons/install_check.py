"""``proctor addon check-install``: run an add-on's installer in empty scratch homes and check
what it did.

Two scratches, each ``home/`` + ``project/`` (see :class:`~.install_scratch.Scratch`):

- **fresh**: install into an empty home; every expected component must be where its agent
  loads it (the audit reads the home independently), nothing may land in the project unless
  the expect file allows it, and installing again must leave both trees byte-identical (the
  CLIs' bookkeeping aside: :data:`~.install_scratch.DEFAULT_IGNORE`);
- **user**: plant the user's own permission rule, instructions, setting and MCP server per
  agent (:mod:`.install_planted`), install, then uninstall: the user's state must survive both,
  and the uninstall must remove every file and key the install added.

Throughout, the watched folders of the real home must not change (:mod:`.install_guard`).

Example::

    report = check_install(InstallOptions(install="sh {cwd}/install.sh", agents=["codex"]))
    assert report.ok, [c.message for c in report.failed()]
"""

from __future__ import annotations

import os
import shlex
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from proctor.addons import install_guard as guard
from proctor.addons.install_components import added_components, component_checks, named
from proctor.addons.install_expect import AGENT_IDS, InstallExpectation
from proctor.addons.install_planted import lost_user_state, plant, planted_files
from proctor.addons.install_removal import removal_checks
from proctor.addons.install_scratch import (
    DEFAULT_IGNORE,
    Changes,
    Scratch,
    Snapshot,
    compare,
    expand,
    ignored,
    installer_environment,
    refuse_unstartable,
    run_command,
    snapshot,
)
from proctor.agents.spec import unknown_agent
from proctor.errors import ConfigError
from proctor.models.audit import AuditReport
from proctor.models.install_check import InstallCheck, InstallCheckReport, NotRunCheck
from proctor.util.files import temporary_folder
from proctor.util.json_shown import name_shown


@dataclass
class InstallOptions:
    install: str
    uninstall: str | None = None
    agents: Sequence[str] | None = None
    """Agent ids; ``None``: the expect file's, or all three. Every agent the expect file names
    must be among them (a ConfigError otherwise: its expectation would go unchecked)."""
    expect: InstallExpectation | None = None
    timeout: float = 120.0
    origin: Path = field(default_factory=Path.cwd)
    """What ``{cwd}`` expands to: the folder proctor was started in."""
    real_homes: Sequence[Path] | None = None
    """Homes to keep untouched (default: the user's own)."""
    scratch_parent: Path | None = None
    """Where the scratches go and stay (default: a temporary folder, removed afterwards)."""
    on_kept: Callable[[Path], None] | None = None
    """Called with the folder under ``scratch_parent`` the scratches are kept in, once it is
    made: a caller stopped partway (Ctrl-C) can still name it."""
    parent_env: Mapping[str, str] | None = None
    extra_path: Sequence[Path] = ()


def resolve_agents(options: InstallOptions) -> list[str]:
    if options.agents:
        unknown = [a for a in options.agents if a not in AGENT_IDS]
        if unknown:
            raise ConfigError(
                f"--agent {name_shown(unknown[0])}: {unknown_agent(unknown[0], AGENT_IDS)}"
            )
        chosen = list(dict.fromkeys(options.agents))
        expected = options.expect.agents() if options.expect is not None else []
        left_out = [a for a in expected if a not in chosen]
        if left_out:
            raise ConfigError(
                f"--expect names {', '.join(left_out)}, which --agent ({', '.join(chosen)}) "
                "leaves out: check it with --agent too, or drop it from the expect file"
            )
        return chosen
    named = options.expect.agents() if options.expect is not None else []
    return named or list(AGENT_IDS)


def check_install(options: InstallOptions) -> InstallCheckReport:
    agents = resolve_agents(options)
    homes = list(options.real_homes) if options.real_homes is not None else guard.real_homes()
    guard.refuse_real_home(options.install, homes, "--install")
    if options.uninstall:
        guard.refuse_real_home(options.uninstall, homes, "--uninstall")
    watched = guard.fingerprint(homes)
    if options.scratch_parent is not None:
        options.scratch_parent.mkdir(parents=True, exist_ok=True)
        kept = Path(tempfile.mkdtemp(dir=options.scratch_parent))
        if options.on_kept is not None:
            options.on_kept(kept)
        try:
            report = _check_in(kept, options, agents)
        except ConfigError as exc:  # a command that cannot start: what it got to is kept
            raise ConfigError(f"{exc} (the scratches so far are kept in {kept})") from exc
        report.notes.append(
            f"the scratches are kept in {kept}: fresh/ (the empty home and project) and user/ "
            "(the user's state planted)"
        )
    else:
        with temporary_folder("proctor-install-") as tmp:  # links in it never followed
            report = _check_in(tmp, options, agents)
    changed = guard.touched(watched, guard.fingerprint(homes))
    report.checks.append(
        InstallCheck(
            name="real-home",
            passed=not changed,
            message=(
                f"the real home changed during the check: {', '.join(changed[:6])}"
                if changed
                else f"nothing changed in the agent folders of {', '.join(map(str, homes))}"
            ),
        )
    )
    report.ok = not report.failed()
    return report


class _Session:
    """One scratch with its environment, in which the commands run."""

    def __init__(self, root: Path, options: InstallOptions) -> None:
        self.scratch = Scratch.create(root)
        self.options = options
        parent = options.parent_env if options.parent_env is not None else os.environ
        self.env = installer_environment(self.scratch, parent, options.extra_path)
        expect = options.expect
        self.ignore = [*DEFAULT_IGNORE, *(expect.ignore if expect else [])]

    def expand(self, text: str) -> str:
        """A shell line with the placeholders filled in (each path one shell word)."""
        return expand(text, self.scratch, self.options.origin)

    def expand_text(self, text: str) -> str:
        """A text to compare with what was installed, the placeholders filled in as they are."""
        return expand(text, self.scratch, self.options.origin, shell=False)

    def run(self, command: str, option: str) -> tuple[bool, str]:
        with self.hinted(command):
            run = run_command(
                self.expand(command), self.scratch, self.env, self.options.timeout, option
            )
        said = run.describe(option.lstrip("-"))
        return run.ok, said if run.ok else said + self.origin_hint(command)

    @contextmanager
    def hinted(self, command: str) -> Iterator[None]:
        """A command that cannot start, said with the scratch's paths as the author writes them
        (``{home}/.tidy/uninstall.sh``, not a temporary folder gone when proctor exits); one
        that names by a bare or relative name a file in the folder proctor was started in, not
        in the scratch project, is said so."""
        try:
            yield
        except ConfigError as exc:
            hint = "" if "{cwd}" in str(exc) else self.origin_hint(command)
            said = self.shown(str(exc))
            if not hint and said == str(exc):
                raise
            raise ConfigError(f"{said}{hint}") from exc

    def origin_hint(self, command: str) -> str:
        """For a failed command, a relative path in it to a file that is not in the scratch
        project, where the command runs, but in the folder proctor was started in (``python3
        install.py``): what to write instead."""
        try:
            words = shlex.split(command, comments=True)
        except ValueError:
            return ""
        for word in words:
            if word.startswith(("-", "/", "~")) or "{" in word or "=" in word:
                continue
            here, there = self.options.origin / word, self.scratch.project / word
            if here.is_file() and not there.exists():
                rel = shlex.quote(word.removeprefix("./"))
                return (
                    f" ({word} is not in the scratch project, where the command runs, but in "
                    f"the folder you ran proctor in: write {{cwd}}/{rel})"
                )
        return ""

    def snapshot(self) -> Snapshot:
        return snapshot(self.scratch.root, self.ignore)

    def shown(self, text: str) -> str:
        """``text`` with the scratch's paths as an author writes them: a file the audit names
        relative to the scratch (``in home/.claude/settings.json``), and the scratch home and
        project in a command as the expect file's ``{home}`` and ``{project}`` (a hook running
        ``{home}/.tidy/guard.sh``, not a relative ``home/.tidy/guard.sh``)."""
        root = str(self.scratch.root)
        text = text.replace(f" in {root}/", " in ")
        text = text.replace(str(self.scratch.home), "{home}")
        text = text.replace(str(self.scratch.project), "{project}")
        return text.replace(f"{root}/", "")

    def audit(self, agents: list[str]) -> AuditReport:
        from proctor.addons.audit import audit

        return audit(self.scratch.home, self.scratch.project, agents)


def _check_in(root: Path, options: InstallOptions, agents: list[str]) -> InstallCheckReport:
    report = InstallCheckReport(ok=False)
    fresh = _Session(root / "fresh", options)
    if options.uninstall:  # before both installs run, not after: its program can start
        command = fresh.expand(options.uninstall)
        with fresh.hinted(options.uninstall):
            refuse_unstartable(command, fresh.scratch, fresh.env, "--uninstall", before=True)
    if not _fresh_checks(fresh, agents, report):
        present = ["present"] if options.expect is not None else []
        after = [*present, "project", "idempotent", "keeps-user"]
        _not_run(report, [*after, *_uninstall_checks(options)], "the install")
        return report
    user = _Session(root / "user", options)
    _user_checks(user, agents, report)
    return report


def _uninstall_checks(options: InstallOptions) -> list[str]:
    return ["uninstall", "uninstall-removes", "uninstall-keeps-user"] if options.uninstall else []


def _not_run(report: InstallCheckReport, names: Sequence[str], what: str) -> None:
    """The checks that need what failed, listed in ``not_run`` and named in one note: its
    failure is a check of its own, with the command's output, said once (not again as a
    failure of each check after it)."""
    if names:
        report.not_run += [NotRunCheck(name=name, failed=what) for name in names]
        report.notes.append(f"not run, as {what} failed: {', '.join(names)}")


def _fresh_checks(session: _Session, agents: list[str], report: InstallCheckReport) -> bool:
    """Install into an empty home: components, project, idempotence. False when the install
    failed (the checks after it not run)."""
    options, checks = session.options, report.checks
    before = session.snapshot()
    ok, message = session.run(options.install, "--install")
    checks.append(InstallCheck(name="install", passed=ok, message=message))
    report.installed = session.audit(agents)
    if not ok:
        _left_behind(session, before, agents, report)
        return False
    _component_checks(session, agents, report)
    first = session.snapshot()
    checks.append(_project_check(before, first, options.expect))
    ok, message = session.run(options.install, "--install")
    if not ok:
        checks.append(InstallCheck(name="idempotent", passed=False, message="again, " + message))
        return True
    changes = compare(first, session.snapshot())
    checks.append(
        InstallCheck(
            name="idempotent",
            passed=not changes,
            message=(
                f"installing again changed the scratch: {changes.describe()}"
                if changes
                else f"installing again left all {len(first)} paths unchanged"
            ),
        )
    )
    return True


def _left_behind(
    session: _Session, before: Snapshot, agents: list[str], report: InstallCheckReport
) -> None:
    """Notes of what a failed install left in the empty scratch: the files it wrote before it
    failed, and what each agent would load from them (an installer that fails halfway leaves a
    half-installed add-on in its users' homes)."""
    after = session.snapshot()
    changes = compare(before, after)
    if not changes:
        report.notes.append("the failed install changed nothing in the scratch")
        return
    leaves = Changes(  # a folder is said through what was written in it
        added=[p for p in changes.added if not any(q.startswith(p + "/") for q in changes.added)],
        removed=[
            p for p in changes.removed if not any(p.startswith(q + "/") for q in changes.removed)
        ],
        changed=changes.changed,
    )
    report.notes.append(f"before it failed, the install {leaves.describe()} in the scratch")
    for agent in agents:
        found = report.installed.for_agent(agent) if report.installed is not None else None
        added = added_components(None, found)
        if added:
            listing = "; ".join(map(named, added))
            report.notes.append(
                session.shown(f"{agent}: after the failed install, the agent would load {listing}")
            )


def _component_checks(session: _Session, agents: list[str], report: InstallCheckReport) -> None:
    """With an expect file, one ``present`` check per expected component and a note for each
    component the installer added besides; without one, notes of what it installed."""
    expect = session.options.expect
    for agent in agents:
        found = report.installed.for_agent(agent) if report.installed is not None else None
        wanted = expect.for_agent(agent) if expect is not None else None
        if wanted is not None:
            for check in component_checks(agent, wanted, found, session.expand_text):
                check.message = session.shown(check.message)
                report.checks.append(check)
        added = added_components(None, found)
        if expect is None:
            listing = "; ".join(map(named, added)) or "nothing"
            report.notes.append(session.shown(f"{agent}: installed {listing}"))
        elif wanted is not None:
            listed = (
                {("skill", n) for n in wanted.skills}
                | {("mcp", n) for n in wanted.mcp}
                | {("plugin", n) for n in wanted.plugins}
            )
            listed |= {("command", n) for n in wanted.commands}
            listed |= {("subagent", n) for n in wanted.subagents}
            kinds = ("skill", "mcp", "plugin", "command", "subagent")
            extra = [c for c in added if c.kind in kinds and (c.kind, c.name) not in listed]
            for component in extra:
                report.notes.append(
                    session.shown(
                        f"{agent}: the installer also added {named(component)}, which the "
                        "expect file does not name"
                    )
                )


def _project_check(
    before: Snapshot, after: Snapshot, expect: InstallExpectation | None
) -> InstallCheck:
    """Nothing may be written into the project but the paths the expect file allows."""
    allowed = [f"project/{p.lstrip('/')}" for p in (expect.project if expect else [])]
    changes = compare(before, after)
    touched = [p for p in [*changes.added, *changes.changed, *changes.removed]]
    written = []
    for path in touched:
        if not path.startswith("project/") or ignored(path, allowed):
            continue
        entry = after.get(path)
        if (
            entry is not None
            and entry.kind == "dir"
            and any(p.startswith(path + "/") for p in touched)
        ):
            continue  # a folder is reported through what was written in it
        written.append(path.removeprefix("project/"))
    if written:
        hint = "" if expect and expect.project else ' (an expect file\'s "project" may allow paths)'
        return InstallCheck(
            name="project",
            passed=False,
            message=f"the installer wrote into the project: {', '.join(written[:8])}{hint}",
        )
    return InstallCheck(name="project", passed=True, message="nothing unexpected in the project")


def _user_checks(session: _Session, agents: list[str], report: InstallCheckReport) -> None:
    """Install over the user's planted state, then uninstall: the state survives both, and
    the uninstall removes what the install added."""
    options, checks, home = session.options, report.checks, session.scratch.home
    plant(home, agents)
    planted = session.snapshot()
    ok, message = session.run(options.install, "--install")
    if not ok:
        checks.append(
            InstallCheck(
                name="keeps-user", passed=False, message="over the user's state, " + message
            )
        )
        _not_run(report, _uninstall_checks(options), "the install over the user's state")
        return
    _keeps_user(home, agents, "keeps-user", "the install", checks)
    if not options.uninstall:
        return
    ok, message = session.run(options.uninstall, "--uninstall")
    checks.append(InstallCheck(name="uninstall", passed=ok, message=message))
    if not ok:
        _not_run(report, ["uninstall-removes", "uninstall-keeps-user"], "the uninstall")
        return
    removal, notes = removal_checks(planted, session.snapshot(), session.scratch.root, agents)
    checks.append(removal)
    report.notes += notes
    _keeps_user(home, agents, "uninstall-keeps-user", "the uninstall", checks)


def _keeps_user(
    home: Path, agents: list[str], name: str, after: str, checks: list[InstallCheck]
) -> None:
    for agent in agents:
        lost = [phrase for f in planted_files([agent]) for phrase in lost_user_state(home, f)]
        message = (
            f"after {after}, " + "; ".join(lost)
            if lost
            else f"after {after}, the user's permission rule, instructions, setting and MCP "
            "server are intact"
        )
        checks.append(InstallCheck(name=name, agent=agent, passed=not lost, message=message))
