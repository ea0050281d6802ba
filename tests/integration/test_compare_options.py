"""`proctor compare`'s options as a user gives them: a `--config`, which no comparison takes,
is said so in one sentence, not Click's bare "No such option"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeCase, Run

AB = {"conditions": {"baseline": {}, "treatment": {}}}
PLAN = {"turns": [{"say": "hi"}]}


@pytest.mark.parametrize("given", [["--config", "proctor.json"], ["--config=x.json"], ["--config"]])
def test_a_config_given_to_compare_is_said_to_be_read_by_no_comparison(
    proctor: Run, make_case: MakeCase, tmp_path: Path, given: list[str]
) -> None:
    make_case("one", config=AB, plan=PLAN)
    out = tmp_path / "out"
    assert proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out)).code == 0
    (run,) = out.glob("run-*")
    refused = proctor("compare", str(run), *given)
    assert refused.code == 2 and refused.out == ""
    assert refused.err.startswith(
        "proctor: error: --config: `proctor compare` reads no configuration, only the runs' "
        "stored trials as each run scored and measured them (--seed and --min-samples set its "
        "statistics); `proctor report RUN --config FILE` applies another file's gate (usage: "
        "proctor compare [OPTIONS] RUNS...;"
    ), refused.err
    assert refused.err.count("\n") == 1
    assert "--config" not in proctor("compare", "--help").out  # taken by no comparison


def test_a_run_s_a_b_gate_names_the_conditions_compare_compares_as_report_does(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """Three conditions, the run's gate comparing `with-skill` with `baseline`: `compare RUN`
    compares those two, as `report RUN` does, not the first pair in sorted order (`a-skill`)."""
    three = {"conditions": {"baseline": {}, "a-skill": {}, "with-skill": {}}}
    make_case("one", config=three, plan=PLAN)
    config = tmp_path / "proctor.json"
    config.write_text('{"gate": {"ab": {"treatment": "with-skill", "baseline": "baseline"}}}')
    out = tmp_path / "out"
    ran = proctor(
        "run", "--source", str(tmp_path / "cases"), "--out", str(out), "--config", str(config)
    )
    (run,) = out.glob("run-*")
    assert "## A/B: `with-skill` (treatment) vs `baseline` (baseline)" in (
        proctor("report", str(run)).out
    ), ran.err
    compared = proctor("compare", str(run))
    assert compared.code == 0, compared.err
    assert compared.out.startswith("# A/B: `with-skill` (treatment) vs `baseline` (baseline)")
    assert (
        "- Conditions: the treatment and baseline of the run's A/B gate (`gate.ab`)"
    ) in compared.out
    named = proctor("compare", str(run), "--treatment", "a-skill")
    assert named.out.startswith("# A/B: `a-skill` (treatment) vs `baseline` (baseline)")
    assert "- Conditions: the baseline of the run's A/B gate" in named.out
    # One side named, the other is the gate's: not the first other condition in sorted order.
    side = proctor("compare", str(run), "--baseline", "baseline")
    assert side.code == 0, side.err
    assert side.out.startswith("# A/B: `with-skill` (treatment) vs `baseline` (baseline)")
    both = proctor("compare", str(run), "--treatment", "a-skill", "--baseline", "baseline")
    assert "gate.ab" not in both.out


def test_a_condition_none_of_the_runs_has_is_named_with_its_option(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """The option named, and the runs read as one sample set called runs, not "this run"."""
    make_case("one", config=AB, plan=PLAN)
    out = tmp_path / "out"
    for _ in range(2):
        assert proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out)).code == 0
    run, run2 = sorted(out.glob("run-*"))
    alone = proctor("compare", str(run), "--baseline", "nope")
    assert alone.code == 2 and alone.err == (
        "proctor: error: --baseline 'nope': not one of the run's conditions (baseline, treatment)\n"
    ), alone.err
    read = proctor("compare", str(run), str(run2), "--treatment", "nope")
    assert read.code == 2 and read.err == (
        "proctor: error: --treatment 'nope': not one of the runs' conditions (baseline, "
        "treatment)\n"
    ), read.err
    slip = proctor("compare", str(run), "--treatment", "treatmnt")
    assert slip.code == 2 and slip.err == (
        "proctor: error: --treatment 'treatmnt': not one of the run's conditions (did you mean "
        "'treatment'? conditions: baseline, treatment)\n"
    ), slip.err
    both = proctor("compare", str(run), str(run2), "--treatment", "baseline", "--baseline",
                   "baseline")  # fmt: skip
    assert both.code == 2 and both.err == (
        "proctor: error: --treatment and --baseline are both 'baseline': give two of the runs' "
        "conditions (baseline, treatment)\n"
    ), both.err


def test_two_runs_each_of_one_side_are_named_in_the_command_that_compares_them(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("one", config=AB, plan=PLAN)
    runs = []
    for side in ("baseline", "treatment"):
        out = tmp_path / side
        argv = ["run", "--source", str(tmp_path / "cases"), "--out", str(out)]
        assert proctor(*argv, "--condition", side).code == 0
        runs.append(str(next(out.glob("run-*"))))
    read = proctor("compare", *runs, "--treatment", "treatment")
    assert read.code == 0, read.err
    assert (
        "these runs each ran one side of it; "
        f"`proctor compare {runs[0]} {runs[1]}` compares two runs case by case (unpaired)"
    ) in read.err, read.err


@pytest.mark.parametrize("command", ["compare", "report"])
@pytest.mark.parametrize(("given", "taken"), [("1000000", True), ("1000001", False)])
def test_min_samples_is_at_most_a_million(
    proctor: Run, make_case: MakeCase, tmp_path: Path, command: str, given: str, taken: bool
) -> None:
    """More samples than any run holds (`--min-samples 99999999999999999999`) is a typo,
    refused with the range, as `run --repeats` refuses one over its bound."""
    make_case("one", config=AB, plan=PLAN)
    out = tmp_path / "out"
    proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out))
    (run,) = out.glob("run-*")
    result = proctor(command, str(run), "--min-samples", given)
    if taken:
        assert result.code in (0, 1), result.err
    else:
        assert result.code == 2 and result.err.startswith(
            f"proctor: error: Invalid value for '--min-samples': {given} is not in the range "
            "1<=x<=1000000"
        ), result.err


def test_a_gate_naming_a_condition_the_run_lacks_is_said_as_the_gate_s(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """A run whose resolved.json's gate names a condition it did not run (edited by hand):
    `compare RUN` says the gate names it, not "--treatment 'c'", an option never given."""
    import json

    make_case("one", config=AB, plan=PLAN)
    out = tmp_path / "out"
    proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out))
    (run,) = out.glob("run-*")
    resolved = run / "resolved.json"
    data = json.loads(resolved.read_text())
    data["gate"]["ab"] = {"treatment": "c", "baseline": "baseline"}
    resolved.write_text(json.dumps(data))
    result = proctor("compare", str(run))
    assert result.code == 2
    assert result.err == (
        "proctor: error: the run's A/B gate (gate.ab) names the treatment 'c': not one of the "
        "run's conditions (baseline, treatment); --treatment and --baseline choose two of them\n"
    ), result.err
    named = proctor("compare", str(run), "--treatment", "treatment")
    assert named.code == 0, named.err


def test_the_json_says_where_the_pair_came_from_and_a_side_of_the_gate_named_has_its_other(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """`compare --json` did not say whether its pair was the gate's, named, or chosen
    (`pairFrom`); and `--treatment` the gate's baseline had its baseline by sorted order
    (`a-skill`), not the gate's other condition (`with-skill`)."""
    import json

    three = {"conditions": {"baseline": {}, "a-skill": {}, "with-skill": {}}}
    make_case("one", config=three, plan=PLAN)
    config = tmp_path / "proctor.json"
    config.write_text('{"gate": {"ab": {"treatment": "with-skill", "baseline": "baseline"}}}')
    out = tmp_path / "out"
    ran = proctor(
        "run", "--source", str(tmp_path / "cases"), "--out", str(out), "--config", str(config)
    )
    (run,) = out.glob("run-*")
    assert json.loads((run / "suite.json").read_text())["ab"]["pairFrom"] == "gate", ran.err

    def compared(*options: str) -> dict[str, object]:
        result = proctor("compare", str(run), "--json", *options)
        assert result.code == 0, result.err
        data = json.loads(result.out)
        return {key: data[key] for key in ("treatment", "baseline", "pairFrom")}

    assert compared() == {"treatment": "with-skill", "baseline": "baseline", "pairFrom": "gate"}
    assert compared("--treatment", "a-skill", "--baseline", "with-skill") == {
        "treatment": "a-skill",
        "baseline": "with-skill",
        "pairFrom": "named",
    }
    assert compared("--treatment", "a-skill") == {
        "treatment": "a-skill",
        "baseline": "baseline",
        "pairFrom": "named-and-gate",
    }
    # One of the gate's two named on the other side: the gate's other one opposite it.
    assert compared("--treatment", "baseline") == {
        "treatment": "baseline",
        "baseline": "with-skill",
        "pairFrom": "named-and-gate",
    }
    assert compared("--baseline", "with-skill") == {
        "treatment": "baseline",
        "baseline": "with-skill",
        "pairFrom": "named-and-gate",
    }
    swapped = proctor("compare", str(run), "--treatment", "baseline")
    assert swapped.out.startswith("# A/B: `baseline` (treatment) vs `with-skill` (baseline)")
    assert (
        "- Conditions: the two of the run's A/B gate (`gate.ab`), the other way round: "
        "`--treatment` named its baseline, and its treatment is the baseline."
    ) in swapped.out, swapped.out
    # No gate: the pair chosen by proctor's rule, said so too.
    resolved = run / "resolved.json"
    data = json.loads(resolved.read_text())
    data["gate"]["ab"] = None
    resolved.write_text(json.dumps(data))
    assert compared()["pairFrom"] == "chosen"
    assert compared("--treatment", "with-skill")["pairFrom"] == "named-and-chosen"


