"""The planner: layering (defaults < proctor.json < config.json < flags), the matrix with its
condition order, and the checks made before any trial."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.discover.folders import Discovery
from proctor.errors import ConfigError
from proctor.evaluators.base import parse_evaluator_specs
from proctor.models.case import Case
from proctor.models.config import CaseConfig, CliOverrides, Condition, TopConfig
from proctor.models.plan import RunPlan, TrialSpec
from proctor.plan.records import resolved_record
from proctor.plan.resolve import (
    build_plan,
    condition_order,
    nothing_runnable,
    resolve_case,
    select_cases,
)
from proctor.session.repeats import plan_order_note


def case(name: str = "c", tmp: Path = Path("/cases"), **config: object) -> Case:
    return Case(name=name, path=tmp / name, prompt="p", config=CaseConfig.model_validate(config))


def plan(
    cases: list[Case], top: TopConfig | None = None, cli: CliOverrides | None = None
) -> RunPlan:
    return build_plan(
        Discovery(cases=cases),
        top or TopConfig(),
        cli or CliOverrides(),
        config_path=None,
        cwd=Path("/work"),
    )


def test_defaults_then_top_then_case_then_flags() -> None:
    top = TopConfig(timeout_sec=50, repeats=2, pass_threshold=70, env={"A": "top", "B": "top"})
    rc = resolve_case(case(timeoutSec=40, env={"B": "case"}), top, CliOverrides())
    assert (rc.timeout_sec, rc.repeats, rc.pass_threshold) == (40, 2, 70)
    assert rc.env == {"A": "top", "B": "case"}
    rc = resolve_case(case(timeoutSec=40), top, CliOverrides(timeout_sec=9, repeats=4))
    assert (rc.timeout_sec, rc.repeats) == (9, 4)
    bare = resolve_case(case(), TopConfig(), CliOverrides())
    assert (bare.timeout_sec, bare.repeats, bare.agents, bare.combiner) == (
        300.0,
        1,
        ["scripted"],
        "gated-mean",
    )


def test_setup_lines_concatenate_top_first() -> None:
    rc = resolve_case(case(setup=["b"]), TopConfig(setup=["a"]), CliOverrides())
    assert rc.setup == ["a", "b"]


def test_unknown_agents_and_combiners_name_the_field() -> None:
    with pytest.raises(ConfigError, match=r"field 'agents\[0\]': unknown agent 'nope'"):
        resolve_case(case(agents=["nope"]), TopConfig(), CliOverrides())
    with pytest.raises(ConfigError, match="--agent nope: unknown agent 'nope'"):
        resolve_case(case(), TopConfig(), CliOverrides(agents=["nope"]))
    with pytest.raises(ConfigError, match="unknown combiner 'median'"):
        resolve_case(case(combiner="median"), TopConfig(), CliOverrides())
    with pytest.raises(ConfigError, match="'all_pass' \\(did you mean 'all-pass'\\? known"):
        resolve_case(case(combiner="all_pass"), TopConfig(), CliOverrides())
    with pytest.raises(ConfigError, match="'claud-code' \\(did you mean 'claude-code'\\?"):
        resolve_case(case(agents=["claud-code"]), TopConfig(), CliOverrides())


@pytest.mark.parametrize("cli", [True, False])
def test_an_unknown_agent_suggests_the_cli_a_person_meant(cli: bool) -> None:
    """ "claude" (or "clude") in --agent or a case's config.json names claude-code first, not
    the shorter acp:claude."""
    flags = CliOverrides(agents=["clude"]) if cli else CliOverrides()
    given = case() if cli else case(agents=["claude"])
    with pytest.raises(ConfigError, match="did you mean 'claude-code' or 'acp:claude'\\?"):
        resolve_case(given, TopConfig(), flags)


def test_an_unknown_agent_of_the_top_level_configuration_is_blamed_on_that_file() -> None:
    """A case without a list of its own takes proctor.json's: the typo is there, not in the
    case's config.json."""
    top = TopConfig(agents=["scriptd"])
    with pytest.raises(ConfigError) as info:
        resolve_case(case(), top, CliOverrides(), "/work/ag.json")
    assert str(info.value).startswith("/work/ag.json: field 'agents[0]': unknown agent 'scriptd'")
    with pytest.raises(ConfigError, match=r"^/cases/c/config.json: field 'agents\[0\]'"):
        resolve_case(case(agents=["nope"]), top, CliOverrides(), "/work/ag.json")


