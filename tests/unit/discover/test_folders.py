import json
import os
import zipfile
from pathlib import Path

import pytest

from proctor.discover.folders import discover_cases, load_case
from proctor.errors import ConfigError, DiscoveryError
from tests.conftest import write_case


def test_every_subfolder_is_a_case_and_incomplete_ones_are_skipped(tmp_path: Path) -> None:
    write_case(tmp_path, "a", plan={"turns": []})
    write_case(tmp_path, "b")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "prompt.md").write_text("x")
    (tmp_path / ".hidden").mkdir()
    found = discover_cases(tmp_path)
    assert [c.name for c in found.cases] == ["a", "b"]
    assert [(s.name, s.reason) for s in found.skipped] == [
        ("c", "missing required file config.json")
    ]


def test_a_folder_of_cases_among_the_cases_is_skipped_naming_the_source_that_runs_them(
    tmp_path: Path,
) -> None:
    """`proctor run` in a project whose cases are in `cases/` skipped that folder with `missing
    required file prompt.md`, as if a case had lost its prompt."""
    for name in ("a", "b", "c", "d"):
        write_case(tmp_path / "cases", name)
    (tmp_path / "docs").mkdir()
    found = discover_cases(tmp_path)
    assert [(s.name, s.reason) for s in found.skipped] == [
        (
            "cases",
            "a folder of case folders (a, b, c and 1 more), not a case: "
            f"proctor run --source {tmp_path / 'cases'} runs them",
        ),
        ("docs", "missing required file prompt.md"),
    ]


def test_a_results_directory_among_the_cases_is_no_case(tmp_path: Path) -> None:
    """`proctor run --source .` from a folder of cases writes `./proctor-results` there: later
    runs neither run it nor list it as a skipped case. A folder that only looks alike (no
    run.json in its run folder) is still listed."""
    write_case(tmp_path, "a")
    run = tmp_path / "proctor-results" / "run-20261205T000000Z-abcdef"
    run.mkdir(parents=True)
    (run / "run.json").write_text("{}")
    (tmp_path / "ledger-only").mkdir()
    (tmp_path / "ledger-only" / "findings.json").write_text("{}")
    (tmp_path / "look-alike" / "run-x").mkdir(parents=True)
    found = discover_cases(tmp_path)
    assert [c.name for c in found.cases] == ["a"]
    assert [s.name for s in found.skipped] == ["look-alike"]


def test_a_case_folder_given_directly_is_one_case(tmp_path: Path) -> None:
    folder = write_case(tmp_path, "only")
    found = discover_cases(folder)
    assert [c.name for c in found.cases] == ["only"]


def test_a_case_folder_given_as_dot_is_named_by_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `proctor run --source .` inside a case: "." has no name, and the trials were filed under
    # an empty case name that resume and report could not read back.
    folder = write_case(tmp_path, "here")
    (folder / "sub").mkdir()
    monkeypatch.chdir(folder)
    for source in (Path("."), Path("../here/."), Path("sub/..")):
        (case,) = discover_cases(source).cases
        assert case.name == "here" and case.path.resolve() == folder.resolve()


def test_unreadable_prompt_is_skipped_with_reason(tmp_path: Path) -> None:
    folder = write_case(tmp_path, "bin")
    (folder / "prompt.md").write_bytes(b"\x80\xfe\x00bad")  # no UTF-16 byte-order mark
    found = discover_cases(tmp_path)
    assert found.cases == []
    assert "prompt.md is not UTF-8" in found.skipped[0].reason


@pytest.mark.parametrize("name", ["config.json", "prompt.md", "plan.json"])
def test_a_file_of_a_case_folder_given_as_source_names_the_folder(
    tmp_path: Path, name: str
) -> None:
    """`--source cases/hello/config.json` was read as a task file and said `tasks[0]: field
    'id' is required but missing` (or `malformed JSON` for prompt.md): a slip said as a task
    file's mistake."""
    folder = write_case(tmp_path, "hello", plan={"turns": []})
    with pytest.raises(DiscoveryError) as info:
        discover_cases(folder / name)
    assert str(info.value) == (
        f"--source {folder / name}: a file of the case folder {folder}, not a task file: give "
        f"the case folder (--source {folder}) or the folder that holds the cases"
    )


