"""``resolved.json`` from a plan: the configuration after layering, without secret values."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

from proctor.models.case import Case
from proctor.models.plan import ResolvedCase, RunPlan
from proctor.models.run import (
    MatrixCell,
    ResolvedCaseRecord,
    ResolvedCondition,
    ResolvedEvaluator,
    ResolvedProfile,
    ResolvedRecord,
    SkippedCaseRecord,
)


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


FIXTURE_ENTRIES = 20_000
"""Entries of a folder fixture its digest takes in; past them, the rest is left out."""
VCS_FOLDERS = frozenset({".git", ".hg", ".svn"})
"""Left out of a folder fixture's digest: a ``git status`` rewrites ``.git/index``."""


def folder_digest(folder: Path) -> str:
    """A folder fixture as one digest: every entry's path, type, size and modification time
    (links not followed, version-control folders left out), at most :data:`FIXTURE_ENTRIES`
    of them. A resume compares it, so a file of the fixture edited in between is caught
    without reading the files."""
    digest = hashlib.sha256()
    stack, seen = [str(folder)], 0
    while stack and seen < FIXTURE_ENTRIES:
        current = stack.pop()
        try:
            with os.scandir(current) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError:
            digest.update(f"{current}: unreadable\n".encode("utf-8", "surrogateescape"))
            continue
        for entry in entries:
            seen += 1
            if seen > FIXTURE_ENTRIES:
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
                line = f"{rel}\0{st.st_mode:o}\0{st.st_size}\0{st.st_mtime_ns}\n"
            digest.update(line.encode("utf-8", "surrogateescape"))
    return digest.hexdigest()[:16]


def resolved_case(rc: ResolvedCase, digests: dict[str, str] | None = None) -> ResolvedCaseRecord:
    """One case's record; ``digests`` keeps the folder fixtures' digests already taken for
    other cases of the same plan (tasks often share a repository)."""
    case = rc.case
    fixture_digest = None
    if case.fixture is not None and case.fixture_kind == "dir":
        known = digests if digests is not None else {}
        key = os.fspath(case.fixture)
        if key not in known:
            known[key] = folder_digest(case.fixture)
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
                use=s.use, gate=s.gate, weight=s.weight, label=s.label, params=s.params
            )
            for s in rc.evaluators
        ],
        provision=rc.provision,
        setup=rc.setup,
        teardown=rc.teardown,
        env=sorted(rc.env),
        fixture=str(case.fixture) if case.fixture else None,
        qna_rules=len(case.qna_rules),
        plan=case.plan is not None,
        content=content_digest(case),
        fixture_digest=fixture_digest,
        conditions={
            name: ResolvedCondition(
                provision=v.provision,
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
    )


def resolved_record(plan: RunPlan, *, cluster_sized: bool = False) -> ResolvedRecord:
    """``resolved.json`` of ``plan``; ``cluster_sized`` when the executor sizes the run's
    concurrency itself (Ray without a concurrency of the user's)."""
    digests: dict[str, str] = {}
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
        cases=[resolved_case(rc, digests) for rc in plan.cases],
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