@pytest.mark.parametrize(
    ("repeat", "first", "expected"),
    [
        (1, None, ["a", "b", "c"]),
        (2, None, ["b", "c", "a"]),
        (3, None, ["c", "a", "b"]),
        (4, None, ["c", "b", "a"]),  # the mirror rows of the Williams square
        (6, None, ["b", "a", "c"]),
        (7, None, ["a", "b", "c"]),
        (2, "c", ["c", "a", "b"]),
        (2, "zz", ["b", "c", "a"]),
    ],
)
def test_condition_order_follows_the_rows_of_a_williams_square(
    repeat: int, first: str | None, expected: list[str]
) -> None:
    assert condition_order(["a", "b", "c"], repeat, first) == expected


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_condition_order_runs_each_condition_before_each_other_as_often_as_after(k: int) -> None:
    """Over a whole square of repeats (k, 2k for an odd k), no condition runs before another
    more often than after it: the plain rotation ran a before b in 2 of every 3 repeats."""
    names = [f"c{i}" for i in range(k)]
    repeats = k if k % 2 == 0 else 2 * k
    orders = [condition_order(names, repeat, None) for repeat in range(1, repeats + 1)]
    for one in names:
        for other in names:
            if one != other:
                before = sum(1 for o in orders if o.index(one) < o.index(other))
                assert before * 2 == repeats, (one, other, orders)
    assert {o[0] for o in orders} == set(names)


def test_the_order_alternates_from_case_to_case_as_from_repeat_to_repeat() -> None:
    """One repeat of four A/B cases runs each condition first in two of them, not baseline
    first in all four; a case without two conditions takes no place in the rotation, and
    every agent of a case runs its case's order."""
    ab = {"conditions": {"baseline": {}, "with-skill": {}}}
    cases = [case("a", **ab), case("b", **ab), case("lone"), case("c", **ab), case("d", **ab)]
    firsts: dict[tuple[str, str, int], str] = {}
    two = CliOverrides(agents=["scripted", "claude-code"], repeats=2)
    for t in plan(cases, cli=two).trials:
        firsts.setdefault((t.case.name, t.agent, t.repeat), t.condition)
    for agent in ("scripted", "claude-code"):
        for repeat, started in ((1, "baseline"), (2, "with-skill")):
            other = "with-skill" if started == "baseline" else "baseline"
            assert [firsts[(name, agent, repeat)] for name in "abcd"] == [
                started,
                other,
                started,
                other,
            ], (agent, repeat)
    # The same suite: the same order, run after run.
    assert [t.key for t in plan(cases, cli=two).trials] == [
        t.key for t in plan(cases, cli=two).trials
    ]


def _orders(cases: list[Case], cli: CliOverrides | None = None) -> dict[str, list[str]]:
    """Each case's conditions in the order its first agent's repeat 1 runs them."""
    trials = plan(cases, cli=cli).trials
    first = trials[0].agent
    return {
        c.name: [
            t.condition for t in trials if (t.case.name, t.agent, t.repeat) == (c.name, first, 1)
        ]
        for c in cases
    }


def _conditions(*names: str) -> dict[str, object]:
    return {"conditions": {name: {} for name in names}}


def test_cases_listing_the_same_conditions_the_other_way_round_rotate_together() -> None:
    """The cases of one set of conditions rotate from one order, the first case's: c3 lists
    b before a, and ran a first as c1 did (row 1 of b a), where each ran its own first."""
    cases = [case("c1", **_conditions("a", "b")), case("c3", **_conditions("b", "a"))]
    assert _orders(cases) == {"c1": ["a", "b"], "c3": ["b", "a"]}
    assert plan_order_note(plan(cases).trials, None) == ""
    # Pinned first, the others still follow the case's own order.
    three = [case("d1", **_conditions("a", "b", "c")), case("d2", **_conditions("a", "c", "b"))]
    pinned = CliOverrides(first_condition="a")
    assert _orders(three, pinned) == {"d1": ["a", "b", "c"], "d2": ["a", "c", "b"]}


