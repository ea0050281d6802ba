"""``proctor eval --case GLOB`` and ``--dry-run``, as ``proctor run``'s: a GLOB picks cases by
id (an iteration by its own), one that matches nothing is refused with the near ids, and a dry
run prints what would run, checked as the run is, without running or writing anything."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_evals_cli import project, run_json

Run = Any

ONE = """
    from proctor.evals import define_eval
    async def test(t):
        await t.send("hi")
    eval = define_eval(test=test, tags=["{tag}"], plan={{"turns": [{{"say": "hi"}}]}})
"""
THREE = """
    from proctor.evals import define_eval
    async def test(t):
        await t.send("hi")
    eval = define_eval(test=test, iterations=3, timeout_ms=5000, plan={"turns": [{"say": "hi"}]})
"""
FILES = {
    "builds/api.eval.py": ONE.format(tag="builds"),
    "builds/cli.eval.py": ONE.format(tag="cli"),
    "greet.eval.py": ONE.format(tag="greet"),
    "tools/order.eval.py": THREE,
}


def test_case_globs_pick_cases_by_id(proctor: Run, tmp_path: Path) -> None:
    root = project(tmp_path, FILES)
    result, out = run_json(proctor, root, tmp_path, "--case", "builds/*", "--case", "tools/*/2")
    assert result.code == 0, result.err
    assert sorted(r["id"] for r in out["results"]) == ["builds/api", "builds/cli", "tools/order/2"]
    # With ids and tags, a case matches each (ids and tags as without --case).
    result, out = run_json(proctor, root, tmp_path, "builds", "greet", "--case", "*i")
    assert result.code == 0, result.err
    assert sorted(r["id"] for r in out["results"]) == ["builds/api", "builds/cli"]
    result, out = run_json(proctor, root, tmp_path, "--case", "builds/*", "--tag", "cli")
    assert [r["id"] for r in out["results"]] == ["builds/cli"]
    # A case id picks every iteration of it.
    listed = proctor("eval", "--dir", str(root), "--list", "--case", "tools/order")
    assert listed.code == 0, listed.err
    assert [line.split()[0] for line in listed.out.splitlines()] == [
        "tools/order/1",
        "tools/order/2",
        "tools/order/3",
    ]


def test_a_case_glob_that_matches_nothing_is_refused_as_run_refuses_it(
    proctor: Run, tmp_path: Path
) -> None:
    root = project(tmp_path, FILES)
    cases = "cases: builds/api, builds/cli, greet, tools/order"
    for listed in (("--list",), ("--dry-run",), ()):  # listed, planned or run, the same
        result = proctor("eval", "--dir", str(root), *listed, "--case", "builds/apj")
        assert result.code == 2, result.err
        assert result.err.strip() == (
            f"proctor: error: --case builds/apj: no case matches (did you mean 'builds/api'? "
            f"{cases})"
        )
        # Even beside a GLOB that matches: it would otherwise run less than asked, and pass.
        result = proctor("eval", "--dir", str(root), *listed, "--case", "nope", "--case", "g*")
        assert result.code == 2, result.err
        assert result.err.strip() == f"proctor: error: --case nope: no case matches ({cases})"
    # Ids and a GLOB that each name cases, but none of the same.
    result = proctor("eval", "--dir", str(root), "builds", "--case", "greet")
    assert result.code == 2
    assert result.err.strip() == (
        "proctor: error: --case greet: no case below the ids given matches (their cases: "
        "builds/api, builds/cli)"
    )
    # A tag no case --case picks has names the tags in use among them.
    result = proctor("eval", "--dir", str(root), "--case", "builds/*", "--tag", "greet")
    assert result.code == 2
    assert "no eval that --case picks has the tag 'greet'; the tags in use there: builds, cli" in (
        result.err
    )


def test_a_dry_run_prints_what_would_run_and_runs_nothing(proctor: Run, tmp_path: Path) -> None:
    root = project(tmp_path, FILES)
    out = tmp_path / "out"
    args = ("eval", "--dir", str(root), "--out", str(out), "--dry-run")
    result = proctor(*args, "--case", "builds/a*", "--case", "tools/*")
    assert result.code == 0, result.err
    assert result.out.splitlines() == [
        "4 trials in 2 cases; nothing was run.",
        "",
        "case                           agent          model        repeats  timeout",
        "builds/api                     scripted       -                  1     180s",
        "tools/order                    scripted       -                  3       5s",
        "",
        f"concurrency 2; reporters markdown; results in {out}",
    ]
    assert not out.exists()  # no results, nor generated cases
    # Iterations picked alone are named by their ids; --json prints the plan as text, as
    # proctor run --dry-run --json does, and says so.
    result = proctor(*args, "--json", "--agent", "claude-code", "--model", "opus", "tools/order/3")
    assert result.code == 0, result.err
    assert "proctor: note: --dry-run prints the plan as text; --json applies to a run" in (
        result.err
    )
    assert "tools/order/3                  claude-code    opus               1       5s" in (
        result.out
    )
    assert not out.exists()


def test_a_dry_run_is_refused_what_the_run_is_refused(proctor: Run, tmp_path: Path) -> None:
    root = project(tmp_path, FILES, config=None)  # no max_concurrency
    result = proctor("eval", "--dir", str(root), "--dry-run")
    assert result.code == 2
    assert "define_eval_config(max_concurrency=…) is required to run evals" in result.err
    root = project(tmp_path, FILES)
    result = proctor("eval", "--dir", str(root), "--dry-run", "--agent", "claude-cod")
    assert result.code == 2 and "--agent claude-cod: unknown agent 'claude-cod'" in result.err, (
        result.err
    )
    result = proctor("eval", "--dir", str(root), "--dry-run", "--list")
    assert result.code == 2
    assert "--list prints the ids and --dry-run what a run would run" in result.err


@pytest.mark.parametrize("where", ["file", "proc"])
def test_a_dry_run_is_refused_a_results_folder_the_run_cannot_make(
    proctor: Run, tmp_path: Path, where: str
) -> None:
    """proctor.json's ``out`` (or ``--out``) that cannot be made: the run and its dry run are
    refused alike (exit 2), as ``proctor run`` and its dry run are; nothing is written."""
    if where == "file":
        (tmp_path / "blocker").write_text("")
        bad = tmp_path / "blocker" / "x"
    elif Path("/proc/self").is_dir():
        bad = Path("/proc/x")  # a folder no one can make there, root included
    else:
        pytest.skip("no /proc here")
    root = project(tmp_path, FILES)
    (root / "proctor.json").write_text(json.dumps({"out": str(bad)}))
    said = f"{root / 'proctor.json'}: field 'out': {bad} cannot be made: "
    for dry in (["--dry-run"], []):
        result = proctor("eval", "--dir", str(root), "--no-stream", *dry)
        assert result.code == 2 and said in result.err, result.err
    # Given as --out, a path inside a file is refused by the option itself, before anything.
    given = (
        f"--out {bad}: {bad.parent} is a file, not a folder; the results folder cannot be made"
        if where == "file"
        else f"--out {bad} cannot be made: "
    )
    result = proctor("eval", "--dir", str(root), "--dry-run", "--out", str(bad))
    assert result.code == 2 and given in result.err, result.err
    # proctor run's dry run, likewise.
    case = tmp_path / "cases" / "c"
    case.mkdir(parents=True)
    (case / "prompt.md").write_text("Say hello.\n")
    (case / "config.json").write_text("{}")
    result = proctor("run", "--source", str(case.parent), "--out", str(bad), "--dry-run")
    said = given if where == "file" else f"the results directory {bad} cannot be made"
    assert result.code == 2 and said in result.err, result.err
    assert (tmp_path / "blocker").is_file() if where == "file" else not bad.exists()


def test_help_lists_case_and_dry_run(proctor: Run) -> None:
    result = proctor("eval", "--help")
    assert "--case GLOB" in result.out and "--dry-run" in result.out
    # A case's id is what eval's --case matches; run's and validate's, a case folder's name.
    said = " ".join(result.out.split())
    assert "--case GLOB Only cases whose id (builds/api, tools/order/2 for an iteration)" in said
    assert "whose name" not in said, said
    for command in ("run", "validate"):
        said = " ".join(proctor(command, "--help").out.split())
        assert "--case GLOB Only cases whose folder name matches GLOB" in said, said


def test_a_long_id_widens_its_column_rather_than_pushing_its_row_out_of_line(
    proctor: Run, tmp_path: Path
) -> None:
    """An id past 30 characters (examples/evals has failing/wrong-file/edits-the-test) pushed
    its row's agent, model, repeats and timeout out from under their heads; run's dry run did
    the same with a long case name."""
    root = project(tmp_path, FILES)
    long = root / "evals" / "a-rather-long-group-of-checks" / "of-the-build-and-its-api.eval.py"
    long.parent.mkdir(parents=True)
    long.write_text((root / "evals" / "builds" / "api.eval.py").read_text())
    result = proctor("eval", "--dir", str(root), "--dry-run", "--case", "a-rather*", "--case", "b*")
    assert result.code == 0, result.err
    head, *rows = result.out.splitlines()[2:5]
    for row in rows:
        assert row.index("scripted") == head.index("agent"), result.out
        assert row.rindex("s") == len(head) - 1, result.out  # the timeouts under their head
    case = tmp_path / "cases" / ("c" * 40)
    case.mkdir(parents=True)
    (case / "prompt.md").write_text("Say hello.\n")
    (case / "config.json").write_text("{}")
    result = proctor("run", "--source", str(case.parent), "--dry-run")
    head, row = result.out.splitlines()[2:4]
    assert row.index("scripted") == head.index("agent") > 40, result.out


def test_a_concurrency_above_the_config_s_is_lowered_and_said(proctor: Run, tmp_path: Path) -> None:
    """``--concurrency`` can lower evals.config.py's max_concurrency, never raise it: a larger
    one was lowered in silence, so the run went slower than the user asked without a word."""
    root = project(tmp_path, FILES)
    args = ("eval", "--dir", str(root), "--out", str(tmp_path / "out"), "--dry-run")
    result = proctor(*args, "--concurrency", "5")
    assert result.code == 0, result.err
    config = root / "evals" / "evals.config.py"
    assert result.err.strip() == (
        f"proctor: warning: --concurrency 5 is above {config}'s max_concurrency 2, so at most 2 "
        "cases run at once"
    )
    assert "concurrency 2; reporters" in result.out
    lowered = proctor(*args, "--concurrency", "1")
    assert lowered.err == "" and "concurrency 1; reporters" in lowered.out
