"""``proctor validate`` and ``proctor prepare`` on case names: names alike refused among the
other problems, a name's unseen characters listed as escapes, a mistyped name's nearest one."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import MakeCase, Run


def test_validate_lists_names_alike_among_the_other_problems(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """Two cases of one name were the one problem validate said, the others unsaid."""
    make_case("fix")
    make_case("FIX")
    make_case("fix ")
    make_case("broken", config="{")
    make_case("other")
    cases = tmp_path / "cases"
    (cases / "tasks.json").write_text('[{"id": "other", "prompt": "Do it."}]')
    checked = proctor("validate", "--source", str(cases))
    assert checked.code == 2
    errors = [line for line in checked.err.splitlines() if line.startswith("proctor: error: ")]
    assert len(errors) == 5, checked.err
    assert errors[0].startswith(f"proctor: error: {cases / 'broken' / 'config.json'}: malformed")
    assert errors[1] == (
        f'proctor: error: --source {cases}: two cases are named alike, "FIX" and "fix" (the '
        "same name but for capitals: one folder on a macOS or Windows disk, where their "
        "trials' folders would be one): rename one"
    )
    assert errors[2].startswith(f'proctor: error: "{cases}/fix ": the case folder\'s name ends')
    assert errors[3] == (
        f"proctor: error: --source {cases}: two cases are named 'other' ({cases / 'other'} "
        f"and {cases / 'tasks.json'}: tasks[0]): rename one"
    )
    assert errors[4] == "proctor: error: 4 configuration problems, each named above"
    assert checked.out.splitlines()[0].startswith("ok       FIX: ")
    assert "ok       other: " in checked.out


def test_validate_lists_a_case_name_holding_an_unseen_character_as_its_escape(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fi\u200bx")
    skipped = tmp_path / "cases" / "notes\u00a0"
    skipped.mkdir()
    (skipped / "prompt.md").write_text("x")
    checked = proctor("validate", "--source", str(tmp_path / "cases"))
    assert checked.code == 0, checked.err
    lines = checked.out.splitlines()
    assert lines[0].startswith('ok       "fi\\u200bx": agents ')
    assert lines[1] == 'skipped  "notes\\u00a0": missing required file config.json'


def test_prepare_names_the_nearest_case_to_a_mistyped_one(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix-a-bug")
    make_case("other")
    prepared = proctor(
        "prepare", "fix-a-bugg", "--source", str(tmp_path / "cases"), "--out", str(tmp_path)
    )
    assert prepared.code == 2
    assert prepared.err.strip() == (
        f"proctor: error: fix-a-bugg: no such case under {tmp_path / 'cases'} (did you mean "
        "'fix-a-bug'? cases: fix-a-bug, other)"
    )


def test_validate_counts_one_trial_as_one(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix", config={"repeats": 1})
    checked = proctor("validate", "--source", str(tmp_path / "cases"))
    assert checked.code == 0, checked.err
    assert checked.out.splitlines()[-1] == "1 runnable, 0 skipped, 0 problems, 1 trial"


def test_validate_json_names_the_folder_of_a_name_shown_as_json(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """A problem that starts with a name written as JSON writes it (``"cases/fix ": …``) had
    no ``file`` in ``--json``, where a plain path's problem has one."""
    import json

    make_case("fix ")
    checked = proctor("validate", "--source", str(tmp_path / "cases"), "--json")
    assert checked.code == 2
    problem = json.loads(checked.out)["problems"][0]  # (then: nothing else to run)
    assert problem["file"] == str(tmp_path / "cases" / "fix "), problem