def test_proctor_json_given_as_source_is_said_to_be_the_configuration(tmp_path: Path) -> None:
    (tmp_path / "proctor.json").write_text('{"concurrency": 2}')
    with pytest.raises(DiscoveryError, match="the top-level configuration, not a task file: "):
        discover_cases(tmp_path / "proctor.json")


@pytest.mark.parametrize(
    ("name", "document", "said"),
    [
        (
            "ci.json",
            {"out": "results", "repeats": 2},
            "a top-level configuration (its keys are proctor.json's), not a task file: give it "
            "as --config",
        ),
        (
            "repeats.json",
            {"tasks": ["fix"], "pairs": [], "runs": []},
            "a repeat manifest (proctor plan-repeats), not a task file: run it with proctor run "
            "--manifest",
        ),
        (
            "findings.json",
            {"schemaVersion": 2, "findings": []},
            "a JSON object with none of the keys 'tasks', 'id', 'prompt', 'successCriteria' (no "
            "task file), which --source does not take",
        ),
    ],
)
def test_a_json_object_no_task_file_can_be_is_said_to_be_none(
    tmp_path: Path, name: str, document: dict[str, object], said: str
) -> None:
    """It was read as one task: `ci.json: tasks[0]: field 'id' is required but missing`."""
    (tmp_path / name).write_text(json.dumps(document))
    with pytest.raises(DiscoveryError) as info:
        discover_cases(tmp_path / name)
    assert str(info.value).startswith(f"--source {tmp_path / name}: {said}")


def test_a_task_file_nested_too_deeply_is_one_sentence_whatever_its_name(tmp_path: Path) -> None:
    """A file not named .json was parsed to see whether it is JSON, and one nested deeper
    than Python's parser goes ended `validate` and `run` in a RecursionError traceback."""
    for name in ("tasks.txt", "tasks.json"):
        (tmp_path / name).write_text("[" * 100_000 + "]" * 100_000)
        with pytest.raises(ConfigError, match="JSON nested too deeply to read"):
            discover_cases(tmp_path / name)


@pytest.mark.parametrize(
    ("name", "content", "what"),
    [
        ("notes.txt", b"my notes\n", "a .txt file that is not JSON"),
        ("fixture.zip", b"PK\x03\x04\xff\xfe", "a .zip file that is not JSON"),
        ("README", b"# cases\n", "a file that is not JSON"),
    ],
)
def test_a_source_file_of_a_kind_it_does_not_take_is_said_with_the_kinds_it_takes(
    tmp_path: Path, name: str, content: bytes, what: str
) -> None:
    """`--source notes.txt` said `notes.txt: malformed JSON at line 1, column 1: Expecting
    value`, as if it were a task file with a mistake in it."""
    (tmp_path / name).write_bytes(content)
    with pytest.raises(DiscoveryError) as info:
        discover_cases(tmp_path / name)
    assert str(info.value) == (
        f"--source {tmp_path / name}: {what}, which --source does not take: give a folder of "
        "cases, a case folder (holding prompt.md and config.json) or a task file (JSON)"
    )


def test_a_source_that_is_neither_a_folder_nor_a_file_is_said_with_the_kinds_it_takes(
    tmp_path: Path,
) -> None:
    """A FIFO was listed as a folder: `Not a directory; what was finished before it is kept`."""
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(DiscoveryError, match="pipe: neither a folder nor a regular file, which "):
        discover_cases(tmp_path / "pipe")