def test_a_case_of_other_conditions_takes_no_place_among_the_a_b_cases() -> None:
    """x and z rotate between themselves: y, of a third condition, between them made both
    run a first."""
    cases = [
        case("x", **_conditions("a", "b")),
        case("y", **_conditions("a", "b", "c")),
        case("z", **_conditions("a", "b")),
    ]
    orders = _orders(cases)
    assert (orders["x"], orders["z"]) == (["a", "b"], ["b", "a"])
    assert orders["y"] == ["a", "b", "c"]  # the first of its own group
    # The same suite: the same order, run after run.
    assert [t.key for t in plan(cases).trials] == [t.key for t in plan(cases).trials]


def test_the_note_names_cases_as_a_balance_only_when_a_count_of_cases_balances() -> None:
    """ "or of 2 cases" is said of an agent's cases of one set of conditions when each runs as
    many repeats; not when one case runs more rows than another. Each agent and each set of
    conditions is counted on its own, and named when there are several."""
    one = "a runs first in 2 of 3 case repeats, b in 1 (a multiple of 2 repeats, or of 2 cases,"
    turned = [case(n, **_conditions(*o)) for n, o in (("c1", "ab"), ("c2", "ba"), ("c3", "ab"))]
    assert one in plan_order_note(plan(turned).trials, None)
    # x and y rotate apart: each set's one case repeat is its own, a first in both; together
    # they were "a first in 2 of 2", which no count of cases of both balances.
    mixed = [case("x", **_conditions("a", "b")), case("y", **_conditions("a", "c"))]
    assert plan_order_note(plan(mixed).trials, None) == (
        "the order of the conditions is not balanced for conditions a, b: a runs first in 1 "
        "of 1 case repeat, b in 0 (a multiple of 2 repeats, or of 2 cases, balances it); for "
        "conditions a, c: a runs first in 1 of 1 case repeat, c in 0 (a multiple of 2 repeats, "
        "or of 2 cases, balances it)"
    )
    # scripted runs c1 (row 1) and c2's two repeats (rows 2 and 1): a first in 2 of 3, and a
    # count of its cases, one of 1 repeat and one of 2, balances nothing; claude-code runs c1
    # alone (row 1). Counted together they were "a first in 3 of 4".
    uneven = [
        case("c1", agents=["scripted", "claude-code"], **_conditions("a", "b")),
        case("c2", agents=["scripted"], repeats=2, **_conditions("a", "b")),
    ]
    assert plan_order_note(plan(uneven).trials, None) == (
        "the order of the conditions is not balanced for agent scripted: a runs first in 2 of "
        "3 case repeats, b in 1 (a multiple of 2 repeats balances it); for agent claude-code: "
        "a runs first in 1 of 1 case repeat, b in 0 (a multiple of 2 repeats, or of 2 cases, "
        "balances it)"
    )


def test_each_agent_rotates_the_order_over_its_own_cases() -> None:
    """Cases run by one agent each, in turn (c1 and c3 by scripted, c2 and c4 by claude-code):
    rotated over the cases regardless of agent, scripted ran a first in both of its cases and
    claude-code b first in both, the order confounded with the agent, and no note said so
    (a first in 2 of 4 all together). Each agent's cases of one set of conditions now rotate
    on their own, from the order the first such case gives, deterministically."""
    ab = _conditions("a", "b")
    cases = [
        case("c1", agents=["scripted"], **ab),
        case("c2", agents=["claude-code"], **ab),
        case("c3", agents=["scripted"], **ab),
        case("c4", agents=["claude-code"], **_conditions("b", "a")),
    ]
    trials = plan(cases).trials
    firsts: dict[tuple[str, str], str] = {}
    for t in trials:
        firsts.setdefault((t.agent, t.case.name), t.condition)
    assert firsts == {
        ("scripted", "c1"): "a",
        ("scripted", "c3"): "b",
        ("claude-code", "c2"): "a",
        ("claude-code", "c4"): "b",
    }
    assert plan_order_note(trials, None) == ""
    assert [t.key for t in plan(cases).trials] == [t.key for t in trials]
    # A case both agents run, after one of claude-code's: scripted's first A/B case starts at
    # row 1 (a first), claude-code's second at row 2.
    both = [
        case("d0", agents=["claude-code"], **ab),
        case("d1", agents=["scripted", "claude-code"], **ab),
    ]
    started = [(t.agent, t.case.name, t.condition) for t in plan(both).trials][::2]
    assert started == [
        ("claude-code", "d0", "a"),
        ("scripted", "d1", "a"),
        ("claude-code", "d1", "b"),
    ]


