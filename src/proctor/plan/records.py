"""``resolved.json`` from a plan: the configuration after layering, without secret values."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from proctor.models.case import Case
from proctor.models.config import AgentProfile, McpEntry, Provision
from proctor.models.plan import ResolvedCase, RunPlan, TrialSpec
from proctor.models.run import (
    MatrixCell,
    ResolvedCaseRecord,
    ResolvedCondition,
    ResolvedEvaluator,
    ResolvedProfile,
    ResolvedRecord,
    ResolvedTrialSettings,
    SkippedCaseRecord,
)
from proctor.util.masking import arguments_masked, credentials_masked


def content_digest(case: Case) -> str:
    """What the agent is given, as one digest: the prompt, the plan, the answering rules and a
    zip fixture's size and time. A resume compares it, so a prompt edited between an interrupt
    and the resume is caught (a folder fixture has its own digest: :func:`folder_digest`)."""
    digest = hashlib.sha256()
    digest.update(case.prompt.encode("utf-8", "surrogateescape"))
    digest.update(json.dumps(case.plan, sort_keys=True, default=str).encode())
    rules = [r.model_dump(mode="json") for r in case.qna_rules]
    digest.update(json.dumps(rules, sort_keys=True, default=str).encode())
    if case.fixture is not None and case.fixture_kind == "zip":
        try:
            st = os.stat(case.fixture)
            digest.update(f"{st.st_size}:{st.st_mtime_ns}".encode())
        except OSError:
            digest.update(b"missing")
    return digest.hexdigest()[:16]


LEGACY_FIXTURE_ENTRIES = 20_000
"""Entries of a folder fixture the digest of a proctor before ``configDigest`` took in: a
resume of such a run compares the fixture as that proctor digested it."""
VCS_FOLDERS = frozenset({".git", ".hg", ".svn"})
"""Left out of a folder fixture's digest: a ``git status`` rewrites ``.git/index``."""


def folder_digest(folder: Path, limit: int | None = None, *, by_time: bool = False) -> str:
    """A folder fixture as one digest: every entry's path, type and size, and each file's
    content (one larger than :data:`CONTENT_HASHED_BYTES`: its modification time instead),
    links not followed, version-control folders left out; with ``limit``, only the first that
    many entries (as older proctors took it). A resume compares it, so a file of the fixture
    edited in between is caught, and one edited and then put back as it was is not.
    ``by_time``: every file by its modification time, as earlier proctors digested it (see
    :func:`older_folder_digest`)."""
    digest = hashlib.sha256()
    stack, seen = [str(folder)], 0
    while stack and (limit is None or seen < limit):
        current = stack.pop()
        try:
            with os.scandir(current) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError:
            digest.update(f"{current}: unreadable\n".encode("utf-8", "surrogateescape"))
            continue
        for entry in entries:
            seen += 1
            if limit is not None and seen > limit:
                break
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            rel = os.path.relpath(entry.path, folder)
            if stat.S_ISDIR(st.st_mode):
                if entry.name not in VCS_FOLDERS:
                    stack.append(entry.path)
                line = f"{rel}/\n"
            else:
                line = (
                    f"{rel}\0{st.st_mode:o}\0{st.st_size}\0{_file_stamp(entry.path, st, by_time)}\n"
                )
            digest.update(line.encode("utf-8", "surrogateescape"))
    return digest.hexdigest()[:16]


def _file_stamp(path: str, st: os.stat_result, by_time: bool) -> str:
    """What stands for a fixture's entry in its digest: a regular file's content hash (one
    larger than :data:`CONTENT_HASHED_BYTES`: its modification time), a link's target, another
    entry's modification time; every entry's modification time with ``by_time``."""
    if not by_time and stat.S_ISLNK(st.st_mode):
        try:
            return "-> " + os.readlink(path)
        except OSError:
            return "unreadable"
    if by_time or not stat.S_ISREG(st.st_mode) or st.st_size > CONTENT_HASHED_BYTES:
        return str(st.st_mtime_ns)
    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()
    except OSError:
        return "unreadable"


def older_folder_digest(folder: Path, limit: int | None = None) -> str:
    """A folder fixture's digest as a proctor that digested every file by its modification
    time wrote it: a resume of such a run compares its fixture so."""
    return folder_digest(folder, limit, by_time=True)