def test_a_task_file_of_another_name_is_read_as_tasks(tmp_path: Path) -> None:
    (tmp_path / "tasks.txt").write_text('{"id": "t1", "prompt": "Do it."}')
    assert [c.name for c in discover_cases(tmp_path / "tasks.txt").cases] == ["t1"]


def test_a_task_file_named_config_json_outside_a_case_folder_is_read_as_tasks(
    tmp_path: Path,
) -> None:
    (tmp_path / "config.json").write_text('{"id": "t", "prompt": "do it"}')
    assert [c.name for c in discover_cases(tmp_path / "config.json").cases] == ["t"]


def test_missing_source_is_a_discovery_error(tmp_path: Path) -> None:
    with pytest.raises(DiscoveryError, match="no such file or directory"):
        discover_cases(tmp_path / "nope")


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ('{"agents": ["scripted"],', "malformed JSON at line 1"),
        ({"timeoutSec": "soon"}, "field 'timeoutSec': expected a number, got the string \"soon\""),
        ({"repeats": 0}, "field 'repeats'"),
        ({"agnets": ["scripted"]}, "unknown key 'agnets' (did you mean 'agents'? known keys: "),
        (
            {"evaluators": [{"use": "fle-exists"}]},
            "unknown evaluator 'fle-exists' (did you mean 'file-exists'? known: ",
        ),
        ({"evaluators": [{"must": ["x"]}]}, "'evaluators[0].use' is required but missing"),
        (
            {"evaluators": [{"use": 3}]},
            "field 'evaluators[0].use' must be a string, got 3: it names the evaluator",
        ),
        (
            {"evaluators": [{"use": "command", "run": "true", "expectExit": "zero"}]},
            "field 'evaluators[0].expectExit': expected an integer, got the string \"zero\"",
        ),
        (
            {"evaluators": [{"use": "file-exists", "musst": ["x"]}]},
            "unknown key 'evaluators[0].musst'",
        ),
        (  # a slip in a key every entry takes is matched against those keys too
            {"evaluators": [{"use": "command", "run": "true", "wieght": 2}]},
            "unknown key 'evaluators[0].wieght' (did you mean 'weight'? known keys: conditions, "
            "copyIn, expectExit, gate, label, run, timeoutSec, use, weight)",
        ),
        (
            {"evaluators": [{"use": "file-exists", "must": ["x"], "lable": "y"}]},
            "unknown key 'evaluators[0].lable' (did you mean 'label'?",
        ),
        (
            {"evaluators": [{"use": "trajectory-check", "toolPattern": "(("}]},
            "not a valid regular expression",
        ),
        ([1, 2], "expected a JSON object at the top level"),
        ({"env": {"": "x"}}, "field 'env': '' is not an environment variable name"),
        ({"env": {"A=B": "x"}}, "'A=B' is not an environment variable name"),
        ({"env": {"A": "a\u0000b"}}, "field 'env.A': an environment variable's value cannot"),
        (
            {"conditions": {"on": {"env": {"1X": "y"}}}},
            "field 'conditions.on.env': '1X' is not an environment variable name",
        ),
        ('{"timeoutSec": 1e400}', "field 'timeoutSec': expected a finite number, got inf"),
        ('{"timeoutSec": NaN}', "field 'timeoutSec': expected a finite number"),
    ],
)
def test_bad_config_is_one_sentence_naming_file_and_field(
    tmp_path: Path, config: object, expected: str
) -> None:
    folder = write_case(
        tmp_path, "bad", config=config if isinstance(config, str) else json.dumps(config)
    )
    with pytest.raises(ConfigError) as info:
        discover_cases(tmp_path)
    message = str(info.value)
    assert str(folder / "config.json") in message
    assert expected in message
    assert "\n" not in message


def test_bad_plan_names_the_step(tmp_path: Path) -> None:
    write_case(tmp_path, "p", plan={"turns": [{"say": "hi"}, {"shel": "ls"}]})
    with pytest.raises(
        ConfigError, match=r"plan.json: field 'turns\[1\]': expected exactly one action"
    ):
        discover_cases(tmp_path)