def test_the_matrix_is_agent_by_repeat_by_condition() -> None:
    conditions = {"base": Condition(), "with": Condition(agent_model="m")}
    top = TopConfig(conditions=conditions, repeats=2)
    p = plan([case()], top)
    assert [(t.agent, t.repeat, t.condition) for t in p.trials] == [
        ("scripted", 1, "base"),
        ("scripted", 1, "with"),
        ("scripted", 2, "with"),
        ("scripted", 2, "base"),
    ]
    assert [t.index for t in p.trials] == [0, 1, 2, 3]
    assert p.trials[1].agent_model == "m"


def test_select_cases_by_glob_and_tag() -> None:
    cases = [case("fix-a", tags=["x"]), case("fix-b"), case("other", tags=["x"])]
    assert [c.name for c in select_cases(cases, CliOverrides(cases=["fix-*"]))] == [
        "fix-a",
        "fix-b",
    ]
    chosen = select_cases(cases, CliOverrides(cases=["fix-*"], tags=["x"]))
    assert [c.name for c in chosen] == ["fix-a"]


def test_an_ab_gate_naming_a_condition_no_case_has_is_refused() -> None:
    top = TopConfig.model_validate(
        {"conditions": {"base": {}}, "gate": {"ab": {"treatment": "with", "baseline": "base"}}}
    )
    with pytest.raises(ConfigError, match="condition 'with' is not defined by any case"):
        plan([case()], top)


def test_an_ab_gate_naming_a_misspelt_condition_is_told_the_nearest() -> None:
    conditions = {"baseline": {}, "with-skill": {}}
    ab = {"treatment": "with-skil", "baseline": "baseline"}
    top = TopConfig.model_validate({"conditions": conditions, "gate": {"ab": ab}})
    with pytest.raises(ConfigError) as caught:
        plan([case()], top)
    assert str(caught.value) == (
        "proctor.json: field 'gate.ab': condition 'with-skil' is not defined by any case "
        "(did you mean 'with-skill'? conditions: baseline, with-skill)"
    )


def test_an_unknown_condition_flag_is_refused() -> None:
    with pytest.raises(ConfigError, match="--condition nope: no case has that condition"):
        plan([case(), case("d")], cli=CliOverrides(conditions=["nope"]))
    # The one case there is, or that --case or --tag chose, is named with its conditions.
    said = r"--condition nope: case 'c' has no such condition \(its conditions: default\)$"
    with pytest.raises(ConfigError, match=said):
        plan([case()], cli=CliOverrides(conditions=["nope"]))
    with pytest.raises(ConfigError, match=said):
        plan([case(), case("d")], cli=CliOverrides(conditions=["nope"], cases=["c"]))


def test_trial_specs_are_plain_frozen_data() -> None:
    p = plan([case()])
    (spec,) = p.trials
    assert TrialSpec.model_validate_json(spec.model_dump_json()) == spec
    with pytest.raises(ValueError):
        spec.repeat = 2


def test_the_resolved_record_leaves_secret_values_out() -> None:
    top = TopConfig.model_validate(
        {"env": {"TOKEN": "s3cret"}, "codingagents": {"scripted": {"env": {"KEY": "v"}}}}
    )
    record = resolved_record(plan([case()], top))
    text = record.model_dump_json()
    assert "s3cret" not in text and '"v"' not in text
    assert record.cases[0].env == ["TOKEN"] and record.codingagents["scripted"].env == ["KEY"]


def test_validate_reports_a_top_level_problem_every_case_meets_once(tmp_path: Path) -> None:
    problems: list[str] = []
    build_plan(
        Discovery(cases=[case("a", tmp_path), case("b", tmp_path)]),
        TopConfig(agents=["scriptd"]),
        CliOverrides(),
        config_path=tmp_path / "ag.json",
        cwd=tmp_path,
        problems=problems,
    )
    assert problems == [
        f"{tmp_path / 'ag.json'}: field 'agents[0]': unknown agent 'scriptd' (did you mean "
        "'scripted'? known: acp, acp:claude, acp:gemini, claude-code, codex, gemini-cli, scripted)"
    ]


