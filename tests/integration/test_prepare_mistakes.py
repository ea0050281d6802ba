"""``proctor prepare`` given a relative case, a case it cannot run, or a setup line that fails:
what it prints works from the workspace, and a mistake is one sentence naming the case."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest

from tests.conftest import MakeCase, Run


def test_the_record_step_names_the_case_by_a_path_that_works_from_the_workspace(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_case("fix", src={"a.txt": "a\n"})
    monkeypatch.chdir(tmp_path)
    prepared = proctor("prepare", "fix", "--source", "cases", "--out", "results")
    assert prepared.code == 0, prepared.err
    session = prepared.json()
    step = session["nextSteps"][-1]
    words = shlex.split(step.split(": ", 1)[1])
    assert words[:2] == ["proctor", "record"]
    assert words[2] == str(tmp_path / "cases" / "fix")  # the person runs it from the workspace
    written = json.loads((Path(session["workingDirectory"]).parent / "session.json").read_text())
    assert written["case"] == str(tmp_path / "cases" / "fix")
    assert written["source"] == str(tmp_path / "cases")


def test_a_failing_setup_line_names_the_case_and_leaves_no_half_prepared_session(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix", config={"setup": ["echo boom >&2; exit 3"]}, src={"a.txt": "a\n"})
    out = tmp_path / "results"
    prepared = proctor("prepare", "fix", "--source", str(tmp_path / "cases"), "--out", str(out))
    assert prepared.code == 2
    assert "case 'fix'" in prepared.err and "exited 3: boom" in prepared.err
    assert "Traceback" not in prepared.err
    assert list((out / "prepared").iterdir()) == []


@pytest.mark.parametrize("by_path", [False, True])
def test_a_case_folder_discovery_skips_is_named_with_its_reason(
    proctor: Run, make_case: MakeCase, tmp_path: Path, by_path: bool
) -> None:
    make_case("other")
    case = make_case("broken")
    (case / "prompt.md").unlink()
    (case / "prompt.md").mkdir()
    named = str(case) if by_path else "broken"
    prepared = proctor(
        "prepare", named, "--source", str(tmp_path / "cases"), "--out", str(tmp_path / "r")
    )
    assert prepared.code == 2
    assert prepared.err.strip() == (
        f"proctor: error: {case}: not a case proctor can run: prompt.md is a folder, "
        "where the case expects a file"
    )


@pytest.mark.parametrize("command", ["prepare", "record"])
def test_an_out_inside_the_case_s_fixture_is_refused_and_nothing_is_written_there(
    proctor: Run, make_case: MakeCase, tmp_path: Path, command: str
) -> None:
    """prepare copied the fixture into a workspace inside the fixture itself, again and again,
    until a name grew too long; record would leave a run folder that every later trial's
    workspace copies."""
    case = make_case("fix", src={"a.txt": "a\n"})
    out = case / "src" / "results"
    extra = (
        ["--workspace", str(tmp_path), "--transcript", os.devnull] if command == "record" else []
    )
    done = proctor(command, str(case), "--out", str(out), *extra)
    assert done.code == 2
    assert f"inside the fixture {case / 'src'} of case 'fix'" in done.err
    assert sorted(p.name for p in (case / "src").iterdir()) == ["a.txt"]


def test_the_next_steps_name_the_command_that_starts_the_agent(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """ "Start claude-code there": no such command; the agent's id is not what a person types."""
    make_case("fix", src={"a.txt": "a\n"})
    for agent, command in (("claude-code", "claude"), ("codex", "codex"), ("gemini-cli", "gemini")):
        out = tmp_path / agent
        prepared = proctor(
            "prepare",
            "fix",
            "--source",
            str(tmp_path / "cases"),
            "--agent",
            agent,
            "--out",
            str(out),
        )
        assert prepared.code == 0, prepared.err
        step = prepared.json()["nextSteps"][1]
        named = f"Start {agent} (`{command}`) there" if agent != command else f"Start {agent} there"
        assert step.startswith(named), step


