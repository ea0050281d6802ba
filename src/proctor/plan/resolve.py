"""Layered configuration and the trial matrix.

Precedence, lowest to highest: built-in defaults < top-level config (``proctor.json``) < a case's
``config.json`` < command-line flags. Provisioning merges by ``name``; setup and teardown lines
concatenate, top-level first; ``env`` maps merge key by key.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from proctor.agents.base import known_agent_ids, profile_for
from proctor.agents.spec import unknown_agent
from proctor.discover.eval_files import eval_files
from proctor.discover.folders import Discovery, discover_cases
from proctor.errors import ConfigError, Problems
from proctor.evaluators.base import registry
from proctor.evaluators.combiners import COMBINERS
from proctor.models.case import Case, EvaluatorSpec
from proctor.models.config import (
    DEFAULT_AGENTS,
    DEFAULT_COMBINER,
    DEFAULT_CONCURRENCY,
    DEFAULT_OUT,
    DEFAULT_PASS_THRESHOLD,
    DEFAULT_REPEATS,
    DEFAULT_TIMEOUT_SEC,
    CliOverrides,
    Condition,
    Provision,
    TopConfig,
)
from proctor.models.gating import applied_gate
from proctor.models.loading import load_top_config
from proctor.models.plan import ResolvedCase, RunPlan, TrialSpec
from proctor.models.pricing import PriceTable
from proctor.paths import names_stdin, read_against
from proctor.plan.agent_checks import check_agent_flags, check_profiles
from proctor.plan.agent_checks import note as _note
from proctor.plan.checks import check_agent_provision, check_provision, resolve_mode
from proctor.plan.choosing import (
    broken_chosen,
    check_tag_typos,
    picks,
    selection,
    unchosen_problems,
    unknown_condition,
)
from proctor.plan.efforts import FLAG, effort_problem, trial_effort
from proctor.plan.orders import condition_order, rotation_places, starting_order
from proctor.plan.roles import resolve_roles
from proctor.util.json_shown import name_shown
from proctor.util.text import did_you_mean, noun_for, unknown_name

DEFAULT_CONDITION = "default"


def resolve_case(
    case: Case, top: TopConfig, cli: CliOverrides, top_where: str = "proctor.json"
) -> ResolvedCase:
    """One case's settings, layered: ``--flags`` over its ``config.json`` over the top-level
    configuration (``top_where`` names that file in an error about a field of its own)."""
    cfg = case.config
    where = case.config_where
    agents = cli.agents or cfg.agents or top.agents or list(DEFAULT_AGENTS)
    known = known_agent_ids(top.codingagents)
    for i, agent in enumerate(agents):
        if agent not in known:
            # Named where the list was written: a flag, the case's config.json, or the
            # top-level configuration that every case without a list of its own takes.
            flag = f"--agent {name_shown(agent)}"
            holder = flag if cli.agents else where if cfg.agents else top_where
            source = holder if cli.agents else f"{holder}: field 'agents[{i}]'"
            raise ConfigError(f"{source}: {unknown_agent(agent, known)}")
    combiner = cfg.combiner or DEFAULT_COMBINER
    if combiner not in COMBINERS:
        raise ConfigError(
            f"{where}: field 'combiner': {unknown_name('combiner', combiner, sorted(COMBINERS))}"
        )
    conditions = {**(top.conditions or {}), **(cfg.conditions or {})} or {
        DEFAULT_CONDITION: Condition()
    }
    for spec in case.evaluators:
        unknown = [name for name in spec.conditions if name not in conditions]
        if unknown:
            raise ConfigError(
                f"{where}: field '{spec.loc}.conditions': '{unknown[0]}' is not a condition "
                f"of the case ({did_you_mean(unknown[0], conditions)}conditions: "
                f"{', '.join(conditions)})"
            )
    every = set(conditions)
    if cli.conditions:
        # A case without any of the chosen conditions drops out of the matrix.
        conditions = {k: v for k, v in conditions.items() if k in cli.conditions}
    if case.plan is not None and "conditions" in case.plan:
        missing = sorted(set(conditions) - set(case.plan["conditions"]))
        if missing:
            # A plan for a condition the case does not have is the likely typo.
            extra = sorted(set(case.plan["conditions"]) - every)
            also = (
                f" (it has a plan for {', '.join(extra)}, which is no condition of the case)"
                if extra
                else ""
            )
            raise ConfigError(
                f"{case.plan_field('conditions')}: no plan for "
                f"{noun_for(len(missing), 'condition')} {', '.join(missing)}{also}"
            )
    provision = (top.provision or Provision()).merged_with(cfg.provision)
    _check_provisions(top.provision, cfg.provision, case.path, top_where, where)
    for name, variant in conditions.items():
        if variant.provision is not None:
            # Named by the file that defines the condition (the case's own wins).
            defined = (
                where
                if name in (cfg.conditions or {})
                else f"{top_where} (for case {case.path.name})"
            )
            check_provision(variant.provision, case.path, f"{defined}: conditions.{name}")
    evaluators = chosen_evaluators(case.evaluators, cli)
    _check_evaluators_per_agent(evaluators, list(dict.fromkeys(agents)), where)
    return ResolvedCase(
        case=case,
        agents=list(dict.fromkeys(agents)),
        timeout_sec=cli.timeout_sec or cfg.timeout_sec or top.timeout_sec or DEFAULT_TIMEOUT_SEC,
        repeats=cli.repeats or cfg.repeats or top.repeats or DEFAULT_REPEATS,
        evaluators=evaluators,
        evaluated=cli.evaluate and (bool(evaluators) or not case.evaluators),
        not_evaluated=_why_not_evaluated(case, cli, evaluators),
        combiner=combiner,
        pass_threshold=_first(cfg.pass_threshold, top.pass_threshold, DEFAULT_PASS_THRESHOLD),
        provision=provision,
        setup=[*top.setup, *cfg.setup],
        teardown=[*top.teardown, *cfg.teardown],
        env={**top.env, **cfg.env},
        conditions=conditions,
        agent_model=cfg.agent_model,
        agent_effort=cfg.agent_effort,
    )


def _check_evaluators_per_agent(
    evaluators: list[EvaluatorSpec], agents: list[str], where: str
) -> None:
    """Each evaluator can judge a trial of each agent the case runs (a ``trajectory-check``
    whose map of patterns names the agent, or ``*``): otherwise every such trial would fail."""
    for spec in evaluators:
        params = registry()[spec.use].Params.of(spec)
        for agent in agents:
            problem = params.agent_problem(agent)
            if problem:
                raise ConfigError(f"{where}: field '{spec.loc}': {problem}")


def _why_not_evaluated(case: Case, cli: CliOverrides, evaluators: list[EvaluatorSpec]) -> str:
    """The one switch that left the case unevaluated, as its trials' reason names it; empty
    when it is evaluated."""
    if not cli.evaluate:
        return "--prompt without --evaluate" if cli.prompt_without_evaluate else "--no-evaluate"
    if evaluators or not case.evaluators:
        return ""
    flags = [f"--only-evaluator {n}" for n in cli.only_evaluators]
    flags += [f"--skip-evaluator {n}" for n in cli.skip_evaluators]
    return f"{', '.join(flags)} left out every one of its evaluators"


def _named(spec: EvaluatorSpec, names: list[str]) -> bool:
    return spec.use in names or (spec.label is not None and spec.label in names)


def chosen_evaluators(evaluators: list[EvaluatorSpec], cli: CliOverrides) -> list[EvaluatorSpec]:
    """The case's evaluators that the run's switches keep (``--no-evaluate``: none;
    ``--only-evaluator``, ``--skip-evaluator``: by ``use`` or ``label``)."""
    if not cli.evaluate:
        return []
    kept = [e for e in evaluators if not cli.only_evaluators or _named(e, cli.only_evaluators)]
    return [e for e in kept if not _named(e, cli.skip_evaluators)]


def _check_limits(top: TopConfig, where: str, problems: list[str] | None = None) -> None:
    """``limits`` keys are providers: a key that is none would limit nothing, silently. With
    ``problems``, each such key is noted there."""
    from proctor.agents.spec import SPECS

    known = {spec.provider for spec in SPECS}
    for name in top.limits:
        if name not in known:
            said = unknown_name("provider", name, sorted(known))
            agent = next((spec for spec in SPECS if spec.id == name), None)
            if agent is not None:  # an agent's id, where its provider's is meant
                said = f"{said[:-1]}; agent {name} runs on '{agent.provider}')"
            _note(ConfigError(f"{where}: field 'limits.{name}': {said}"), problems)


def _check_provisions(
    top: Provision | None, own: Provision | None, case_dir: Path, top_where: str, where: str
) -> None:
    """The case's own add-ons checked under its ``config.json``'s name, and the top-level
    configuration's that it does not replace (entries merge by name) under that file's."""
    if own is not None:
        check_provision(own, case_dir, where)
    if top is None:
        return
    own = own or Provision()
    kept = Provision(
        mcps=[e for e in top.mcps if e.name not in {o.name for o in own.mcps}],
        plugins=[e for e in top.plugins if e.name not in {o.name for o in own.plugins}],
        skills=[e for e in top.skills if e.name not in {o.name for o in own.skills}],
        hooks=[e for e in top.hooks if e.name not in {o.name for o in own.hooks}],
    )
    check_provision(kept, case_dir, f"{top_where} (for case {case_dir.name})")


def _check_case_names(found: Discovery, cli: CliOverrides) -> None:
    """A ``--case`` pattern that matches no case name is a typo, said as such, even beside
    others that match: it would otherwise run less than asked, and pass (a name matching a
    skipped case is left to that case's "skipped" line)."""
    names = [c.name for c in found.cases]
    check_case_globs(cli.cases, names, [*names, *(s.name for s in found.skipped), *found.broken])


def check_case_globs(globs: Sequence[str], names: Sequence[str], every: Sequence[str]) -> None:
    """A ConfigError for the ``--case`` GLOBs that match none of ``every`` (the names there
    are), with the nearest of ``names`` (those that run) and the first of them: ``--case
    fix-a-bg: no case matches (did you mean 'fix-a-bug'? cases: …)``. ``proctor run`` and
    ``proctor eval`` say it the same way."""
    unmatched = [g for g in globs if not any(picks(n, g) for n in every)]
    if not names or not unmatched:
        return
    shown = ", ".join(sorted(names)[:10]) + (", …" if len(names) > 10 else "")
    near = did_you_mean(unmatched[0], sorted(names)) if len(unmatched) == 1 else ""
    said = f"--case {', '.join(map(name_shown, unmatched))}: no case matches"
    raise ConfigError(f"{said} ({near}cases: {shown})")


def _check_tags(found: Discovery, cli: CliOverrides) -> None:
    """``--tag`` that leaves no case (of those ``--case`` picks) is said with the tags the cases
    carry, not as a bare "nothing runnable"."""
    named = [c for c in found.cases if not cli.cases or any(picks(c.name, g) for g in cli.cases)]
    if not cli.tags or not named or any(set(c.tags) & set(cli.tags) for c in named):
        return check_tag_typos(found, cli)
    carried = sorted({t for c in named for t in c.tags})
    shown = ", ".join(carried[:20]) + (", …" if len(carried) > 20 else "")
    which = "no case --case picks" if cli.cases else "no case"
    near = did_you_mean(cli.tags[0], carried) if len(cli.tags) == 1 else ""
    said = f"--tag {', '.join(map(name_shown, cli.tags))}: {which} carries it"
    raise ConfigError(f"{said} ({near}tags: {shown or 'none'})")


def nothing_runnable(source: object, plan: RunPlan) -> ConfigError:
    """The error of a plan with no trial: why, in the words a user can act on."""
    if plan.cases:
        why = "no case matched"
    elif plan.skipped:
        named = "; ".join(f"{s.name}: {s.reason}" for s in plan.skipped[:3])
        why = f"skipped: {named}" + ("; …" if len(plan.skipped) > 3 else "")
    else:
        why = "no case folder, one holding prompt.md and config.json, nor a task file there"
    evals = Path(str(source)) / "evals"
    if eval_files(evals):  # those `proctor eval` would run (none when there is no evals/)
        why += f"; it holds evals written as code: `proctor eval --dir {source}` runs them"
    return ConfigError(f"--source {source}: nothing runnable ({why})")


def _check_evaluator_names(cases: list[Case], cli: CliOverrides) -> None:
    """Each ``--only-evaluator``/``--skip-evaluator`` name is some evaluator's ``use`` or
    ``label``: a typo would otherwise run nothing, or everything, silently; it is said with the
    nearest name and the first 20 there are, as ``--case`` and ``--tag`` are. A name given to
    both options would leave nothing to run."""
    both = sorted(set(cli.only_evaluators) & set(cli.skip_evaluators))
    if both:
        raise ConfigError(
            f"--only-evaluator and --skip-evaluator both name {', '.join(both)}: give it to one"
        )
    known = {e.use for c in cases for e in c.evaluators}
    known |= {e.label for c in cases for e in c.evaluators if e.label}
    for option, names in (
        ("--only-evaluator", cli.only_evaluators),
        ("--skip-evaluator", cli.skip_evaluators),
    ):
        for name in names:
            if name not in known:
                every = sorted(known)
                shown = ", ".join(every[:20]) + (", …" if len(every) > 20 else "")
                near = did_you_mean(name, every)
                said = f"no case has an evaluator with that use or label ({near}evaluators:"
                raise ConfigError(f"{option} {name_shown(name)}: {said} {shown or 'none'})")


def _first(*values: float | None) -> float:
    return next(value for value in values if value is not None)


def select_cases(cases: list[Case], cli: CliOverrides) -> list[Case]:
    chosen = cases
    if cli.cases:
        chosen = [c for c in chosen if any(picks(c.name, g) for g in cli.cases)]
    if cli.tags:
        chosen = [c for c in chosen if set(c.tags) & set(cli.tags)]
    return chosen


def _check_conditions(
    resolved: list[ResolvedCase],
    defined: set[str],
    everywhere: set[str],
    top: TopConfig,
    cli: CliOverrides,
    where: str,
) -> None:
    """``defined``: the conditions of the cases chosen; ``everywhere``: of every case found,
    so that a condition only cases --case or --tag leave out have is said as left out."""
    if cli.first_condition is not None and not any(
        cli.first_condition in rc.conditions for rc in resolved
    ):
        if cli.conditions and cli.first_condition in defined:
            raise ConfigError(
                f"--first-condition {name_shown(cli.first_condition)}: that condition is left out "
                f"by --condition {' --condition '.join(cli.conditions)}"
            )
        if cli.first_condition in everywhere - defined:
            raise ConfigError(
                f"--first-condition {name_shown(cli.first_condition)}: that condition is only of "
                f"cases left out by {selection(cli)}"
            )
        runnable = sorted({name for rc in resolved for name in rc.conditions})
        raise ConfigError(
            f"--first-condition {name_shown(cli.first_condition)}: no case has that condition "
            f"({did_you_mean(cli.first_condition, runnable)}conditions: "
            f"{', '.join(runnable) or 'none'})"
        )
    gate = applied_gate(top.gate)
    if gate.ab is None or not resolved:
        return
    known = {name for rc in resolved for name in rc.conditions}
    for name in (gate.ab.treatment, gate.ab.baseline):
        if name not in known:
            fix, near = ", or give this run a --config without gate.ab", ""
            if cli.conditions and name in defined:
                why, fix = "is left out by --condition", f"; run it too{fix}"
            elif name in everywhere - defined:
                why = f"is only of cases left out by {selection(cli)}"
                fix = f"; choose a case that has it too{fix}"
            else:  # the likely typo: the nearest condition of the cases chosen is named
                why, fix, near = "is not defined by any case", "", did_you_mean(name, sorted(known))
            raise ConfigError(
                f"{where}: field 'gate.ab': condition '{name}' {why} "
                f"({near}conditions: {', '.join(sorted(known))}){fix}"
            )


def _conditions_of(cases: list[Case], top: TopConfig) -> set[str]:
    """The conditions the cases run under, ``default`` for one that names none."""
    defined: set[str] = set()
    for case in cases:
        defined |= set(top.conditions or {}) | set(case.config.conditions or {})
        if not (top.conditions or case.config.conditions):
            defined.add(DEFAULT_CONDITION)
    return defined


def _trials(
    resolved: list[ResolvedCase],
    top: TopConfig,
    cli: CliOverrides,
    config_path: Path | None,
    dotenv: Path | None,
) -> list[TrialSpec]:
    pricing = PriceTable(prices=dict(top.pricing))
    where = str(config_path or "proctor.json")
    roles_by_case = resolve_roles(resolved, top, cli, config_path, dotenv)
    trials: list[TrialSpec] = []
    asked, first = cli.conditions or [], cli.first_condition
    # The order rotates from case to case as from repeat to repeat, among an agent's cases of
    # the same conditions: one repeat of an even number of an agent's A/B cases runs each
    # condition first equally often, so that each agent's trials are balanced on their own,
    # whichever cases the other agents run.
    cells = [(rc, agent) for rc in resolved for agent in rc.agents]
    rotation = rotation_places((agent, starting_order(rc.conditions, asked)) for rc, agent in cells)
    for (rc, agent), (rows_from, case_place) in zip(cells, rotation, strict=True):
        names = starting_order(rc.conditions, asked)
        profile = profile_for(agent, top.codingagents)
        mode = resolve_mode(rc, agent, profile, cli)
        check_agent_provision(rc, agent, profile)
        for repeat in range(1, rc.repeats + 1):
            for name in condition_order(names, repeat, first, case_place, rows_from):
                variant = rc.conditions[name]
                effort, effort_from = trial_effort(
                    rc, agent, name, variant, top.codingagents, cli.agent_efforts, where
                )
                if effort and effort_from != FLAG:  # (the flag's is refused before)
                    kind = profile.agent or agent
                    problem = effort_problem(effort, agent, kind, effort_from or "")
                    if problem is not None:
                        raise ConfigError(problem)
                trials.append(
                    TrialSpec(
                        case=rc,
                        agent=agent,
                        condition=name,
                        repeat=repeat,
                        profile=profile,
                        index=len(trials),
                        variant=variant,
                        metrics=top.metrics,
                        pricing=pricing,
                        mode=mode,
                        backend=cli.model or profile.backend or "provider",
                        agent_model=variant.agent_model
                        or cli.agent_models.get(agent)
                        or rc.agent_model
                        or profile.agent_model,
                        agent_effort=effort,
                        agent_effort_from=effort_from,
                        roles=roles_by_case[rc.name],
                        collect_cost=cli.collect_cost,
                        max_turns=variant.max_turns or rc.case.config.max_turns,
                        max_tool_calls=variant.max_tool_calls or rc.case.config.max_tool_calls,
                        serial_repeats=rc.case.config.serial_repeats,
                    )
                )
    return trials


def build_plan(
    found: Discovery,
    top: TopConfig,
    cli: CliOverrides,
    *,
    config_path: Path | None,
    cwd: Path | None,
    problems: list[str] | None = None,
    dotenv: Path | None = None,
) -> RunPlan:
    """The plan of the cases found. A case's configuration error stops here (a ConfigError),
    unless ``problems`` is given: then each one is noted there, the case is left out, and
    planning goes on (``proctor validate`` reports them all at once). The roles' keys are
    looked up in the environment and the ``.env`` of ``dotenv`` (default ``cwd``)."""
    dotenv = dotenv or cwd
    chosen = select_cases(found.cases, cli)
    where = str(config_path or "proctor.json")
    checks: tuple[Callable[[], None], ...] = (
        lambda: _check_case_names(found, cli),
        lambda: _check_tags(found, cli),
        lambda: _check_limits(top, where, problems),
        lambda: check_agent_flags(top, cli),
    )
    for check in checks:  # with ``problems``, each one noted, and the others checked too
        try:
            check()
        except ConfigError as exc:
            if problems is None:
                raise
            problems.append(str(exc))
    planned = cli  # the options the cases are resolved with
    try:
        _check_evaluator_names(chosen, cli)
    except ConfigError as exc:
        if problems is None:
            raise
        problems.append(str(exc))
        # A refused name chooses nothing: the cases are planned with their own evaluators, not
        # with none (`validate --only-evaluator typo` listing every case as `0 evaluators`).
        planned = cli.model_copy(update={"only_evaluators": [], "skip_evaluators": []})
    unusable = set(check_profiles(top, where, problems))  # noted: their cases are left out
    resolved = []
    for case in chosen:
        try:
            rc = resolve_case(case, top, planned, str(config_path or "proctor.json"))
            if unusable & set(rc.agents):
                continue
            if problems is not None:
                _trials([rc], top, planned, config_path, dotenv)  # what the matrix would check
            resolved.append(rc)
        except ConfigError as exc:
            if problems is None:
                raise
            if str(exc) not in problems:  # proctor.json's, found again by each case taking it
                problems.append(str(exc))
    defined, everywhere = _conditions_of(chosen, top), _conditions_of(found.cases, top)
    # A case without the conditions asked for is not chosen, as one --case leaves out.
    unchosen = sum(not rc.conditions for rc in resolved) if cli.conditions else 0
    named = broken_chosen(found, cli)
    if cli.conditions:
        unknown = [name for name in cli.conditions if name not in defined]
        if unknown:
            names, found_n = [c.name for c in chosen], len(found.cases) + len(found.broken)
            said = unknown_condition(unknown[0], names, defined, everywhere, cli, found_n)
            if problems is None:
                raise ConfigError(said)
            problems.append(said)
        resolved = [rc for rc in resolved if rc.conditions]
    try:
        _check_conditions(resolved, defined, everywhere, top, cli, where)
    except ConfigError as exc:
        if problems is None:
            raise
        problems.append(str(exc))
    out = Path(cli.out or top.out or DEFAULT_OUT)
    return RunPlan(
        top=top,
        config_path=config_path,
        cases=resolved,
        trials=_trials(resolved, top, planned, config_path, dotenv),
        gate=applied_gate(top.gate),
        concurrency=cli.concurrency or top.concurrency or DEFAULT_CONCURRENCY,
        out=read_against(cwd, out),
        overrides=cli,
        skipped=list(found.skipped),
        found=len(found.cases) + len(found.broken),  # a case whose files are refused too
        chosen=len(chosen) - unchosen + len(named),
    )


def load_run_plan(
    source: Path,
    config_path: Path | None,
    cli: CliOverrides,
    cwd: Path | None,
    problems: list[str] | None = None,
    dotenv: Path | None = None,
    unread: tuple[str, ...] = (),
    config_folder: Path | None = None,
    others: list[str] | None = None,
    chosen_by: str | None = None,
) -> RunPlan:
    """Read the top-level config and the case folders, and expand the matrix. With
    ``problems``, configuration errors are noted there and planning goes on without what they
    concern (an unreadable top-level file counts as empty). ``dotenv``: the folder whose
    ``.env`` holds the roles' keys (default ``cwd``). ``unread``: the keys of the top-level
    config the run leaves unset (``proctor eval``'s cases have no conditions, and its gate is
    its own). ``config_folder``: where ``proctor.json`` is looked for without ``config_path``
    (default ``cwd``; ``proctor eval``'s project folder). ``others``: where the problems of
    cases ``--case``/``--tag`` (or ``chosen_by``, a manifest) do not choose are warnings.
    ``cwd`` None: the current folder is gone; a relative path (``source``, ``config_path``,
    ``out``, ``--source-root``) then raises ``getcwd``'s error (see
    :func:`~proctor.paths.read_against`), and no ``./proctor.json`` nor ``./.env`` is read."""
    if cwd is None:  # (a relative path would name the removed folder's emptiness, or nothing)
        read_against(None, source)
        if config_path is not None and not names_stdin(config_path):
            read_against(None, config_path)
    try:
        top, path = load_top_config(config_path, config_folder or cwd)
    except ConfigError as exc:
        if problems is None:
            raise
        problems.extend(exc.problems if isinstance(exc, Problems) else [str(exc)])
        top, path = TopConfig(), config_path
    if unread:
        top = top.model_copy(update=dict.fromkeys(unread))
    # Relative to where the run was started (a resume may run from elsewhere), as --source is.
    root = read_against(cwd, Path(cli.source_root)) if cli.source_root else None
    spare = others is not None and bool(cli.cases or cli.tags)
    noted: list[str] = []
    found = discover_cases(source, root, noted if spare else problems)
    if spare and others is not None:
        warnings, stopping = unchosen_problems(found, cli, noted, chosen_by)
        others.extend(warnings)
        for said in stopping:  # the first raised, without ``problems``
            _note(ConfigError(said), problems)
    return build_plan(found, top, cli, config_path=path, cwd=cwd, problems=problems, dotenv=dotenv)