def test_names_ending_in_a_dot_are_refused_by_validate_and_run_alike(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """``fix.`` (a case folder, a condition, an agent profile) was accepted: Windows drops the
    dot from a folder's name, so a share or a results folder there would name it otherwise."""
    make_case("fix.")
    make_case("ab", config={"conditions": {"base": {}, "skill.": {}}})
    make_case("fine")
    cases = tmp_path / "cases"
    (tmp_path / "proctor.json").write_text('{"codingagents": {"mine.": {"agent": "scripted"}}}')
    config = ["--config", str(tmp_path / "proctor.json")]
    checked = proctor("validate", "--source", str(cases), *config)
    assert checked.code == 2
    errors = [line for line in checked.err.splitlines() if line.startswith("proctor: error: ")]
    rule = "use letters, digits, '.', '_' or '-', starting with a letter or digit and not ending"
    assert errors[0].startswith(f"proctor: error: {tmp_path / 'proctor.json'}: field ")
    assert f"'mine.' names a results folder: {rule} in '.', at most 200 of them" in errors[0]
    assert errors[1] == (
        f"proctor: error: {cases / 'ab' / 'config.json'}: field 'conditions': 'skill.' names a "
        f"results folder: {rule} in '.', at most 200 of them"
    )
    assert errors[2] == (
        f"proctor: error: \"{cases}/fix.\": the case folder's name ends with '.', which Windows "
        "drops from a folder's name (as it drops white space there): rename it"
    )
    (cases / "ab" / "config.json").write_text("{}")
    ran = proctor("run", "--source", str(cases), "--out", str(tmp_path / "o"))
    assert ran.code == 2
    assert ran.err.startswith(f'proctor: error: "{cases}/fix.": the case folder\'s name ends')
    # A case --case leaves out is not run: its name is a warning, and the case chosen runs.
    ran = proctor("run", "--source", str(cases), "--case", "fine", "--out", str(tmp_path / "o"))
    assert ran.code == 0, ran.err
    assert ran.err.startswith(
        f"proctor: warning: case 'fix.', which --case does not choose, is not read: "
        f'"{cases}/fix.": the case folder\'s name ends'
    )


def test_validate_case_naming_a_broken_case_says_its_problem_not_that_no_case_matches(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """``--case broken`` said the case's problem and then ``--case broken: no case matches
    (did you mean …)``, as if the name were a typo."""
    make_case("broken", config={"conditions": {"base ": {}}})
    make_case("fine")
    cases = tmp_path / "cases"
    checked = proctor("validate", "--source", str(cases), "--case", "broken")
    assert checked.code == 2
    errors = [line for line in checked.err.splitlines() if line.startswith("proctor: error: ")]
    assert len(errors) == 1, checked.err
    assert errors[0].startswith(f"proctor: error: {cases / 'broken' / 'config.json'}: field ")
    typo = proctor("validate", "--source", str(cases), "--case", "brokn")
    assert "--case brokn: no case matches (cases: fine)" in typo.err


def test_validate_case_naming_a_case_refused_for_its_name_says_its_problem_alone(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """``--case fix.`` said the name's problem and then ``--case fix.: no case matches``."""
    make_case("fix.")
    make_case("fine")
    cases = tmp_path / "cases"
    checked = proctor("validate", "--source", str(cases), "--case", "fix.")
    assert checked.code == 2
    errors = [line for line in checked.err.splitlines() if line.startswith("proctor: error: ")]
    assert errors[0].startswith(f'proctor: error: "{cases}/fix.": the case folder\'s name ends')
    assert "no case matches" not in checked.err


def test_validate_says_what_a_refused_option_leaves_of_the_suite(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """`--agent typo` said `0 runnable` as of an empty suite, and named the option without its
    value; a refused `--only-evaluator` listed every case with `0 evaluators`."""
    evaluated = {"evaluators": [{"use": "file-exists", "must": ["a.txt"]}]}
    make_case("one", config=evaluated)
    make_case("two", config=evaluated)
    source = str(tmp_path / "cases")
    typo = proctor("validate", "--source", source, "--agent", "nope")
    assert typo.code == 2
    assert (
        typo.out.splitlines()[-1] == "0 runnable of 2 cases found, 0 skipped, 1 problem, 0 trials"
    )
    assert "proctor: error: --agent nope: unknown agent 'nope' (" in typo.err
    picked = proctor("validate", "--source", source, "--case", "one")
    assert (
        picked.out.splitlines()[-1]
        == "1 runnable of 2 cases found (1 not chosen), 0 skipped, 0 problems, 1 trial"
    )
    every = proctor("validate", "--source", source)
    assert every.out.splitlines()[-1] == "2 runnable, 0 skipped, 0 problems, 2 trials"
    only = proctor("validate", "--source", source, "--only-evaluator", "nope")
    assert only.code == 2 and "--only-evaluator nope: no case has an evaluator" in only.err
    assert "0 evaluators" not in only.out
    assert "ok       one: agents scripted; repeats 1; 1 evaluator" in only.out


def test_validate_counts_the_cases_the_options_left_out_apart_from_broken_ones(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """`--case one` on a suite of valid cases said `1 runnable of 3 cases found`, as if the
    two others were broken: those the options did not choose are said to be so, and a
    chosen case with a problem is not among them."""
    make_case("one", config={"conditions": {"a": {}, "b": {}}})
    make_case("two")
    make_case("bad", config={"agents": ["nope"]})
    source = str(tmp_path / "cases")
    picked = proctor("validate", "--source", source, "--case", "one")
    assert picked.code == 0
    assert (
        picked.out.splitlines()[-1]
        == "1 runnable of 3 cases found (2 not chosen), 0 skipped, 0 problems, 2 trials"
    )
    # A case without the condition asked for is not chosen either.
    conditioned = proctor(
        "validate", "--source", source, "--case", "one", "--case", "two", "--condition", "a"
    )
    assert conditioned.out.splitlines()[-1] == (
        "1 runnable of 3 cases found (2 not chosen), 0 skipped, 0 problems, 1 trial"
    )
    broken = proctor("validate", "--source", source, "--case", "one", "--case", "bad")
    assert broken.code == 2
    assert broken.out.splitlines()[-1] == (
        "1 runnable of 3 cases found (1 not chosen), 0 skipped, 1 problem, 2 trials"
    )
    shown = proctor("validate", "--source", source, "--case", "one", "--json")
    found = json.loads(shown.out)
    assert (found["found"], found["chosen"], len(found["cases"])) == (3, 1, 1)


def test_validate_counts_a_case_whose_config_is_refused_among_those_found(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """A case whose config.json is refused was left out of the count: `2 runnable, 0 skipped,
    1 problem` read as if every case found ran."""
    make_case("one")
    make_case("two")
    make_case("bad", config={"repeats": 0})
    source = str(tmp_path / "cases")
    every = proctor("validate", "--source", source)
    assert every.code == 2
    assert every.out.splitlines()[-1] == (
        "2 runnable of 3 cases found, 0 skipped, 1 problem, 2 trials"
    )
    picked = proctor("validate", "--source", source, "--case", "one")
    assert picked.out.splitlines()[-1] == (
        "1 runnable of 3 cases found (2 not chosen), 0 skipped, 0 problems, 1 trial"
    )
    # As run says it: a case --case leaves out is not read, and its problem is a warning.
    assert picked.code == 0
    assert picked.err.startswith("proctor: warning: case 'bad', which --case does not choose")


def test_validate_counts_a_broken_case_carrying_the_tag_among_those_chosen(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """A case whose config.json is refused but whose tags meet --tag is chosen (its problem
    stops the run): it was counted among the cases not chosen."""
    make_case("one", config={"tags": ["smoke"]})
    make_case("two")
    make_case("bad", config={"tags": ["smoke"], "repeats": 0})
    make_case("other", config={"tags": ["slow"], "repeats": 0})
    result = proctor("validate", "--source", str(tmp_path / "cases"), "--tag", "smoke")
    assert result.code == 2
    assert result.out.splitlines()[-1] == (
        "1 runnable of 4 cases found (2 not chosen), 0 skipped, 1 problem, 1 trial"
    ), result.out
    assert "case 'other', which --tag does not choose, is not read" in result.err