def config_digest(rc: ResolvedCase, profiles: Mapping[str, AgentProfile]) -> str:
    """The case's whole configuration as one digest: its ``config.json`` as read (step
    budgets, environment values, conditions and all), the environment after layering, and the
    environment values of its agents' profiles. ``resolved.json`` records environment names
    only (values may be secrets); a resume compares this digest, so a value changed in between
    is caught without ever being written down."""
    data = {
        "config": rc.case.config.model_dump(mode="json"),
        "env": rc.env,
        "conditions": {name: c.model_dump(mode="json") for name, c in rc.conditions.items()},
        "profiles": {a: profiles[a].env for a in rc.agents if a in profiles},
    }
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:16]


CONTENT_HASHED_BYTES = 1 << 20
"""Files of a case up to this size are digested by their content; larger ones by their size
and modification time, like a fixture's files."""


def files_digest(rc: ResolvedCase) -> str | None:
    """Every file of a case folder outside its fixture (scoring programs, rubrics, skills,
    data), and of each plugin or skill folder it provisions from outside it, as one digest of
    their paths and contents. None for a case of a tasks file (its folder holds other things:
    the task's own fields are in the other digests)."""
    case = rc.case
    if not (case.path / "prompt.md").is_file():
        return None
    skip = {case.fixture.resolve()} if case.fixture is not None else set()
    digest = hashlib.sha256()
    _digest_files(case.path, case.path, skip, digest)
    root = case.path.resolve()
    provisions = [rc.provision, *(c.provision for c in rc.conditions.values() if c.provision)]
    for provision in provisions:
        for entry in (*provision.skills, *provision.plugins):
            where = entry.field("path")
            folder = (case.path / where).resolve() if isinstance(where, str) else None
            if folder is not None and not folder.is_relative_to(root):
                digest.update(f"{entry.name}: {where}\n".encode("utf-8", "surrogateescape"))
                _digest_files(folder, folder, skip, digest)
    return digest.hexdigest()[:16]


CACHE_NAMES = frozenset(
    {"__pycache__", "node_modules", "proctor-results", "Thumbs.db", "desktop.ini"}
)
"""Entries of a case folder no person writes as part of the case: caches, and the results a
run left there (``proctor run --source .`` inside a case)."""
AGENT_FOLDERS = frozenset({".claude", ".codex", ".gemini", ".agents", ".mcp.json"})
"""Hidden entries that are part of a case (agent settings a case may provision)."""


def _not_the_case(path: Path, top: Path) -> bool:
    """Whether an entry is left out of a case's digest: a cache or an editor's or the file
    manager's leftover (``__pycache__``, ``*.pyc``, ``.DS_Store``, ``*.swp``, ``file~``), any
    other hidden entry but agent settings (a scorer's ``.cache/``), and a results folder."""
    name = path.name
    if path == top:
        return False
    if name in CACHE_NAMES or name.endswith((".pyc", ".pyo", ".swp", ".swo", "~")):
        return True
    if name.startswith(".") and name not in AGENT_FOLDERS:
        return True
    try:
        return (path / "run.json").is_file() and (path / "trials").is_dir()  # a run's folder
    except OSError:  # a folder that cannot be entered: digested as unreadable
        return False


def _digest_files(top: Path, path: Path, skip: set[Path], digest: Any) -> None:
    if _not_the_case(path, top):
        return
    rel = os.path.relpath(path, top).encode("utf-8", "surrogateescape")
    try:
        st = path.lstat()
    except OSError:
        digest.update(rel + b": missing\n")
        return
    if path.resolve() in skip:
        return
    if stat.S_ISDIR(st.st_mode):
        if path.name in VCS_FOLDERS and path != top:
            return
        try:
            children = sorted(os.listdir(path))
        except OSError:
            digest.update(rel + b": unreadable\n")
            return
        digest.update(rel + b"/\n")
        for name in children:
            _digest_files(top, path / name, skip, digest)
        return
    if stat.S_ISLNK(st.st_mode):
        digest.update(rel + b" -> " + os.readlink(path).encode("utf-8", "surrogateescape") + b"\n")
        return
    digest.update(rel + f"\0{st.st_mode:o}\0{st.st_size}\0".encode())
    if st.st_size > CONTENT_HASHED_BYTES:
        digest.update(f"{st.st_mtime_ns}\n".encode())
        return
    try:
        digest.update(hashlib.sha256(path.read_bytes()).digest() + b"\n")
    except OSError:
        digest.update(b"unreadable\n")