def test_a_trajectory_check_without_a_pattern_for_a_planned_agent_is_refused() -> None:
    """Every trial of that agent would fail ("no toolPattern given for agent …"): a
    configuration error before any trial, for the agents the run plans."""
    from proctor.evaluators.base import parse_evaluator_specs

    entry = {"use": "trajectory-check", "toolPattern": {"claude-code": "Bash"}}
    specs = parse_evaluator_specs([{"use": "command", "run": "true"}, entry], "c/config.json")
    only_claude = case().model_copy(update={"evaluators": specs})
    with pytest.raises(ConfigError) as info:
        resolve_case(only_claude, TopConfig(), CliOverrides())
    assert str(info.value).startswith(
        "/cases/c/config.json: field 'evaluators[1]': toolPattern gives no pattern for agent "
        "'scripted', which the run plans (it names claude-code)"
    )
    resolve_case(only_claude, TopConfig(), CliOverrides(agents=["claude-code"]))
    starred = {"use": "trajectory-check", "toolPattern": {"claude-code": "Bash", "*": "shell"}}
    every = case().model_copy(update={"evaluators": parse_evaluator_specs([starred], "c")})
    resolve_case(every, TopConfig(), CliOverrides())


@pytest.mark.parametrize("agent", ["codex", "gemini-cli"])
def test_a_plugin_for_an_agent_that_cannot_load_it_is_refused(tmp_path: Path, agent: str) -> None:
    """A Claude Code plugin goes to Claude Code alone (--plugin-dir): Codex and Gemini CLI trials
    would run without it, so an A/B of a plugin condition would compare two baselines."""
    (tmp_path / "c" / "tidy").mkdir(parents=True)
    with_plugin = {"provision": {"plugins": [{"name": "tidy", "path": "tidy"}]}}
    conditions = {"baseline": {}, "with-plugin": with_plugin}
    with pytest.raises(ConfigError) as caught:
        plan([case("c", tmp_path, agents=[agent], conditions=conditions)])
    assert str(caught.value).startswith(
        f"case 'c', condition 'with-plugin': agent '{agent}' cannot load provision.plugins "
        "('tidy'); it takes hooks, mcps, skills"
    )
    with pytest.raises(ConfigError, match=f"^case 'c': agent '{agent}' cannot load"):
        plan([case("c", tmp_path, agents=[agent], **with_plugin)])
    for loads in ("claude-code", "scripted"):
        assert plan([case("c", tmp_path, agents=[loads], conditions=conditions)]).trials
    skills = {"provision": {"skills": [{"name": "tidy", "path": "tidy"}]}}
    assert plan([case("c", tmp_path, agents=[agent], **skills)]).trials


def test_a_refused_add_on_names_the_agents_that_load_its_kind(tmp_path: Path) -> None:
    """An ACP agent takes MCP servers alone: the sentence for its skills names the CLIs that load
    skills, not those that load plugins, and offers no plugin's parts to provision instead."""
    (tmp_path / "c" / "tidy").mkdir(parents=True)
    skills = {"provision": {"skills": [{"name": "tidy", "path": "tidy"}]}}
    with pytest.raises(ConfigError) as caught:
        plan([case("c", tmp_path, agents=["acp"], **skills)])
    assert str(caught.value) == (
        "case 'c': agent 'acp' cannot load provision.skills ('tidy'); it takes mcps, and its "
        "trials would run without the skills. Run the case on an agent that loads them "
        "(skills: claude-code, codex, gemini-cli)"
    )
    plugins = {"provision": {"plugins": [{"name": "tidy", "path": "tidy"}]}}
    with pytest.raises(ConfigError) as caught:
        plan([case("c", tmp_path, agents=["codex"], **plugins)])
    assert str(caught.value).endswith(
        "Run the case on an agent that loads them (plugins: claude-code), or provision the "
        "plugin's skills, hooks and MCP servers as entries of their own"
    )