def test_a_file_named_prepared_in_out_is_one_sentence_and_left_as_it_is(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix", src={"a.txt": "a\n"})
    out = tmp_path / "results"
    out.mkdir()
    (out / "prepared").write_text("my notes\n")
    prepared = proctor("prepare", "fix", "--source", str(tmp_path / "cases"), "--out", str(out))
    assert prepared.code == 2 and "Traceback" not in prepared.err
    assert prepared.err.strip() == (
        f"proctor: error: --out {out}: prepared sessions go in {out / 'prepared'}, which "
        "cannot be made (a file, not a folder)"
    )
    assert (out / "prepared").read_text() == "my notes\n"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["", "--source", "cases"], 'CASE ""'),
        (["fix", "--source", "cases", "--condition", ""], '--condition ""'),
        (["fix", "--source", "cases", "--agent", " "], '--agent " "'),
    ],
)
def test_a_blank_case_condition_or_agent_is_refused(
    proctor: Run,
    make_case: MakeCase,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    said: str,
) -> None:
    """``prepare "$CASE"`` with the variable unset read the current folder as the source of
    cases, and said that no case has the condition 'default'."""
    make_case("fix")
    monkeypatch.chdir(tmp_path)
    prepared = proctor("prepare", *args, "--out", "results")
    assert prepared.code == 2
    assert prepared.err.strip() == f"proctor: error: {said}: expected a value, not a blank one"


@pytest.mark.parametrize(
    ("option", "value"), [("--condition", ""), ("--agent", " "), ("--model", "")]
)
def test_record_refuses_a_blank_condition_agent_or_model(
    proctor: Run,
    make_case: MakeCase,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    option: str,
    value: str,
) -> None:
    """``record --condition "$COND"`` with the variable unset recorded the trial under the
    condition it was prepared with (or default) without a word, as prepare now refuses."""
    make_case("fix")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ws").mkdir()
    args = ["record", "fix", "--source", "cases", "--workspace", "ws", option, value]
    recorded = proctor(*args, "--out", "results")
    assert recorded.code == 2
    assert recorded.err.strip() == (
        f"proctor: error: {option} {json.dumps(value)}: expected a value, not a blank one"
    )
    assert not (tmp_path / "results").exists()


def test_a_case_is_prepared_by_name_beside_a_case_whose_config_is_broken(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix", src={"a.txt": "a\n"})
    make_case("broken", config={"conditions": {"base ": {}}})
    cases, out = str(tmp_path / "cases"), str(tmp_path / "r")
    prepared = proctor("prepare", "fix", "--source", cases, "--out", out)
    assert prepared.code == 0, prepared.err
    assert prepared.json()["workingDirectory"].startswith(out)
    assert prepared.err.strip() == (
        f"proctor: warning: another case under {cases} is not read: "
        f"{tmp_path / 'cases' / 'broken' / 'config.json'}: field 'conditions': 'base ' names a "
        "results folder: use letters, digits, '.', '_' or '-', starting with a letter or digit and "
        "not ending in '.', at most 200 of them"
    )
    own = proctor("prepare", "broken", "--source", cases, "--out", out)
    assert own.code == 2
    assert own.err.startswith(f"proctor: error: looking for case 'broken' under {cases}: ")
    assert "'base ' names a results folder" in own.err


def test_a_session_prepared_inside_the_cases_folder_is_no_case_validate_skips(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`prepare fix` run among the cases made `proctor-results/prepared/…`, which `validate`
    then listed as `skipped  proctor-results: missing required file prompt.md`."""
    make_case("fix", src={"a.txt": "a\n"})
    monkeypatch.chdir(tmp_path / "cases")
    assert proctor("prepare", "fix").code == 0
    checked = proctor("validate", "--source", ".")
    assert checked.code == 0, checked.err
    assert "skipped" not in checked.out.splitlines()[0]
    assert checked.out.splitlines()[-1].startswith("1 runnable, 0 skipped, 0 problems")


def test_a_case_whose_own_name_is_refused_is_said_so_not_another_case_s_problem(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("a-broken", config={"conditions": {"base ": {}}})
    make_case("fix.")
    cases = tmp_path / "cases"
    prepared = proctor("prepare", "fix.", "--source", str(cases), "--out", str(tmp_path / "r"))
    assert prepared.code == 2
    assert prepared.err.strip() == (
        f"proctor: error: looking for case 'fix.' under {cases}: \"{cases}/fix.\": the case "
        "folder's name ends with '.', which Windows drops from a folder's name (as it drops "
        "white space there): rename it"
    )


def test_a_case_is_prepared_beside_a_broken_case_whose_problem_quotes_its_name(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """Another case's `timeoutSec: "fix"` (`… got the string "fix"`) was taken for a problem
    of the case `fix`, and `prepare fix` refused."""
    make_case("fix", src={"a.txt": "a\n"})
    make_case("zz", config={"agents": ["scripted"], "timeoutSec": "fix"})
    cases, out = str(tmp_path / "cases"), str(tmp_path / "r")
    prepared = proctor("prepare", "fix", "--source", cases, "--out", out)
    assert prepared.code == 0, prepared.err
    assert prepared.err.startswith(f"proctor: warning: another case under {cases} is not read: ")
