import json
from pathlib import Path

import pytest

from proctor.discover.folders import discover_cases
from proctor.errors import ConfigError

TASK = {
    "id": "fix-login",
    "name": "Fix the login redirect",
    "repository": "webapp",
    "subpath": "backend",
    "prompt": "Fix it.",
    "language": "python",
    "framework": "django",
    "category": "bugfix",
    "bucket": "small",
    "goalShape": "single_goal",
    "expectedFiles": ["auth/views.py"],
    "expectedSymbols": ["login_redirect"],
    "expectedTraces": [{"from": "login", "to": "login_redirect"}],
    "successCriteria": [{"use": "file-exists", "must": ["auth/views.py"]}],
    "agents": ["scripted"],
    "repeats": 3,
    "conditions": {"baseline": {}, "with-map": {"promptPrefix": "See docs/MAP.md first."}},
}


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "repos"
    (root / "webapp" / "backend" / "auth").mkdir(parents=True, exist_ok=True)
    (root / "webapp" / "backend" / "auth" / "views.py").write_text("def login_redirect(): ...\n")
    return root


def test_task_file_becomes_cases(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.json"
    tasks.write_text(
        json.dumps([TASK, {**TASK, "id": "other", "repository": None, "subpath": None}])
    )
    found = discover_cases(tasks, _root(tmp_path))
    case, other = found.cases
    assert case.name == "fix-login" and case.prompt == "Fix it."
    assert case.fixture == (_root(tmp_path) / "webapp" / "backend").resolve()
    assert case.config.expected_files == ["auth/views.py"]
    assert case.config.expected_traces == [{"from": "login", "to": "login_redirect"}]
    assert case.config.goal_shape == "single_goal" and case.config.repeats == 3
    assert [e.use for e in case.evaluators] == ["file-exists"]
    assert set(case.config.conditions or {}) == {"baseline", "with-map"}
    assert other.fixture is None


def test_folder_of_task_files_next_to_case_folders(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.json").write_text(json.dumps({"id": "t1", "prompt": "p"}))
    (src / "b.json").write_text(json.dumps({"tasks": [{"id": "t2", "prompt": "p"}]}))
    (src / "proctor.json").write_text("{}")
    found = discover_cases(src)
    assert sorted(c.name for c in found.cases) == ["t1", "t2"]


def test_a_repeat_manifest_beside_the_cases_is_skipped_as_one(tmp_path: Path) -> None:
    """`proctor plan-repeats --output repeats.json` then `proctor run --manifest repeats.json`
    in the folder of cases: the manifest's `tasks` (names) are not read as task objects."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.json").write_text(json.dumps({"id": "t1", "prompt": "p"}))
    manifest = {
        "schemaVersion": 2,
        "conditions": ["baseline", "treatment"],
        "tasks": ["t1"],
        "pairs": 1,
        "runs": [
            {
                "pair": 1,
                "order": ["baseline", "treatment"],
                "results": "pair-1",
                "session": "pair-1",
            }
        ],
    }
    (src / "repeats.json").write_text(json.dumps(manifest))
    found = discover_cases(src)
    assert [c.name for c in found.cases] == ["t1"]
    (skipped,) = found.skipped
    assert skipped.name == "repeats.json"
    assert skipped.reason == "a repeat manifest (proctor plan-repeats), not a task file"


def test_a_json_file_beside_the_cases_that_is_no_task_file_is_skipped_with_the_reason(
    tmp_path: Path,
) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.json").write_text(json.dumps({"id": "t1", "prompt": "p"}))
    (src / "package.json").write_text(json.dumps({"name": "scorer", "version": "1.0.0"}))
    found = discover_cases(src)
    assert [c.name for c in found.cases] == ["t1"]
    (skipped,) = found.skipped
    assert skipped.name == "package.json" and skipped.reason.startswith("not a task file")
    # Given on its own, the same file is an error: the user asked for it as tasks.
    with pytest.raises(ConfigError, match="package.json: a JSON object with none of the keys"):
        discover_cases(src / "package.json")
    # Another program's file may give a key twice (npm keeps the last): still skipped.
    (src / "package.json").write_text('{"name": "x", "version": "1", "name": "y"}')
    (skipped,) = discover_cases(src).skipped
    assert skipped.reason.startswith("not a task file")
    # A task file must give each key once.
    (src / "a.json").write_text('{"id": "t1", "prompt": "p", "prompt": "q"}')
    with pytest.raises(ConfigError, match="key 'prompt' is given twice"):
        discover_cases(src)


def test_control_a_task_file_with_a_slip_beside_the_cases_is_an_error_not_skipped(
    tmp_path: Path,
) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.json").write_text(json.dumps({"id": "t1", "promt": "p"}))
    with pytest.raises(ConfigError, match="field 'prompt' is required"):
        discover_cases(src)


@pytest.mark.parametrize(
    ("task", "root", "message"),
    [
        ({"id": "x"}, False, "field 'prompt' is required"),
        ({"id": "a b", "prompt": "p"}, False, "field 'id'"),
        ({"id": "x", "prompt": "p", "goalShape": "blob"}, False, "field 'goalShape'"),
        ({"id": "x", "prompt": "p", "repository": "webapp"}, False, "needs --source-root"),
        ({"id": "x", "prompt": "p", "repository": "nope"}, True, "not a directory under"),
        ({"id": "x", "prompt": "p", "repository": "../etc"}, True, "must stay inside"),
        (
            {"id": "x", "prompt": "p", "successCriteria": [{"use": "bogus"}]},
            False,
            "tasks[0]: field 'successCriteria[0].use': unknown evaluator 'bogus'",
        ),
        (
            {"id": "x", "prompt": "p", "plan": {"turns": [{"bad": 1}]}},
            False,
            "tasks[0]: field 'plan.turns[0]'",
        ),
        ({"id": "x", "prompt": "p", "colour": "red"}, False, "unknown key 'colour'"),
    ],
)
def test_bad_tasks_name_the_task_and_field(
    tmp_path: Path, task: dict[str, object], root: bool, message: str
) -> None:
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps([task]))
    with pytest.raises(ConfigError) as info:
        discover_cases(path, _root(tmp_path) if root else None)
    assert f"{path}: tasks[0]" in str(info.value)
    assert message in str(info.value)


def test_duplicate_ids_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps([{"id": "x", "prompt": "p"}, {"id": "x", "prompt": "q"}]))
    with pytest.raises(ConfigError, match="duplicate task id 'x'"):
        discover_cases(path)


def _one_task(tmp_path: Path, task: dict[str, object]) -> Path:
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps([{"id": "x", "prompt": "p", **task}]))
    return path


def test_evaluators_and_success_criteria_both_run(tmp_path: Path) -> None:
    """A case key keeps its meaning in a task: a gate under ``evaluators`` is never dropped."""
    gate = {"use": "command", "run": "false", "gate": True}
    path = _one_task(
        tmp_path, {"evaluators": [gate], "successCriteria": [{"use": "file-exists", "must": ["a"]}]}
    )
    (case,) = discover_cases(path).cases
    assert [(e.use, e.gate) for e in case.evaluators] == [("command", True), ("file-exists", False)]
    assert [e["use"] for e in case.config.evaluators] == ["command", "file-exists"]


def test_bad_evaluators_entry_names_the_evaluators_field(tmp_path: Path) -> None:
    path = _one_task(tmp_path, {"evaluators": [{"use": "bogus"}]})
    with pytest.raises(ConfigError) as info:
        discover_cases(path)
    assert f"{path}: tasks[0]: field 'evaluators[0].use': unknown evaluator 'bogus'" in str(
        info.value
    )


@pytest.mark.parametrize(
    ("task", "message"),
    [
        ({"repository": ""}, "field 'repository' must stay inside --source-root: expected"),
        ({"repository": "   "}, "field 'repository' must stay inside --source-root: expected"),
        ({"repository": "/etc"}, "field 'repository' must stay inside --source-root: expected"),
        (
            {"repository": "webapp", "subpath": ""},
            "field 'subpath' must stay inside --source-root: expected",
        ),
        (
            {"repository": "webapp", "subpath": "../.."},
            "field 'subpath' must stay inside --source-root: expected",
        ),
        (
            {"repository": "webapp", "subpath": "/etc"},
            "field 'subpath' must stay inside --source-root: expected",
        ),
        ({"repository": "."}, "must stay inside --source-root"),
        ({"repository": "escape"}, "must stay inside --source-root"),
        ({"repository": "webapp", "subpath": "out"}, "must stay inside --source-root"),
        ({"repository": "webapp", "subpath": "backend/auth/views.py"}, "not a directory under"),
    ],
)
def test_fixture_must_be_a_folder_inside_the_resolved_source_root(
    tmp_path: Path, task: dict[str, object], message: str
) -> None:
    root = _root(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "escape").symlink_to(outside)
    (root / "webapp" / "out").symlink_to(outside)
    path = _one_task(tmp_path, task)
    with pytest.raises(ConfigError) as info:
        discover_cases(path, root)
    assert f"{path}: tasks[0]: field '" in str(info.value)
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("task", "said"),
    [
        (
            {"id": 'the "new" café'},
            "field 'id': \"the \\\"new\\\" café\" must be letters, digits, '.', '_' or '-'",
        ),
        ({"id": "fix."}, "field 'id': \"fix.\" must be letters, digits, '.', '_' or '-', "),
        ({"id": "fix."}, "starting with a letter or digit and not ending in '.', at most 200"),
        ({"repository": '/it\'s "x"'}, 'relative path without \'..\', got "/it\'s \\"x\\""'),
        ({"repository": "  "}, "relative path without '..', got \"  \""),
    ],
)
def test_a_value_the_task_file_holds_is_quoted_as_the_file_writes_it(
    tmp_path: Path, task: dict[str, object], said: str
) -> None:
    """As JSON writes it, the way the file holds it; Python's repr quoted it in single quotes
    ('  ', 'the "new" café') and escaped an apostrophe the file does not ('/it\\'s "x"')."""
    path = _one_task(tmp_path, task)
    with pytest.raises(ConfigError) as info:
        discover_cases(path, _root(tmp_path))
    assert said in str(info.value)


def test_symlink_that_stays_inside_the_source_root_is_followed(tmp_path: Path) -> None:
    root = _root(tmp_path)
    (root / "alias").symlink_to(root / "webapp")
    path = _one_task(tmp_path, {"repository": "alias", "subpath": "backend"})
    (case,) = discover_cases(path, root).cases
    assert case.fixture == (root / "webapp" / "backend").resolve()


@pytest.mark.parametrize(
    ("expectations", "message"),
    [
        ({"expectedTraces": [{"form": "a", "to": "b"}]}, "'expectedTraces[0].from' is required"),
        ({"expectedTraces": [{"from": "a.py"}]}, "'expectedTraces[0].to' is required"),
        ({"expectedTraces": [{}]}, "'expectedTraces[0].from' is required"),
        ({"expectedTraces": [{"from": "a", "to": " "}]}, "'expectedTraces[0].to': must not be"),
        ({"expectedTraces": [{"from": "a", "to": "b", "via": "c"}]}, "'expectedTraces[0].via'"),
        ({"expectedSymbols": ["  "]}, "'expectedSymbols[0]': must not be empty"),
        ({"expectedFiles": [""]}, "'expectedFiles[0]': must not be empty"),
        ({"expectedFiles": ["/etc/passwd"]}, "'expectedFiles[0]': must be a path relative"),
        ({"expectedFiles": ["src/../../x.py"]}, "'expectedFiles[0]': must be a path relative"),
    ],
)
def test_malformed_expectations_are_refused(
    tmp_path: Path, expectations: dict[str, object], message: str
) -> None:
    path = _one_task(tmp_path, expectations)
    with pytest.raises(ConfigError) as info:
        discover_cases(path)
    assert f"{path}: tasks[0]: " in str(info.value)
    assert message in str(info.value)


def test_evaluators_and_success_criteria_are_numbered_as_one_list(tmp_path: Path) -> None:
    """Both lists write ``evaluators/<index>-<use>.json``: numbering the second from 0 again
    made its first log overwrite the first evaluator's."""
    first = {"use": "command", "run": "true"}
    path = _one_task(tmp_path, {"evaluators": [first], "successCriteria": [first, first]})
    (case,) = discover_cases(path).cases
    assert [e.index for e in case.evaluators] == [0, 1, 2]


@pytest.mark.parametrize(
    ("evaluators", "criteria", "refused"),
    [
        ([{"use": "command", "run": "true", "label": "tests"}], [{"label": "tests"}], "label"),
        ([{"use": "command", "run": "true"}], [{"label": "command"}], "label"),
        ([{"use": "command", "run": "true", "label": "command"}], [{}], "use"),
        ([{"use": "command", "run": "true"}], [{}], None),  # the control: two of one use
    ],
)
def test_a_success_criterion_may_not_take_the_name_of_an_evaluator_before_it(
    tmp_path: Path,
    evaluators: list[dict[str, object]],
    criteria: list[dict[str, object]],
    refused: str | None,
) -> None:
    """The two lists are one case's checks: a label shared across them would merge two
    checks into one finding, as within one list."""
    criteria = [{"use": "command", "run": "false", **c} for c in criteria]
    path = _one_task(tmp_path, {"evaluators": evaluators, "successCriteria": criteria})
    if refused is None:
        (case,) = discover_cases(path).cases
        assert len(case.evaluators) == 2
        return
    with pytest.raises(ConfigError) as info:
        discover_cases(path)
    said = f"tasks[0]: field 'successCriteria[0].{refused}'"
    assert said in str(info.value) and "names an evaluator before it too" in str(info.value)
