"""`proctor compare BASE_RUN CANDIDATE_RUN` of runs of different suites, or with no group in
both: said on stderr (and the suites in the Markdown), where the comparison came out empty
without a word."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import MakeCase, Run, write_case

PLAN = {"turns": [{"say": "hi"}]}


def test_runs_of_different_suites_and_no_common_group_are_said(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("one", plan=PLAN)
    other = tmp_path / "other"
    other.mkdir()
    write_case(other, "two", plan=PLAN)
    base, candidate = tmp_path / "base", tmp_path / "candidate"
    assert proctor("run", "--source", str(tmp_path / "cases"), "--out", str(base)).code == 0
    assert proctor("run", "--source", str(other), "--out", str(candidate)).code == 0
    (run,) = base.glob("run-*")
    (run2,) = candidate.glob("run-*")
    compared = proctor("compare", str(run), str(run2))
    assert compared.code == 0, compared.err
    assert (
        "proctor: note: the runs are of different suites (run.json's source): "
        f"{run.name}: {tmp_path / 'cases'}; {run2.name}: {other}; their groups are matched by "
        "case, agent and condition"
    ) in compared.err
    assert f"- The runs are of different suites (`run.json`'s `source`): `{run.name}`" in (
        compared.out
    )
    assert (
        "proctor: note: no group (case × agent × condition) is in both runs (1 only in "
        f"{run}, 1 only in {run2}): nothing is compared"
    ) in compared.err
    same = proctor("compare", str(run), str(run))
    assert "different suites" not in same.err and "no group" not in same.err


def test_runs_of_one_suite_from_two_checkouts_are_compared_without_a_suites_note(
    proctor: Run, tmp_path: Path
) -> None:
    """A baseline run from one checkout and a candidate from another: their sources are two
    folders, but their groups are the same, and nothing is said of their suites."""
    for checkout in ("main", "branch"):
        write_case(tmp_path / checkout / "cases", "one", plan=PLAN)
    out = tmp_path / "out"
    for checkout in ("main", "branch"):
        ran = proctor("run", "--source", str(tmp_path / checkout / "cases"), "--out", str(out))
        assert ran.code == 0, ran.err
    run, run2 = sorted(out.glob("run-*"))
    compared = proctor("compare", str(run), str(run2))
    assert compared.code == 0, compared.err
    assert "different suites" not in compared.err + compared.out
    assert "no group" not in compared.err


def test_suites_named_apart_that_share_a_case_name_are_said_paired(
    proctor: Run, tmp_path: Path
) -> None:
    """`suites/api` and `suites/cli` both hold a case `one`: compared as one case, which the
    comparison says, naming both suites."""
    for suite in ("api", "cli"):
        write_case(tmp_path / "suites" / suite, "one", plan=PLAN)
    for suite in ("api", "cli"):  # a results folder each: two runs of one second sort by chance
        out = str(tmp_path / "out" / suite)
        ran = proctor("run", "--source", str(tmp_path / "suites" / suite), "--out", out)
        assert ran.code == 0, ran.err
    (run,) = (tmp_path / "out" / "api").glob("run-*")
    (run2,) = (tmp_path / "out" / "cli").glob("run-*")
    compared = proctor("compare", str(run), str(run2))
    assert compared.code == 0, compared.err
    assert (
        "proctor: note: the runs are of different suites (run.json's source): "
        f"{run.name}: {tmp_path / 'suites/api'}; {run2.name}: {tmp_path / 'suites/cli'}; their "
        "groups are matched by case, agent and condition: a case of one name in both is "
        "compared as one case"
    ) in compared.err
    assert "Cases of one name in both are compared as one case." in compared.out
    assert "no group" not in compared.err


def test_a_run_of_one_case_folder_of_a_suite_is_compared_as_of_that_suite(
    proctor: Run, tmp_path: Path
) -> None:
    """`--source suites/api` and `--source suites/api/one` said the runs were of different
    suites."""
    write_case(tmp_path / "suites" / "api", "one", plan=PLAN)
    base, candidate = tmp_path / "base", tmp_path / "candidate"
    suite = tmp_path / "suites" / "api"
    assert proctor("run", "--source", str(suite), "--out", str(base)).code == 0
    assert proctor("run", "--source", str(suite / "one"), "--out", str(candidate)).code == 0
    (run,) = base.glob("run-*")
    (run2,) = candidate.glob("run-*")
    compared = proctor("compare", str(run), str(run2))
    assert compared.code == 0, compared.err
    assert "different suites" not in compared.err + compared.out


def test_suites_named_apart_matched_across_conditions_are_said_so(
    proctor: Run, tmp_path: Path
) -> None:
    """`suites/api` ran `one` under `baseline` only, `suites/cli` under `treatment` only: one
    group of both, matched by case and agent, which the note says (it said by condition too)."""
    for suite, condition in (("api", "baseline"), ("cli", "treatment")):
        write_case(
            tmp_path / "suites" / suite, "one", plan=PLAN, config={"conditions": {condition: {}}}
        )
        out = str(tmp_path / "out" / suite)
        ran = proctor("run", "--source", str(tmp_path / "suites" / suite), "--out", out)
        assert ran.code == 0, ran.err
    (run,) = (tmp_path / "out" / "api").glob("run-*")
    (run2,) = (tmp_path / "out" / "cli").glob("run-*")
    compared = proctor("compare", str(run), str(run2))
    assert compared.code == 0, compared.err
    assert (
        f"{run2.name}: {tmp_path / 'suites/cli'}; their groups are matched by case and agent, "
        "the conditions differing: baseline vs treatment: a case of one name in both is "
        "compared as one case"
    ) in compared.err
    assert "by case, agent and condition" not in compared.err