def resolved_case(
    rc: ResolvedCase,
    digests: dict[str, str] | None = None,
    profiles: Mapping[str, AgentProfile] | None = None,
    *,
    legacy: bool = False,
    trials: list[TrialSpec] | None = None,
) -> ResolvedCaseRecord:
    """One case's record; ``digests`` keeps the folder fixtures' digests already taken for
    other cases of the same plan (tasks often share a repository). ``legacy``: the record as
    a proctor before ``configDigest`` wrote it (for comparing with such a run's record).
    ``trials``: the case's planned trials, whose settings (mode, backend, …) it records."""
    case = rc.case
    fixture_digest = None
    if case.fixture is not None and case.fixture_kind == "dir":
        known = digests if digests is not None else {}
        key = os.fspath(case.fixture)
        if key not in known:
            limit = LEGACY_FIXTURE_ENTRIES if legacy else None
            known[key] = folder_digest(case.fixture, limit)
        fixture_digest = known[key]
    return ResolvedCaseRecord(
        case=case.name,
        path=str(case.path),
        agents=rc.agents,
        timeout_sec=rc.timeout_sec,
        repeats=rc.repeats,
        combiner=rc.combiner,
        pass_threshold=rc.pass_threshold,
        tags=case.tags,
        evaluators=[
            ResolvedEvaluator(
                use=s.use,
                gate=s.gate,
                weight=s.weight,
                label=s.label,
                params=s.params,
                conditions=s.conditions,
            )
            for s in rc.evaluators
        ],
        provision=recorded_provision(rc.provision),
        setup=rc.setup,
        teardown=rc.teardown,
        env=sorted(rc.env),
        fixture=str(case.fixture) if case.fixture else None,
        qna_rules=len(case.qna_rules),
        plan=case.plan is not None,
        content=content_digest(case),
        fixture_digest=fixture_digest,
        config_digest=None if legacy else config_digest(rc, profiles or {}),
        files_digest=None if legacy else files_digest(rc),
        provision_digest=None if legacy else provision_digest(rc),
        conditions={
            name: ResolvedCondition(
                provision=recorded_provision(v.provision) if v.provision else v.provision,
                agent_model=v.agent_model,
                agent_effort=v.agent_effort,
                prompt_prefix=v.prompt_prefix,
                env=sorted(v.env),
            )
            for name, v in rc.conditions.items()
        },
        agent_model=rc.agent_model,
        agent_effort=rc.agent_effort,
        expected_files=case.config.expected_files,
        expected_symbols=case.config.expected_symbols,
        trials=trial_settings(trials or []),
    )


def trial_settings(trials: list[TrialSpec]) -> list[ResolvedTrialSettings]:
    """How ``trials`` run, once per agent × condition, in the order they were planned."""
    settings: dict[tuple[str, str], ResolvedTrialSettings] = {}
    for t in trials:
        if (t.agent, t.condition) not in settings:
            settings[t.agent, t.condition] = ResolvedTrialSettings(
                agent=t.agent,
                condition=t.condition,
                mode=t.mode,
                backend=t.backend,
                agent_model=t.agent_model,
                agent_effort=t.agent_effort,
                max_turns=t.max_turns,
                max_tool_calls=t.max_tool_calls,
                serial_repeats=t.serial_repeats,
            )
    return list(settings.values())