def test_an_evaluator_naming_a_condition_the_case_lacks_is_refused(tmp_path: Path) -> None:
    check = {"use": "command", "run": "true", "conditions": ["with-plugn"]}
    conditions = {"baseline": {}, "with-plugin": {}}

    def with_evaluator(entry: dict[str, object]) -> Case:
        bare = case("c", tmp_path, conditions=conditions, evaluators=[entry])
        specs = parse_evaluator_specs([entry], "c/config.json")
        return bare.model_copy(update={"evaluators": specs})

    with pytest.raises(ConfigError) as caught:
        resolve_case(with_evaluator(check), TopConfig(), CliOverrides())
    assert (
        "field 'evaluators[0].conditions': 'with-plugn' is not a condition of the case "
        "(did you mean 'with-plugin'? conditions: baseline, with-plugin)"
    ) in str(caught.value)
    good = with_evaluator({**check, "conditions": ["with-plugin"]})
    assert resolve_case(good, TopConfig(), CliOverrides()).evaluators[0].conditions == [
        "with-plugin"
    ]


def test_a_missing_condition_plan_names_the_plan_no_condition_has() -> None:
    """A plan.json keyed by a misspelt condition names it beside the one without a plan."""
    conditions = {"baseline": {}, "with-hint": {}}
    typo = case(conditions=conditions).model_copy(
        update={"plan": {"conditions": {"baseline": {"turns": []}, "with-hnt": {"turns": []}}}}
    )
    with pytest.raises(ConfigError) as err:
        resolve_case(typo, TopConfig(), CliOverrides())
    assert str(err.value).endswith(
        "no plan for condition with-hint "
        "(it has a plan for with-hnt, which is no condition of the case)"
    )
    # Left out by --condition, the plan's other conditions are still the case's.
    chosen = typo.model_copy(update={"plan": {"conditions": {"with-hint": {"turns": []}}}})
    with pytest.raises(ConfigError) as err:
        resolve_case(chosen, TopConfig(), CliOverrides(conditions=["baseline"]))
    assert str(err.value).endswith("no plan for condition baseline")
    # Two without a plan are counted in words too.
    neither = typo.model_copy(update={"plan": {"conditions": {"with-hnt": {"turns": []}}}})
    with pytest.raises(ConfigError, match="no plan for conditions baseline, with-hint "):
        resolve_case(neither, TopConfig(), CliOverrides())


def test_a_case_left_unevaluated_names_the_one_switch_that_did_it(tmp_path: Path) -> None:
    """Its trials' reason names this cause, not every switch that could leave a case so."""
    entries = parse_evaluator_specs([{"use": "file-exists", "must": ["a"]}], "c/config.json")
    judged = case("c", tmp_path).model_copy(update={"evaluators": entries})
    assert resolve_case(judged, TopConfig(), CliOverrides()).not_evaluated == ""
    off = resolve_case(judged, TopConfig(), CliOverrides(evaluate=False))
    assert (off.evaluated, off.not_evaluated) == (False, "--no-evaluate")
    left = resolve_case(judged, TopConfig(), CliOverrides(only_evaluators=["command"]))
    assert left.not_evaluated == "--only-evaluator command left out every one of its evaluators"
    # proctor run --prompt without --evaluate: said by the run's options, not by the path
    # of its case (<out>/inline/<timestamp>/inline), which a suite's case may share.
    unasked = CliOverrides(evaluate=False, prompt_without_evaluate=True)
    said = resolve_case(judged, TopConfig(), unasked).not_evaluated
    assert said == "--prompt without --evaluate"
    suites = case("inline", tmp_path / "suite" / "inline" / "2026")
    said = resolve_case(suites, TopConfig(), CliOverrides(evaluate=False)).not_evaluated
    assert said == "--no-evaluate"  # was "--prompt without --evaluate"


def test_a_case_planned_without_its_cause_names_every_cause_as_then() -> None:
    """A case planned by a proctor that did not record the one cause named every cause in
    its trials' reason; the trial and --dry-run fell back to '--no-evaluate' apart, which
    was one guess of three."""
    from proctor.models.plan import ResolvedCase
    from proctor.models.trial import NOT_EVALUATED, not_evaluated

    rc = resolve_case(case("c"), TopConfig(), CliOverrides(evaluate=False))
    data = rc.model_dump(mode="json")
    assert data.pop("not_evaluated") == "--no-evaluate"
    older = ResolvedCase.model_validate(data)
    assert not_evaluated(older.why_not_evaluated) == NOT_EVALUATED
    assert rc.why_not_evaluated == "--no-evaluate"
    judged = resolve_case(case("c"), TopConfig(), CliOverrides())
    assert judged.why_not_evaluated == ""
    from proctor.plan.render import render_dry_run

    planned = plan([case("c")], cli=CliOverrides(evaluate=False))
    older_plan = planned.model_copy(update={"cases": [older]})
    assert "- (not evaluated: --no-evaluate)" in render_dry_run(planned)
    shown = render_dry_run(older_plan)
    assert "- (not evaluated: --no-evaluate, --only-evaluator/--skip-evaluator " in shown