def test_bad_qna_rule_names_the_line(tmp_path: Path) -> None:
    write_case(tmp_path, "q", qna="prose\n```rules\nok => yes\n(( => no\n```\n")
    with pytest.raises(ConfigError, match="qna.md: rules block, line 4: invalid regular"):
        discover_cases(tmp_path)


@pytest.mark.parametrize(
    ("line", "empty"),
    [(" => just an answer", "PATTERN"), ("(?i)readme =>", "ANSWER"), ('it\'s "x" =>', "ANSWER")],
)
def test_a_qna_rule_with_an_empty_side_is_quoted(tmp_path: Path, line: str, empty: str) -> None:
    """The rule was said as "both PATTERN and ANSWER must be non-empty", neither quoted nor
    saying which one was empty."""
    folder = write_case(tmp_path, "q", qna=f"```rules\nok => yes\n{line}\n```\n")
    with pytest.raises(ConfigError) as raised:
        discover_cases(tmp_path)
    assert str(raised.value) == (
        f"{folder / 'qna.md'}: rules block, line 3: expected 'PATTERN => ANSWER' with a "
        f"non-empty {empty}, got {json.dumps(line.strip())}"
    )


def test_unsafe_src_zip_is_a_config_error(tmp_path: Path) -> None:
    folder = write_case(tmp_path, "z")
    with zipfile.ZipFile(folder / "src.zip", "w") as zf:
        zf.writestr("../../escape.txt", "x")
    with pytest.raises(ConfigError, match="unsafe src.zip: .*'../../escape.txt' would be written"):
        discover_cases(tmp_path)


@pytest.mark.parametrize("name", ["plan.json", "qna.md", "evaluation.md", "src.zip"])
def test_a_folder_where_a_case_file_belongs_is_a_sentence(tmp_path: Path, name: str) -> None:
    folder = write_case(tmp_path, "x", config={})
    (folder / name).mkdir()
    with pytest.raises(ConfigError, match="a folder, where the case expects a (zip )?file"):
        discover_cases(tmp_path)
    problems: list[str] = []
    discover_cases(tmp_path, problems=problems)
    assert len(problems) == 1, problems  # said once (a src.zip folder was said twice)


def test_a_required_file_that_is_a_folder_is_said_to_be_one(tmp_path: Path) -> None:
    folder = write_case(tmp_path, "x", config={})
    (folder / "prompt.md").unlink()
    (folder / "prompt.md").mkdir()
    found = discover_cases(tmp_path)
    assert [(s.name, s.reason) for s in found.skipped] == [
        ("x", "prompt.md is a folder, where the case expects a file")
    ]


def test_a_proctor_json_folder_is_a_sentence(tmp_path: Path) -> None:
    from proctor.models.loading import load_top_config

    (tmp_path / "proctor.json").mkdir()
    with pytest.raises(ConfigError, match="a folder, where proctor expects its configuration"):
        load_top_config(None, tmp_path)


def test_validate_finds_every_problem_of_a_case_in_one_pass(tmp_path: Path) -> None:
    from proctor.discover.folders import discover_cases

    case = tmp_path / "a"
    case.mkdir()
    (case / "prompt.md").write_text("go\n")
    (case / "config.json").write_text('{"repeats": 0, "timeoutSec": "x"}')
    (case / "plan.json").write_text('{"turns": [{"bad": 1}]}')
    (case / "qna.md").write_text("```rules\n(x => y\n")
    problems: list[str] = []
    discover_cases(tmp_path, problems=problems)
    assert [p.split(": ")[0].rsplit("/", 1)[-1] for p in problems] == [
        "config.json", "config.json", "qna.md", "plan.json"
    ]  # fmt: skip
    assert "'timeoutSec'" in problems[0] and "'repeats'" in problems[1]