def resolved_record(
    plan: RunPlan, *, cluster_sized: bool = False, legacy: bool = False
) -> ResolvedRecord:
    """``resolved.json`` of ``plan``; ``cluster_sized`` when the executor sizes the run's
    concurrency itself (Ray without a concurrency of the user's); ``legacy``: the cases'
    digests as a proctor before ``configDigest`` took them (see :func:`resolved_case`)."""
    digests: dict[str, str] = {}
    by_case: dict[str, list[TrialSpec]] = {}
    for t in plan.trials:
        by_case.setdefault(t.case.name, []).append(t)
    return ResolvedRecord(
        gate=plan.gate,
        concurrency=None if cluster_sized else plan.concurrency,
        out=str(plan.out),
        keep_workspace=plan.overrides.keep_workspace,
        config_file=str(plan.config_path) if plan.config_path else None,
        codingagents={
            name: ResolvedProfile.model_validate(
                {**profile.model_dump(exclude={"env"}), "env": sorted(profile.env)}
            )
            for name, profile in plan.top.codingagents.items()
        },
        pricing=dict(plan.top.pricing),
        cases=[
            resolved_case(
                rc, digests, plan.top.codingagents, legacy=legacy, trials=by_case.get(rc.name)
            )
            for rc in plan.cases
        ],
        matrix=[
            MatrixCell(case=t.case.name, agent=t.agent, condition=t.condition, repeat=t.repeat)
            for t in plan.trials
        ],
        skipped=[SkippedCaseRecord(case=s.name, reason=s.reason) for s in plan.skipped],
        evaluate=plan.overrides.evaluate,
        only_evaluators=list(plan.overrides.only_evaluators),
        skip_evaluators=list(plan.overrides.skip_evaluators),
        collect_cost=plan.overrides.collect_cost,
    )


def provision_digest(rc: ResolvedCase) -> str | None:
    """The case's add-ons as provisioned (their own and their conditions'), as one digest,
    when ``resolved.json`` shows any of them masked (see :func:`recorded_provision`): the
    values it leaves out are compared by a resume this way; None otherwise."""
    provisions = {"": rc.provision}
    provisions |= {name: c.provision for name, c in rc.conditions.items() if c.provision}
    if all(recorded_provision(p) == p for p in provisions.values()):
        return None
    data = {name: p.model_dump(mode="json") for name, p in provisions.items()}
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def recorded_configuration(data: dict[str, Any]) -> dict[str, Any]:
    """The top-level configuration as ``config.json`` keeps it (``data``: its JSON, as the
    user set it): every environment value (the configuration's, a profile's, a condition's)
    ``***``, and its add-ons as :func:`recorded_provision` keeps them; they hold tokens, and
    the digests of ``resolved.json`` keep what they were."""
    data = copy.deepcopy(data)

    def hidden(part: Any) -> None:
        if not isinstance(part, dict):
            return
        if isinstance(part.get("env"), dict):
            part["env"] = dict.fromkeys(part["env"], "***")
        provision = part.get("provision")
        if isinstance(provision, dict) and isinstance(provision.get("mcps"), list):
            provision["mcps"] = [_mcp_as_recorded(m) for m in provision["mcps"]]

    hidden(data)
    for key in ("codingagents", "conditions"):
        if isinstance(data.get(key), dict):
            for part in data[key].values():
                hidden(part)
    return data


def _mcp_as_recorded(extra: Any) -> Any:
    """An MCP server's entry with its ``env`` and ``headers`` values ``***`` and the
    credentials in its arguments and URL masked."""
    if not isinstance(extra, dict):
        return extra
    extra = dict(extra)
    for key in ("env", "headers"):
        if isinstance(extra.get(key), dict):
            extra[key] = dict.fromkeys(extra[key], "***")
    if isinstance(extra.get("args"), list):
        extra["args"] = arguments_masked(extra["args"], extra.get("command"))
    if isinstance(extra.get("url"), str):
        extra["url"] = credentials_masked(extra["url"])
    return extra


def recorded_provision(provision: Provision) -> Provision:
    """What ``resolved.json`` keeps of a case's add-ons: MCP servers with their ``env`` and
    ``headers`` values left out (``***``: they hold tokens), and a credential in a command's
    arguments or a URL masked (``--token ***``, ``https://me:***@…``), as every registered
    key is. The configuration's digest keeps what they were, for ``--resume``."""
    if not provision.mcps:
        return provision
    mcps = [
        McpEntry.model_validate({"name": e.name, **_mcp_as_recorded(dict(e.model_extra or {}))})
        for e in provision.mcps
    ]
    return provision.model_copy(update={"mcps": mcps})