def test_the_resolved_record_says_how_each_agent_and_condition_of_a_case_runs() -> None:
    """Its mode (``--mode`` over the case's over the profile's over the adapter's), its model
    backend, agent model and effort and step budget, once per agent × condition."""
    conditions = {"baseline": {}, "treatment": {"agentModel": "big", "maxTurns": 3}}
    p = plan([case(mode="interactive", conditions=conditions)], cli=CliOverrides(model="scripted"))
    (record,) = resolved_record(p).cases
    settings = [t.model_dump(by_alias=True) for t in record.trials]
    assert settings == [
        {
            "agent": "scripted",
            "condition": "baseline",
            "mode": "interactive",
            "backend": "scripted",
            "agentModel": None,
            "agentEffort": None,
            "maxTurns": None,
            "maxToolCalls": None,
            "serialRepeats": False,
        },
        {
            "agent": "scripted",
            "condition": "treatment",
            "mode": "interactive",
            "backend": "scripted",
            "agentModel": "big",
            "agentEffort": None,
            "maxTurns": 3,
            "maxToolCalls": None,
            "serialRepeats": False,
        },
    ]
    headless = resolved_record(plan([case()], cli=CliOverrides(mode="headless"))).cases[0]
    assert [t.mode for t in headless.trials] == ["headless"]


def test_an_ab_gate_adds_to_the_default_gate_of_every_group() -> None:
    """``"gate": {"ab": {…}}`` adds the A/B gate, as documented: it used to drop every
    group's default ``minPassRate 1.0``, so a failed case passed its gate."""
    conditions = {"conditions": {"base": {}, "with": {}}}
    ab = {"treatment": "with", "baseline": "base"}
    top = TopConfig.model_validate({**conditions, "gate": {"ab": ab}})
    gate = plan([case()], top).gate
    assert gate.min_pass_rate == 1.0 and gate.ab is not None and gate.ab.treatment == "with"
    # A per-group threshold of its own replaces the default; {} gates nothing, as it says.
    own = TopConfig.model_validate({**conditions, "gate": {"minScore": 60, "ab": ab}})
    assert (plan([case()], own).gate.min_pass_rate, plan([case()], own).gate.min_score) == (
        None,
        60,
    )
    empty = TopConfig.model_validate({"gate": {}})
    assert plan([case()], empty).gate.model_dump(exclude_none=True) == {}
    assert plan([case()]).gate.min_pass_rate == 1.0


@pytest.mark.parametrize(
    ("files", "hinted"),
    [
        (["evals/a.eval.py"], True),
        (["evals/node_modules/pkg/a.eval.py", "evals/grp/deep/b.eval.py"], True),
        (["evals/node_modules/pkg/a.eval.py"], False),
        (["evals/.venv/lib/python3.11/site-packages/pkg/a.eval.py"], False),
        (["evals/.git/a.eval.py", "evals/grp/__pycache__/a.eval.py"], False),
        (["evals/dist-packages/a.eval.py", "evals/notes.eval.py/readme.md"], False),
        (["a.eval.py", "evals/helpers.py"], False),
    ],
)
def test_nothing_runnable_names_proctor_eval_only_for_the_evals_it_would_run(
    tmp_path: Path, files: list[str], hinted: bool
) -> None:
    """A ``--source`` with no case but ``evals/`` is told of ``proctor eval`` only when that
    command would run an eval file there: a copy vendored under ``node_modules``, a hidden
    folder, a cache or an installed package (or a folder named like an eval file) is never
    run, so no hint names the command for it."""
    for rel in files:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x = 1\n")
    said = str(nothing_runnable(tmp_path, plan([])))
    hint = f"it holds evals written as code: `proctor eval --dir {tmp_path}` runs them"
    assert (hint in said) is hinted, said
    assert said.startswith(f"--source {tmp_path}: nothing runnable (no case folder")
