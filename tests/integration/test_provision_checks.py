"""Configuration checked before any trial runs: a bad add-on entry, condition or profile name,
out folder, evaluator file, optional case file, model key or permission mode is a config error
(exit 2), and nothing is provisioned, let alone deleted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from proctor.plan import checks
from tests.conftest import MakeCase, Run, load_trial, run_cases, single_run_dir, write_case


def _skill_case(root: Path, name: str) -> Path:
    case = write_case(root, "c", config={"provision": {"skills": [{"name": name, "path": "s"}]}})
    (case / "s").mkdir()
    (case / "s" / "SKILL.md").write_text("---\nname: s\n---\n")
    return case


@pytest.mark.parametrize("name", ["VICTIM", "../..", "..", "a/b"])
def test_a_skill_name_that_is_not_one_folder_is_refused_and_nothing_is_deleted(
    proctor: Any, tmp_path: Path, name: str
) -> None:
    victim = tmp_path / "victim"
    (victim / "keep").mkdir(parents=True)
    _skill_case(tmp_path / "cases", str(victim) if name == "VICTIM" else name)
    cases = str(tmp_path / "cases")
    for args in (("validate",), ("run", "--out", str(tmp_path / "out"))):
        result = proctor(*args, "--source", cases)
        assert result.code == 2, result.err
        assert "field 'provision.skills[0].name'" in result.err
        assert len(result.err.strip().splitlines()) == 1
    assert (victim / "keep").is_dir()


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ({"command": "python", "args": "server.py"}, "'args' of 'srv' must be a list of strings"),
        ({"command": "python", "env": ["A=1"]}, "'env' of 'srv' must be an object of strings"),
        ({"command": "python", "env": {"PORT": 8080}}, "'env' of 'srv' must be an object"),
        ({"command": ""}, "'command' of 'srv' must be a non-empty string"),
        ({"url": "http://x", "headers": ["A: b"]}, "'headers' of 'srv' must be an object"),
        ({"command": "python", "headers": {"A": "b"}}, "'headers' of 'srv' applies to a 'url'"),
    ],
)
def test_bad_mcp_fields_are_config_errors(
    proctor: Any, tmp_path: Path, entry: dict[str, Any], says: str
) -> None:
    write_case(tmp_path, "c", config={"provision": {"mcps": [{"name": "srv", **entry}]}})
    result = proctor("validate", "--source", str(tmp_path))
    assert result.code == 2 and "field 'provision.mcps[0]'" in result.err and says in result.err


def test_a_hook_without_a_command_is_a_config_error(proctor: Any, tmp_path: Path) -> None:
    write_case(tmp_path, "c", config={"provision": {"hooks": [{"name": "h", "event": "Stop"}]}})
    result = proctor("validate", "--source", str(tmp_path))
    assert result.code == 2
    assert "field 'provision.hooks[0]': 'command' of 'h' is required" in result.err


def test_a_skill_without_a_path_is_a_config_error(proctor: Any, tmp_path: Path) -> None:
    write_case(tmp_path, "c", config={"provision": {"skills": [{"name": "s"}]}})
    result = proctor("validate", "--source", str(tmp_path))
    assert result.code == 2 and "'path' of 's' is required" in result.err


def test_good_entries_validate(proctor: Any, tmp_path: Path) -> None:
    provision = {
        "mcps": [
            {"name": "local", "command": "python", "args": ["s.py"], "env": {"A": "1"}},
            {"name": "remote", "url": "https://x/mcp", "headers": {"Authorization": "Bearer t"}},
        ],
        "hooks": [{"name": "h", "command": "true", "event": "Stop"}],
    }
    write_case(tmp_path, "c", config={"agents": ["scripted"], "provision": provision})
    result = proctor("validate", "--source", str(tmp_path))
    assert result.code == 0, result.err


def test_condition_and_profile_names_must_be_folder_names(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("x", config={"conditions": {"with/skill": {}}}, plan={"turns": [{"say": "hi"}]})
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 2 and not out.exists()
    assert "field 'conditions': 'with/skill' names a results folder" in (result.out + result.err)


def test_an_out_folder_that_cannot_be_made_is_one_sentence(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("x", plan={"turns": [{"say": "hi"}]})
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = proctor("run", "--source", str(tmp_path / "cases"), "--out", str(blocker / "sub"))
    assert result.code == 2
    assert result.err == (
        f"proctor: error: --out {blocker / 'sub'}: {blocker} is a file, not a folder; the "
        "results folder cannot be made inside it\n"
    )
    assert len(result.err.strip().splitlines()) == 1


def test_files_an_evaluator_needs_are_checked_before_any_trial(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    config = tmp_path / "cases" / "x" / "config.json"
    cases = [
        (
            {"use": "llm-judge", "rubric": "missing.md"},
            "field 'evaluators[0].rubric': the rubric missing.md is not in the case",
        ),
        (
            {"use": "llm-judge"},  # the default rubric, evaluation.md, not written
            "field 'evaluators[0]': the rubric evaluation.md (the default, as 'rubric' is not "
            "given) is not in the case folder",
        ),
        (
            {"use": "external", "command": "./nope.py"},
            "field 'evaluators[0].command': program './nope.py' is neither on PATH",
        ),
        (
            {"use": "external", "command": "python3", "args": ["-u", "score.py", "--x"]},
            "field 'evaluators[0].args[1]': script 'score.py' (run by 'python3', in the case "
            "folder) is not in the case folder",
        ),
        (
            {"use": "hook-transcript-check", "pluginManifest": "p/hooks.json"},
            "field 'evaluators[0].pluginManifest': p/hooks.json is not a file or folder",
        ),
    ]
    for entry, message in cases:
        make_case("x", config={"evaluators": [entry]}, plan={"turns": [{"say": "hi"}]})
        result = proctor("validate", "--source", str(tmp_path / "cases"))
        assert result.code == 2 and f"{config}: {message}" in result.err, (entry, result.err)
    # The controls: a script that is there, code given inline, a module: no problem.
    (tmp_path / "cases" / "x" / "score.py").write_text("print(1)\n")
    for command, args in (
        ("python3", ["score.py"]),
        ("python3", ["-c", "print(1)"]),
        ("python3", ["-m", "json.tool"]),
        ("bash", ["-lc", "python3 gone.py"]),  # a shell's command line, not a script file
        ("sh", ["-ec", "cd tests && ./run.sh"]),
        ("node", ["--test"]),
        ("python3", ["-u", "sub dir/x.py"]),  # a name with a space: not told apart, let be
    ):
        entry = {"use": "external", "command": command, "args": args}
        make_case("x", config={"evaluators": [entry]}, plan={"turns": [{"say": "hi"}]})
        result = proctor("validate", "--source", str(tmp_path / "cases"))
        assert result.code == 0, (command, args, result.err)
    # A program of the case folder that cannot be run: a forgotten chmod +x, a folder.
    make_case("x", config={"evaluators": [{"use": "external", "command": "./score.sh"}]},
              plan={"turns": [{"say": "hi"}]})  # fmt: skip
    script = tmp_path / "cases" / "x" / "score.sh"
    script.write_text("#!/bin/sh\necho '{}'\n")
    script.chmod(0o644)
    result = proctor("validate", "--source", str(tmp_path / "cases"))
    assert (
        result.code == 2
        and "field 'evaluators[0].command': program './score.sh' in the case folder" in result.err
    )
    assert "is not executable" in result.err and "chmod +x ./score.sh" in result.err
    script.chmod(0o755)  # the control
    assert proctor("validate", "--source", str(tmp_path / "cases")).code == 0
    script.unlink()
    script.mkdir()
    folder = proctor("validate", "--source", str(tmp_path / "cases"))
    assert folder.code == 2 and "is a folder" in folder.err


def test_an_external_program_that_fails_says_why_in_the_reason(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """The program's last line of error output is in the trial's reason, not only its log."""
    check = {"use": "external", "command": "sh", "args": ["-c", "echo 'no such table' >&2; exit 3"]}
    make_case("x", config={"evaluators": [check]}, plan={"turns": [{"say": "hi"}]})
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 3, result.err  # an eval-error
    trial = load_trial(single_run_dir(out), "x")
    assert "'sh' exited 3: no such table" in trial["reason"], trial["reason"]


def test_an_unreadable_optional_file_stops_the_run(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    folder = make_case("x", plan={"turns": [{"say": "hi"}]})
    (folder / "qna.md").write_bytes(b"```rules\n\xff => no\n```\n")
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 2 and "qna.md is not UTF-8 text" in result.err
    assert not out.exists()


def test_every_model_a_run_may_call_needs_its_key_before_any_trial(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: Any
) -> None:
    for name in (
        "OPENAI_API_KEY",
        "PROCTOR_OPENAI_KEY",
        "ANTHROPIC_API_KEY",
        "PROCTOR_ANTHROPIC_KEY",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no .env here
    folder = make_case(
        "judged",
        plan={"turns": [{"say": "hi"}]},
        config={
            "models": {"judge": "scripted/judge"},
            "evaluators": [
                {"use": "llm-judge"},
                {"use": "llm-judge", "model": "openai/gpt-x"},
            ],
        },
    )
    (folder / "evaluation.md").write_text("Score it.\n")
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 2 and not out.exists()
    assert "the judge (evaluators[1]) role (openai/gpt-x) needs a key" in result.err
    (folder / "config.json").write_text(json.dumps({"models": {"workhorse": "anthropic/claude-x"}}))
    result, _ = run_cases(proctor, tmp_path)
    assert result.code == 2 and "role (anthropic/claude-x) needs a key" in result.err


def test_a_permission_mode_the_cli_does_not_have_is_a_config_error(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Whether the CLI is installed and can authenticate is checked too, and is another test's.
    monkeypatch.setattr(checks, "preflight_problems", lambda trials: [])
    make_case("a", config={"agents": ["gemini-cli"]}, plan={"turns": [{"say": "hi"}]})
    config = tmp_path / "proctor.json"
    for agent in ("gemini-cli", "codex", "claude-code"):
        config.write_text(json.dumps({"codingagents": {agent: {"permissionMode": "sometimes"}}}))
        (tmp_path / "cases/a/config.json").write_text(json.dumps({"agents": [agent]}))
        result = proctor("validate", "--source", str(tmp_path / "cases"), "--config", str(config))
        assert result.code == 2, (agent, result.err)
        assert f"codingagents.{agent}: agent '{agent}': permissionMode 'sometimes'" in result.err
    # Claude Code's own values pass (the control), every one its 2.1.197 takes.
    for mode in ("acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "plan"):
        config.write_text(json.dumps({"codingagents": {"claude-code": {"permissionMode": mode}}}))
        result = proctor("validate", "--source", str(tmp_path / "cases"), "--config", str(config))
        assert result.code == 0, (mode, result.err)


def test_a_profile_naming_no_adapter_is_blamed_not_the_case(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("a", plan={"turns": [{"say": "hi"}]})
    config = tmp_path / "proctor.json"
    for top in (
        {"codingagents": {"mine": {"agent": "nope"}}, "agents": ["mine"]},
        {"codingagents": {"mine": {"agent": "nope"}}},  # not used by any case: still wrong
    ):
        config.write_text(json.dumps(top))
        for command in ("validate", "run"):
            result = proctor(command, "--source", str(tmp_path / "cases"), "--config", str(config))
            assert result.code == 2, result.err
            assert f"{config}: field 'codingagents.mine.agent': unknown agent 'nope'" in result.err
            assert "cases/a/config.json" not in result.err
    # A new id with no agent at all: the field is required, not a KeyError.
    config.write_text(json.dumps({"codingagents": {"mine": {}}, "agents": ["mine"]}))
    for argv in (("validate",), ("run", "--dry-run"), ("run", "--agent", "mine", "--dry-run")):
        result = proctor(*argv, "--source", str(tmp_path / "cases"), "--config", str(config))
        assert result.code == 2 and "Traceback" not in result.err, result.err
        assert f"{config}: field 'codingagents.mine.agent' is required" in result.err
    # A built-in agent's own settings need none.
    config.write_text(json.dumps({"codingagents": {"scripted": {"mode": "headless"}}}))
    fine = proctor("validate", "--source", str(tmp_path / "cases"), "--config", str(config))
    assert fine.code == 0, fine.err
    config.write_text(json.dumps({"codingagents": {"mine": {"agent": "scripted"}}}))
    fine = proctor("validate", "--source", str(tmp_path / "cases"), "--config", str(config))
    assert fine.code == 0, fine.err  # control


def test_a_condition_name_too_long_for_a_folder_is_refused_before_anything_runs(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    long = "a" * 201
    make_case("x", config={"conditions": {long: {}, "b": {}}}, plan={"turns": [{"say": "hi"}]})
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 2 and not out.exists() and "Traceback" not in result.err
    assert "at most 200 of them" in result.err
    fits = "a" * 200
    make_case("y", config={"conditions": {fits: {}, "b": {}}}, plan={"turns": [{"say": "hi"}]})
    assert proctor("validate", "--source", str(tmp_path / "cases" / "y")).code == 0


def test_a_million_repeats_or_json_nested_too_deeply_is_one_sentence(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("many", config={"repeats": 1_000_000}, plan={"turns": [{"say": "hi"}]})
    many = proctor("validate", "--source", str(tmp_path / "cases" / "many"))
    assert many.code == 2 and "repeats" in many.err and "10000" in many.err.replace(",", "")
    make_case("deep", config={}, plan={"turns": [{"say": "hi"}]})
    (tmp_path / "cases" / "deep" / "config.json").write_text("[" * 100_000 + "]" * 100_000)
    deep = proctor("validate", "--source", str(tmp_path / "cases" / "deep"))
    assert deep.code == 2 and "nested too deeply" in deep.err and "Traceback" not in deep.err


def test_a_missing_key_names_the_file_or_flag_that_chose_the_model(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: Any
) -> None:
    for name in (
        "ANTHROPIC_API_KEY",
        "PROCTOR_ANTHROPIC_KEY",
        "OPENAI_API_KEY",
        "PROCTOR_OPENAI_KEY",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no .env here
    folder = make_case("judged", plan={"turns": [{"say": "hi"}]})
    top = tmp_path / "proctor.json"
    top.write_text(json.dumps({"models": {"judge": "anthropic/claude-x"}}))
    says = "the judge role (anthropic/claude-x) needs a key: set PROCTOR_ANTHROPIC_KEY"
    result, out = run_cases(proctor, tmp_path, "--config", str(top))
    assert result.code == 2 and not out.exists()
    assert f"{top}: field 'models.judge': {says}" in result.err
    (folder / "config.json").write_text(json.dumps({"models": {"judge": "anthropic/claude-x"}}))
    result, _ = run_cases(proctor, tmp_path)
    assert (
        result.code == 2 and f"{folder / 'config.json'}: field 'models.judge': {says}" in result.err
    )
    result, _ = run_cases(proctor, tmp_path, "--judge-model", "anthropic/claude-x")
    assert result.code == 2 and f"--judge-model: {says}" in result.err
    assert len(result.err.strip().splitlines()) == 1


def test_a_bad_model_of_a_case_is_named_by_its_field(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """The field as a JSON path, what was expected and the value given: a role's model, an
    llm-judge's own model, an llm-judge with no judge model at all."""
    plan = {"turns": [{"say": "hi"}]}
    judge = {"use": "llm-judge", "rubric": "evaluation.md"}
    config = tmp_path / "cases" / "x" / "config.json"
    expected = "expected 'provider/model' (e.g. anthropic/claude-x)"
    for models, entry, said in (
        ({"judge": "nope"}, judge, f"field 'models.judge': {expected}, got \"nope\""),
        ({}, {**judge, "model": "bad"}, f"field 'evaluators[0].model': {expected}, got \"bad\""),
        ({}, judge, "field 'evaluators[0]': an llm-judge needs a judge model: set its 'model'"),
    ):
        folder = make_case("x", config={"models": models, "evaluators": [entry]}, plan=plan)
        (folder / "evaluation.md").write_text("Score it.")
        result = proctor("validate", "--source", str(tmp_path / "cases"))
        assert result.code == 2 and f"{config}: {said}" in result.err, (models, result.err)
    make_case("x", config={"models": {"judge": "scripted/judge"}, "evaluators": [judge]},
              plan=plan)  # fmt: skip
    (folder / "evaluation.md").write_text("Score it.")  # the control
    assert proctor("validate", "--source", str(tmp_path / "cases")).code == 0