def test_validate_names_an_evaluator_problem_beside_the_configuration_field_errors(
    tmp_path: Path,
) -> None:
    """A config.json with wrong fields and a wrong evaluator entry: all three in one pass
    (the evaluator entries were not checked once another field was wrong)."""
    case = tmp_path / "a"
    case.mkdir()
    (case / "prompt.md").write_text("go\n")
    config = {"repeats": 0, "timeoutSec": -1, "evaluators": [{"use": "command"}]}
    (case / "config.json").write_text(json.dumps(config))
    problems: list[str] = []
    discover_cases(tmp_path, problems=problems)
    assert len(problems) == 3, problems
    assert all(p.startswith(f"{case / 'config.json'}: field '") for p in problems)
    assert "'evaluators[0].run' is required" in problems[2]
    # A malformed evaluators list is said once, by its field error alone.
    (case / "config.json").write_text('{"repeats": 0, "evaluators": [1]}')
    problems = []
    discover_cases(tmp_path, problems=problems)
    assert len(problems) == 2 and "'evaluators[0]'" in problems[1], problems


def test_a_stray_prompt_in_a_folder_of_cases_is_named_not_run_as_the_one_case(
    tmp_path: Path,
) -> None:
    for name in ("alpha", "beta"):
        case = tmp_path / name
        case.mkdir()
        (case / "prompt.md").write_text("Do it.")
        (case / "config.json").write_text('{"agents": ["scripted"]}')
    (tmp_path / "prompt.md").write_text("notes for myself")
    with pytest.raises(DiscoveryError, match=r"its prompt.md makes it read as one case folder"):
        discover_cases(tmp_path)
    (tmp_path / "prompt.md").unlink()  # the control: the folder of cases reads as before
    assert sorted(c.name for c in discover_cases(tmp_path).cases) == ["alpha", "beta"]


def test_a_whole_case_folder_with_a_case_shaped_fixture_inside_stays_one_case(
    tmp_path: Path,
) -> None:
    (tmp_path / "prompt.md").write_text("Fix the suite runner.")
    (tmp_path / "config.json").write_text('{"agents": ["scripted"]}')
    inner = tmp_path / "src" / "inner"
    inner.mkdir(parents=True)
    (inner / "prompt.md").write_text("x")
    (inner / "config.json").write_text("{}")
    assert [c.name for c in discover_cases(tmp_path).cases] == [tmp_path.name]


def test_a_src_that_is_not_a_folder_or_beside_a_src_zip_is_a_sentence(tmp_path: Path) -> None:
    folder = write_case(tmp_path, "x", config={})
    (folder / "src").write_text("hi\n")
    with pytest.raises(ConfigError, match="src: a file, where the case expects a folder"):
        discover_cases(tmp_path)
    (folder / "src").unlink()
    (folder / "src").symlink_to(tmp_path / "gone")
    with pytest.raises(ConfigError, match="src: a link to nothing, where the case expects"):
        discover_cases(tmp_path)
    (folder / "src").unlink()
    (folder / "src").mkdir()
    (folder / "src" / "a.txt").write_text("a\n")
    with zipfile.ZipFile(folder / "src.zip", "w") as zf:
        zf.writestr("a.txt", "b\n")
    with pytest.raises(ConfigError, match="both src/ and src.zip"):
        discover_cases(tmp_path)
    (folder / "src.zip").unlink()
    assert [c.name for c in discover_cases(tmp_path).cases] == ["x"]  # control


@pytest.mark.parametrize("name", ["config.json", "plan.json"])
def test_a_key_given_twice_is_a_sentence_not_the_last_one_silently(
    tmp_path: Path, name: str
) -> None:
    folder = write_case(tmp_path, "x", config={}, plan={"turns": []})
    twice = '{"turns": [], "turns": [{"say": "hi"}]}' if name == "plan.json" else None
    (folder / name).write_text(twice or '{"repeats": 1, "timeoutSec": 5, "repeats": 3}')
    key = "turns" if name == "plan.json" else "repeats"
    with pytest.raises(ConfigError, match=f"{name}: key '{key}' is given twice in one object"):
        discover_cases(tmp_path)