def test_report_refuses_a_gate_naming_a_condition_the_run_lacks_as_compare_does(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """A run whose resolved.json's gate names a condition it neither ran nor planned: `report
    RUN` exited 1 saying "no complete pair" (a regression, by its exit code), where `compare
    RUN` exited 2 naming the gate; both now refuse it, exit 2, naming the gate and the
    condition, each with its remedy. Read with another run, the first run's gate is named."""
    import json

    make_case("one", config=AB, plan=PLAN)
    out = tmp_path / "out"
    for _ in range(2):
        assert proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out)).code == 0
    run, run2 = sorted(out.glob("run-*"))
    resolved = run / "resolved.json"
    data = json.loads(resolved.read_text())
    data["gate"]["ab"] = {"treatment": "treatment", "baseline": "control"}
    resolved.write_text(json.dumps(data))
    said = (
        "the run's A/B gate (gate.ab) names the baseline 'control': not one of the run's "
        "conditions (baseline, treatment)"
    )
    reported = proctor("report", str(run))
    assert reported.code == 2 and reported.out == "", reported.out
    assert reported.err == (
        f"proctor: error: {said}, so it could only fail; `proctor report RUN --config FILE` "
        "applies another file's gate\n"
    ), reported.err
    compared = proctor("compare", str(run))
    assert compared.code == 2 and compared.err == (
        f"proctor: error: {said}; --treatment and --baseline choose two of them\n"
    ), compared.err
    pooled = proctor("report", str(run), str(run2))
    assert pooled.code == 2 and pooled.err.startswith(
        "proctor: error: the first run's A/B gate (gate.ab) names the baseline 'control': not "
        "one of the runs' conditions (baseline, treatment), so it could only fail"
    ), pooled.err
    # Another file's gate is the remedy said: it is taken.
    config = tmp_path / "gate.json"
    config.write_text('{"gate": {"ab": {"treatment": "treatment", "baseline": "baseline"}}}')
    assert proctor("report", str(run), "--config", str(config)).code in (0, 1)


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (
            {"treatment": "baseline", "baseline": "baseline"},
            "resolved.json: field 'gate.ab': treatment and baseline are both 'baseline'; name "
            "two different conditions",
        ),
        (None, "resolved.json: not a readable JSON file"),
    ],
    ids=["one-condition-twice", "not-json"],
)
def test_a_gate_report_refuses_is_refused_by_compare_in_its_sentence(
    proctor: Run, make_case: MakeCase, tmp_path: Path, edit: Any, said: str
) -> None:
    """A run whose resolved.json does not read (its gate's two sides one condition, edited by
    hand; not JSON): `compare RUN --json` exited 0 comparing another pair, "pairFrom":
    "chosen", where `report RUN` exits 2 saying why; compare now refuses it in that sentence,
    with its own remedy, and compares the pair both options name. Without a resolved.json,
    the pair is chosen as without a gate."""
    import json

    make_case("one", config=AB, plan=PLAN)
    config = tmp_path / "proctor.json"
    config.write_text('{"gate": {"ab": {"treatment": "treatment", "baseline": "baseline"}}}')
    out = tmp_path / "out"
    proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out), "--config", str(config))
    (run,) = out.glob("run-*")
    resolved = run / "resolved.json"
    data = json.loads(resolved.read_text())
    data["gate"]["ab"] = edit
    resolved.write_text(json.dumps(data) if edit else "{not json")
    reported = proctor("report", str(run))
    assert reported.code == 2 and said in reported.err, reported.err
    compared = proctor("compare", str(run), "--json")
    assert compared.code == 2 and compared.out == "", compared.out
    assert compared.err.startswith(f"proctor: error: {resolved}: "), compared.err
    assert said in compared.err and compared.err.endswith(
        "; it holds the run's gate: restore it, or name the pair with --treatment and --baseline\n"
    ), compared.err
    assert proctor("compare", str(run), "--treatment", "treatment").code == 2
    named = proctor("compare", str(run), "--treatment", "treatment", "--baseline", "baseline")
    assert named.code == 0, named.err
    resolved.unlink()
    chosen = proctor("compare", str(run), "--json")
    assert chosen.code == 0 and json.loads(chosen.out)["pairFrom"] == "chosen", chosen.err