def test_a_bad_model_of_a_task_is_named_by_the_task_and_its_own_field(
    proctor: Run, tmp_path: Path
) -> None:
    """A task file's case is named as its other fields are (``tasks.json: tasks[0]: field
    …``), not by a config.json that does not exist; a success criterion by its own place in
    ``successCriteria``, not by its number among all the task's evaluators."""
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "r.md").write_text("Score it.")
    tasks = folder / "tasks.json"
    judge = {"use": "llm-judge", "rubric": "r.md"}
    expected = "expected 'provider/model' (e.g. anthropic/claude-x)"
    for models, entry, said in (
        ({"judge": "nope"}, judge, f"field 'models.judge': {expected}, got \"nope\""),
        (
            {},
            {**judge, "model": "bad"},
            f"field 'successCriteria[0].model': {expected}, got \"bad\"",
        ),
        ({}, judge, "field 'successCriteria[0]': an llm-judge needs a judge model"),
        ({}, {**judge, "conditions": ["nope"]}, "field 'successCriteria[0].conditions'"),
    ):
        task = {
            "id": "a",
            "prompt": "hi",
            "plan": {"turns": [{"say": "hi"}]},
            "models": models,
            "evaluators": [{"use": "file-exists", "must": ["x"]}],
            "successCriteria": [entry],
        }
        tasks.write_text(json.dumps({"tasks": [task]}))
        result = proctor("validate", "--source", str(tasks))
        assert result.code == 2 and f"{tasks}: tasks[0]: {said}" in result.err, result.err
        assert "config.json" not in result.err