def test_a_key_given_twice_inside_an_object_is_named_by_its_place_and_lines(
    tmp_path: Path,
) -> None:
    folder = write_case(tmp_path, "x", config={}, plan={"turns": []})
    (folder / "config.json").write_text(
        '{\n  "conditions": {\n    "with-skill": {},\n    "baseline": {},\n'
        '    "with-skill": {"provision": {}}\n  }\n}\n'
    )
    with pytest.raises(ConfigError) as caught:
        discover_cases(tmp_path)
    assert str(caught.value).endswith(
        "config.json: key 'conditions.with-skill' is given twice in one object, at lines 3 and "
        "5; keep one (JSON would take the last and ignore the first)"
    )


def test_the_top_level_configuration_refuses_a_key_given_twice(tmp_path: Path) -> None:
    from proctor.models.loading import load_top_config

    (tmp_path / "proctor.json").write_text('{"gate": {"minPassRate": 1, "minPassRate": 0.5}}')
    with pytest.raises(
        ConfigError, match="key 'gate.minPassRate' is given twice in one object, at line 1"
    ):
        load_top_config(None, tmp_path)


def test_a_fixture_entry_that_cannot_be_named_is_passed_over_by_the_link_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    folder = write_case(tmp_path, "x", config={})
    (folder / "src" / "deep").mkdir(parents=True)
    (folder / "src" / "deep" / "f.txt").write_text("x\n")
    real = Path.is_symlink

    def too_long(self: Path) -> bool:
        if self.name == "f.txt":
            raise OSError(errno.ENAMETOOLONG, "File name too long", str(self))
        return real(self)

    monkeypatch.setattr(Path, "is_symlink", too_long)
    assert [c.name for c in discover_cases(tmp_path).cases] == ["x"]


@pytest.mark.parametrize("also_wrong", [{}, {"repeats": 0}])
def test_every_bad_evaluator_entry_is_named_in_one_pass(tmp_path: Path, also_wrong: dict) -> None:
    case = tmp_path / "a"
    case.mkdir()
    (case / "prompt.md").write_text("go\n")
    entries = [{"use": "command"}, {"use": "command", "run": "true"}, {"use": "nope"}]
    (case / "config.json").write_text(json.dumps({**also_wrong, "evaluators": entries}))
    problems: list[str] = []
    discover_cases(tmp_path, problems=problems)
    assert len(problems) == 2 + len(also_wrong), problems
    assert "'evaluators[0].run' is required" in problems[-2]
    assert "'evaluators[2].use': unknown evaluator 'nope'" in problems[-1]


@pytest.mark.parametrize(
    ("target", "said"),
    [
        ("../../src/a.txt", "../../src/a.txt: it climbs out of src/"),
        ("ABSOLUTE", "an absolute path, which leads outside every copy of the fixture"),
    ],
)
def test_a_fixture_link_that_leaves_the_folder_on_its_way_is_refused_before_any_trial(
    tmp_path: Path, target: str, said: str
) -> None:
    """It leads back inside src/ here, but each trial's workspace is a copy of src/ under
    another name, where it would lead out: every trial was an infra-error that validate had
    passed."""
    folder = write_case(tmp_path, "x", config={}, src={"a.txt": "a\n", "d/b.txt": "b\n"})
    src = folder / "src"
    (src / "d" / "link").symlink_to(str(src / "a.txt") if target == "ABSOLUTE" else target)
    with pytest.raises(ConfigError, match="points outside the fixture in each trial's copy") as e:
        discover_cases(tmp_path)
    assert said in str(e.value)