def test_recompute_run_refuses_a_gate_naming_a_condition_the_run_lacks_as_report_does(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """`proctor.recompute_run(RUN)` of a run whose resolved.json's gate names a condition it
    neither ran nor planned returned a failed gate (exit code 1, "no complete pair"), where
    `proctor report RUN` refuses it (exit 2); it now raises the ConfigError of report's
    sentence. Another file's gate, as `config`, is taken."""
    import json

    import proctor as api

    make_case("one", config=AB, plan=PLAN)
    out = tmp_path / "out"
    assert proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out)).code == 0
    (run,) = out.glob("run-*")
    resolved = run / "resolved.json"
    data = json.loads(resolved.read_text())
    data["gate"]["ab"] = {"treatment": "treatment", "baseline": "control"}
    resolved.write_text(json.dumps(data))
    reported = proctor("report", str(run))
    assert reported.code == 2, reported.err
    with pytest.raises(api.ConfigError) as refused:
        api.recompute_run(run)
    assert f"proctor: error: {refused.value}\n" == reported.err
    config = tmp_path / "gate.json"
    config.write_text('{"gate": {"ab": {"treatment": "treatment", "baseline": "baseline"}}}')
    assert api.recompute_run(run, config=config).ab_gate is not None


def test_compare_help_says_where_each_side_comes_from() -> None:
    """`compare --help` told only what happens with neither side named: both named, one
    named, neither, each is said, and the rule without a gate."""
    from click.testing import CliRunner

    from proctor.cli.compare import command

    shown = " ".join(CliRunner().invoke(command, ["--help"]).output.split())
    assert (
        "Both named, that pair is compared; one named, the other is the run's A/B gate's (its "
        "other condition when the one named is the gate's); neither, the gate's two, as "
        "`proctor report` compares them. Without a gate, a side not named is chosen: the pair "
        "most cases ran together, `baseline` or `default` as the baseline."
    ) in shown, shown