def test_a_task_without_a_judge_model_is_told_its_plan_holds_the_scripted_replies(
    proctor: Run, tmp_path: Path
) -> None:
    """scripted/judge replies from the plan's roles.judge: a task's plan is its ``plan``
    field, not a plan.json (a case folder's is its plan.json)."""
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "r.md").write_text("Score it.")
    tasks = folder / "tasks.json"
    task = {
        "id": "a",
        "prompt": "hi",
        "plan": {"turns": [{"say": "hi"}]},
        "successCriteria": [{"use": "llm-judge", "rubric": "r.md"}],
    }
    tasks.write_text(json.dumps({"tasks": [task]}))
    result = proctor("validate", "--source", str(tasks))
    assert result.code == 2, result.err
    assert "scripted model, which replies from its plan's roles.judge" in result.err
    assert "plan.json" not in result.err  # a case folder's: tests/integration/test_judge.py


def test_a_missing_add_on_is_blamed_on_the_file_that_names_it(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("a", plan={"turns": [{"say": "hi"}]})
    config = tmp_path / "proctor.json"
    config.write_text(
        json.dumps({"provision": {"skills": [{"name": "x", "path": "/nonexistent"}]}})
    )
    cases = str(tmp_path / "cases")
    result = proctor("validate", "--source", cases, "--config", str(config))
    assert result.code == 2, result.err
    assert f"{config} (for case a): field 'provision.skills[0].path'" in result.err
    assert "config.json" not in result.err
    # So is a condition's, named by the file that defines the condition; a relative path is
    # read from the case's folder, and the sentence says so.
    shared = {"skills": [{"name": "x", "path": "skills/x"}]}
    config.write_text(json.dumps({"conditions": {"base": {}, "with": {"provision": shared}}}))
    result = proctor("validate", "--source", cases, "--config", str(config))
    assert result.code == 2, result.err
    assert f"{config} (for case a): conditions.with: field 'provision.skills[0].path'" in (
        result.err
    )
    assert "a relative path is read from the case's folder, in proctor.json too" in result.err
    assert "config.json" not in result.err
    # The case's own entry of that name replaces it: the case's file is then the one named.
    make_case(
        "a",
        config={"provision": {"skills": [{"name": "x", "path": "gone"}]}},
        plan={"turns": [{"say": "hi"}]},
    )
    result = proctor("validate", "--source", cases, "--config", str(config))
    assert (
        result.code == 2 and "cases/a/config.json: field 'provision.skills[0].path'" in result.err
    )


@pytest.mark.parametrize("option", ["--agent-model", "--agent-effort"])
def test_an_agent_flag_naming_an_unknown_agent_is_refused(
    proctor: Run, make_case: MakeCase, tmp_path: Path, option: str
) -> None:
    make_case("a", plan={"turns": [{"say": "hi"}]})
    cases = str(tmp_path / "cases")
    result = proctor("run", "--source", cases, option, "nope=x", "--dry-run")
    assert result.code == 2 and f"{option} nope=…: unknown agent 'nope'" in result.err
    fine = proctor("run", "--source", cases, option, "scripted=high", "--dry-run")
    assert fine.code == 0, fine.err  # control


def test_a_profile_of_its_own_whose_cli_is_missing_is_named_by_its_own_id(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """``cc2``, a claude-code profile of its own with a binary that is not there: the pre-run
    check names ``cc2``, the profile to mend, not the adapter it runs on."""
    make_case("a", plan={"turns": [{"say": "hi"}]})
    config = tmp_path / "proctor.json"
    missing = tmp_path / "nowhere" / "claude"
    config.write_text(
        json.dumps({"codingagents": {"cc2": {"agent": "claude-code", "binary": str(missing)}}})
    )
    argv = ("--source", str(tmp_path / "cases"), "--config", str(config), "--agent", "cc2")
    for command in ("validate", "run"):
        result = proctor(command, *argv, "--model", "scripted")
        assert result.code == 2, result.err
        assert f"codingagents.cc2.binary '{missing}'" in result.err, result.err
        assert "codingagents.claude-code" not in result.err and "agent 'claude-code'" not in (
            result.err
        )