def test_fixture_links_that_stay_inside_the_folder_and_a_loop_of_links_pass(
    tmp_path: Path,
) -> None:
    folder = write_case(tmp_path, "x", config={}, src={"d/f.txt": "f\n"})
    src = folder / "src"
    (src / "l").symlink_to("d/f.txt")
    (src / "d" / "up").symlink_to("../l")
    (src / "d" / "same").symlink_to("../d/f.txt")
    (src / "a").symlink_to("b")
    (src / "b").symlink_to("a")
    (src / "dangling").symlink_to("gone.txt")
    assert [c.name for c in discover_cases(tmp_path).cases] == ["x"]


def test_a_required_file_that_is_a_broken_link_or_no_regular_file_is_named_so(
    tmp_path: Path,
) -> None:
    linked = write_case(tmp_path, "linked")
    (linked / "prompt.md").unlink()
    (linked / "prompt.md").symlink_to("nowhere.md")
    piped = write_case(tmp_path, "piped")
    (piped / "prompt.md").unlink()
    os.mkfifo(piped / "prompt.md")
    gone = write_case(tmp_path, "gone")
    (gone / "prompt.md").unlink()
    assert [(s.name, s.reason) for s in discover_cases(tmp_path).skipped] == [
        ("gone", "missing required file prompt.md"),
        ("linked", "prompt.md is a link to nothing (nowhere.md)"),
        ("piped", "prompt.md is not a regular file, where the case expects one"),
    ]


def test_a_binary_prompt_is_skipped_and_a_bom_is_no_part_of_the_prompt(tmp_path: Path) -> None:
    """A prompt.md holding NUL bytes (an image or archive saved under that name) would be
    pasted to the agent as its task: the case is skipped with the reason, as an empty one is.
    A byte-order mark an editor wrote first is left out of the prompt."""
    write_case(tmp_path, "binary", prompt="\x00\x01\x02PNG")
    folder = write_case(tmp_path, "bom")
    (folder / "prompt.md").write_bytes("\ufeffFix the bug.".encode())
    found = discover_cases(tmp_path)
    assert [(s.name, s.reason) for s in found.skipped] == [
        ("binary", "prompt.md is not text: it holds a NUL character (a binary file?)")
    ]
    assert [(c.name, c.prompt) for c in found.cases] == [("bom", "Fix the bug.")]


@pytest.mark.parametrize("out", ["", "   "])
def test_a_blank_out_in_the_top_level_configuration_is_refused(tmp_path: Path, out: str) -> None:
    """A blank `out` was taken as the default without a word (""), or made a results folder
    named by blanks: refused, naming the field."""
    from proctor.models.loading import load_top_config

    (tmp_path / "proctor.json").write_text(json.dumps({"out": out}))
    with pytest.raises(ConfigError) as info:
        load_top_config(None, tmp_path)
    assert str(info.value) == (
        f"{tmp_path / 'proctor.json'}: field 'out': expected the path of a results folder, "
        f"not a blank one, got {json.dumps(out)}"
    )