@pytest.mark.parametrize(
    ("text", "said"),
    [("{not json", "not a readable JSON file"), ('{"schemaVersion": 99}', "schemaVersion 99")],
    ids=["not-json", "newer-schema"],
)
def test_both_sides_named_over_a_plan_that_does_not_read_say_so_in_a_note(
    proctor: Run, make_case: MakeCase, tmp_path: Path, text: str, said: str
) -> None:
    """Both sides named, the gate is not read, and neither is a run's plan that does not
    read: `compare` listed none of the repeats a stopped run planned and never ran, saying
    nothing, when its resolved.json was not JSON, and refused (exit 2) one of a newer schema.
    Both are now compared on the trials that ran, a note saying the plan was not read and
    what is left out."""
    import json
    import shutil

    config = {"conditions": {"control": {}, "variant": {}}, "repeats": 2}
    make_case("x", config=config, plan=PLAN)
    out = tmp_path / "out"
    assert proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out)).code == 0
    (run,) = out.glob("run-*")
    for side in ("control", "variant"):  # stopped before repeat 2 of either side started
        shutil.rmtree(run / "trials" / "x" / "scripted" / side / "2")
    manifest = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**manifest, "interrupted": True}))
    both = ("--treatment", "variant", "--baseline", "control")
    planned = proctor("compare", str(run), "--json", *both)
    assert planned.code == 0 and len(planned.json()["incomplete"]) == 1, planned.err
    assert "it holds the run's plan" not in planned.err
    resolved = run / "resolved.json"
    resolved.write_text(text)
    compared = proctor("compare", str(run), "--json", *both)
    assert compared.code == 0, compared.err
    assert compared.json()["incomplete"] == []
    notes = [line for line in compared.err.splitlines() if "it holds the run's plan" in line]
    assert len(notes) == 1, compared.err
    assert notes[0].startswith(f"proctor: note: {resolved}: ") and said in notes[0]
    assert notes[0].endswith(
        "; it holds the run's plan: the trials the run planned that have no record (not run, "
        "or their trial.json removed) are left out, not listed as incomplete pairs nor counted "
        "as infra-errors"
    ), notes[0]
    # One side named, the gate is read: refused, as before.
    assert proctor("compare", str(run), "--treatment", "variant").code == 2