@pytest.mark.parametrize("name", ["config.json", "prompt.md"])
@pytest.mark.parametrize(
    ("bom", "encoding"),
    [(b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"), (b"\xff\xfe\0\0", "UTF-32")],
)
def test_a_case_file_in_utf16_is_an_error_naming_the_encoding(
    tmp_path: Path, name: str, bom: bytes, encoding: str
) -> None:
    """A UTF-16 config.json (PowerShell's ``>``) skipped its case, the run exiting 0 when
    others ran, where a UTF-8 one with a byte-order mark was an error."""
    case = tmp_path / "c"
    case.mkdir()
    (case / "prompt.md").write_text("Do it")
    (case / "config.json").write_text("{}")
    text = "{}" if name == "config.json" else "Do it"
    codec = encoding.lower() + ("-le" if bom.startswith(b"\xff") else "-be")
    (case / name).write_bytes(bom + text.encode(codec))
    with pytest.raises(ConfigError) as raised:
        load_case(case)
    assert str(raised.value) == (
        f"{case / name}: the file is {encoding} text (it starts with a {encoding} byte-order "
        "mark): save it as UTF-8"
    )


def test_two_cases_whose_names_differ_only_in_unicode_form_are_refused(tmp_path: Path) -> None:
    """``naïve`` written as one character and as ``i`` plus a combining diaeresis read the same
    in every report, and are one folder where the file system normalises names."""
    write_case(tmp_path, "na\u00efve")
    write_case(tmp_path, "nai\u0308ve")
    write_case(tmp_path, "other")
    with pytest.raises(ConfigError) as caught:
        discover_cases(tmp_path)
    assert str(caught.value) == (
        f'--source {tmp_path}: two cases are named alike, "nai\\u0308ve" and "na\\u00efve" '
        "(the same name, its letters written with other Unicode characters): rename one"
    )


def test_two_cases_whose_names_differ_only_in_capitals_are_refused(tmp_path: Path) -> None:
    """``fix`` and ``FIX`` are one folder on a macOS or Windows disk: their trials' folders
    (``trials/fix``, ``trials/FIX``) would be one there."""
    write_case(tmp_path, "fix")
    write_case(tmp_path, "FIX")
    with pytest.raises(ConfigError) as caught:
        discover_cases(tmp_path)
    assert str(caught.value) == (
        f'--source {tmp_path}: two cases are named alike, "FIX" and "fix" (the same name but '
        "for capitals: one folder on a macOS or Windows disk, where their trials' folders "
        "would be one): rename one"
    )


@pytest.mark.parametrize(
    ("name", "shown", "said"),
    [
        ("fix ", "fix ", "ends with white space"),
        (" fix", " fix", "starts with white space"),
        ("fix\u00a0", "fix\\u00a0", "ends with white space"),
        ("a\nb", "a\\nb", "holds a control character"),
        ("a\tb", "a\\tb", "holds a control character"),
        ("fix.", "fix.", "ends with '.', which Windows drops from a folder's name"),
        ("fix..", "fix..", "ends with '.'"),
    ],
)
def test_a_case_name_no_listing_shows_as_it_is_is_refused(
    tmp_path: Path, name: str, shown: str, said: str
) -> None:
    """``fix `` was listed as ``ok       fix : …``, its space unseen, and ran."""
    write_case(tmp_path, name)
    write_case(tmp_path, "other")
    with pytest.raises(ConfigError) as caught:
        discover_cases(tmp_path)
    assert str(caught.value).startswith(f'"{tmp_path}/{shown}": the case folder\'s name {said}')
    assert str(caught.value).endswith(": rename it")


def test_every_case_name_problem_is_noted_and_the_other_cases_kept(tmp_path: Path) -> None:
    """Given ``problems`` (validate), a refused name is one problem among the others, not the
    one stop; the cases of other names are read on."""
    for name in ("fix", "FIX", "fix ", "other"):
        write_case(tmp_path, name)
    write_case(tmp_path, "broken", config="{")
    problems: list[str] = []
    found = discover_cases(tmp_path, problems=problems)
    assert sorted(c.name for c in found.cases) == ["FIX", "other"]
    assert len(problems) == 3, problems
    assert problems[0].startswith(f"{tmp_path / 'broken' / 'config.json'}: malformed JSON")
    assert "two cases are named alike" in problems[1]
    assert problems[2].startswith(f'"{tmp_path}/fix ": the case folder\'s name ends with')


def test_a_task_file_of_another_name_with_a_json_mistake_is_said_where(tmp_path: Path) -> None:
    """`--source tasks.txt` holding `[{…},]` said `a .txt file that is not JSON, which --source
    does not take`, not where its JSON goes wrong."""
    (tmp_path / "tasks.txt").write_text('[{"id": "t1", "prompt": "Do it."},]')
    with pytest.raises(ConfigError, match=r"malformed JSON at line 1, column \d+: a comma before"):
        discover_cases(tmp_path / "tasks.txt")
