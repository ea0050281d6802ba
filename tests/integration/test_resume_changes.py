"""`proctor run --resume` refuses a case changed since the run started in a way that changes its
results, wherever the change is: a file of the case folder (a scoring program), a value of its
configuration (an environment value, a step budget), a skill it provisions from elsewhere, or a
fixture file however many files the fixture holds. A run recorded by an older proctor, without
the newer digests, still resumes."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from proctor.plan import records
from proctor.plan.records import older_folder_digest
from tests.conftest import Run, write_case

CONFIG = {
    "repeats": 2,
    "env": {"MODE": "strict"},
    "evaluators": [
        {"use": "external", "command": sys.executable, "args": ["score.py"], "scoreMetric": "ok"}
    ],
}
SCORE = "import json\nprint(json.dumps({'values': [{'name': 'ok', 'value': 100}]}))\n"


def started(proctor: Run, tmp_path: Path, src: dict[str, str] | None = None) -> tuple[Path, Path]:
    """A finished run of one case with its second trial's record removed (left to resume)."""
    cases = tmp_path / "cases"
    case = write_case(cases, "c", config=CONFIG, plan={"turns": [{"say": "hi"}]}, src=src)
    (case / "score.py").write_text(SCORE)
    done = proctor("run", "--source", str(cases), "--out", str(tmp_path / "out"))
    assert done.code == 0, done.err
    (run_dir,) = (tmp_path / "out").glob("run-*")
    (run_dir / "trials/c/scripted/default/2/trial.json").unlink()
    return case, run_dir


def edit_config(case: Path, **changes: object) -> None:
    config = json.loads((case / "config.json").read_text())
    (case / "config.json").write_text(json.dumps({**config, **changes}))


@pytest.mark.parametrize(
    ("edit", "digest"),
    [
        ("scorer", "filesDigest"),
        ("new-file", "filesDigest"),
        ("env", "configDigest"),
        ("max-tool-calls", "configDigest"),
        ("none", None),
    ],
)
def test_resume_refuses_a_case_whose_files_or_configuration_changed(
    proctor: Run, tmp_path: Path, edit: str, digest: str | None
) -> None:
    case, run_dir = started(proctor, tmp_path)
    if edit == "scorer":
        (case / "score.py").write_text(SCORE.replace("100", "50"))
    elif edit == "new-file":
        (case / "evaluation.notes").write_text("x")
    elif edit == "env":
        edit_config(case, env={"MODE": "lenient"})
    elif edit == "max-tool-calls":
        edit_config(case, maxToolCalls=1)
    resumed = proctor("run", "--resume", str(run_dir))
    if digest is None:
        assert resumed.code == 0 and "1 kept, 1 run now" in resumed.err, resumed.err
        return
    assert resumed.code == 2 and "changed since the run started" in resumed.err, resumed.err
    assert f"cases[0].{digest}" in resumed.err and "Traceback" not in resumed.err
    assert "lenient" not in (run_dir / "resolved.json").read_text()  # values are not recorded


def test_resume_refuses_a_fixture_changed_past_its_first_twenty_thousand_entries(
    proctor: Run, tmp_path: Path
) -> None:
    src = {f"d{i // 1000}/f{i}.txt": "" for i in range(20_050)}
    _, run_dir = started(proctor, tmp_path, src=src)
    (tmp_path / "cases/c/src/d0/f999.txt").write_text("edited")  # last in the walk
    resumed = proctor("run", "--resume", str(run_dir))
    assert resumed.code == 2 and "fixtureDigest" in resumed.err, resumed.err


def test_a_run_of_an_older_proctor_resumes_on_what_it_recorded(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its record has no configDigest and its fixture digest took the first entries only."""
    monkeypatch.setattr(records, "LEGACY_FIXTURE_ENTRIES", 3)
    src = {f"f{i}.txt": "" for i in range(6)}
    case, run_dir = started(proctor, tmp_path, src=src)
    resolved = json.loads((run_dir / "resolved.json").read_text())
    for entry in resolved["cases"]:
        del entry["configDigest"], entry["filesDigest"]
        entry["fixtureDigest"] = older_folder_digest(case / "src", limit=3)
    (run_dir / "resolved.json").write_text(json.dumps(resolved))
    (case / "score.py").write_text(SCORE + "# a comment\n")  # not covered then
    resumed = proctor("run", "--resume", str(run_dir))
    assert resumed.code == 0 and "1 kept, 1 run now" in resumed.err, resumed.err


@pytest.mark.parametrize("edit", ["undone", "same-size"])
def test_a_fixture_file_edited_then_put_back_resumes(
    proctor: Run, tmp_path: Path, edit: str
) -> None:
    """A fixture is compared by its files' contents: one edited and then put back as it was
    (its modification time changed all the same) still resumes; one edited to another
    content of the same size is refused. It was refused as changed either way."""
    case, run_dir = started(proctor, tmp_path, src={"data.txt": "abc\n"})
    data = case / "src" / "data.txt"
    data.write_text("xyz\n" if edit == "same-size" else "abc\n")
    os.utime(data, ns=(data.stat().st_atime_ns, data.stat().st_mtime_ns + 5_000_000_000))
    resumed = proctor("run", "--resume", str(run_dir))
    if edit == "undone":
        assert resumed.code == 0 and "1 kept, 1 run now" in resumed.err, resumed.err
    else:
        assert resumed.code == 2 and "cases[0].fixtureDigest" in resumed.err, resumed.err


def test_a_run_whose_fixture_was_digested_by_time_resumes_while_untouched(
    proctor: Run, tmp_path: Path
) -> None:
    """A run of a proctor that digested its fixture's files by their modification times
    resumes while they are as they were, and is refused once one is touched."""
    case, run_dir = started(proctor, tmp_path, src={"data.txt": "abc\n"})
    resolved = json.loads((run_dir / "resolved.json").read_text())
    resolved["cases"][0]["fixtureDigest"] = older_folder_digest(case / "src")
    (run_dir / "resolved.json").write_text(json.dumps(resolved))
    data = case / "src" / "data.txt"
    kept = (run_dir / "trials/c/scripted/default/1/trial.json").read_bytes()
    resumed = proctor("run", "--resume", str(run_dir))
    assert resumed.code == 0 and "1 kept, 1 run now" in resumed.err, resumed.err
    assert (run_dir / "trials/c/scripted/default/1/trial.json").read_bytes() == kept
    (run_dir / "trials/c/scripted/default/2/trial.json").unlink()
    os.utime(data, ns=(data.stat().st_atime_ns, data.stat().st_mtime_ns + 5_000_000_000))
    again = proctor("run", "--resume", str(run_dir))
    assert again.code == 2 and "cases[0].fixtureDigest" in again.err, again.err


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ("rename", "case 'b' of the run is now 'b2'"),
        ("rename-and-edit", "the run's case 'b' is gone; the source now holds 'b2' instead"),
        ("remove", "the run's case 'b' is gone"),
        ("add", "case 'd' is new in the source"),
        ("add-two", "cases 'd', 'e' are new in the source"),
    ],
)
def test_resume_refuses_cases_renamed_removed_or_added_naming_them(
    proctor: Run, tmp_path: Path, change: str, said: str
) -> None:
    """It said only `resolved.json differs at cases[1].case`."""
    cases = tmp_path / "cases"
    for name in ("a", "b", "c"):
        write_case(cases, name, prompt=f"Task {name}.", plan={"turns": [{"say": "hi"}]})
    done = proctor("run", "--source", str(cases), "--out", str(tmp_path / "out"))
    assert done.code == 0, done.err
    (run_dir,) = (tmp_path / "out").glob("run-*")
    (run_dir / "trials/a/scripted/default/1/trial.json").unlink()
    if change.startswith("rename"):
        (cases / "b").rename(cases / "b2")
        if change == "rename-and-edit":
            (cases / "b2" / "prompt.md").write_text("Another task.")
    elif change == "remove":
        shutil.rmtree(cases / "b")
    else:
        for name in ("d", "e") if change == "add-two" else ("d",):
            write_case(cases, name, plan={"turns": [{"say": "hi"}]})
    resumed = proctor("run", "--resume", str(run_dir))
    assert resumed.code == 2 and "Traceback" not in resumed.err, resumed.err
    assert f"the cases changed since the run started ({said}); start a new run" in resumed.err


def test_a_resume_refuses_other_options_naming_those_it_takes(proctor: Run, tmp_path: Path) -> None:
    """The refusal names every option a resume takes, --budget-usd and --retry-errors among
    them."""
    _, run_dir = started(proctor, tmp_path)
    refused = proctor("run", "--resume", str(run_dir), "--repeats", "3")
    assert refused.code == 2
    taken = (
        "(with --reporter, --json, --budget-usd, --retry-errors, --concurrency, "
        "--keep-workspace or --mirror at most; another would make the trials it runs unlike "
        "those it keeps)"
    )
    assert taken in refused.err, refused.err
    # ... and those given that it does not take, by name, as they were spelt.
    assert "configuration: drop --repeats; give it alone" in refused.err, refused.err
    refused = proctor("run", "--resume", str(run_dir), "--no-evaluate", "--agent", "x", "--json")
    assert refused.code == 2
    assert "drop --agent, --no-evaluate; give it alone" in refused.err, refused.err
    resumed = proctor("run", "--resume", str(run_dir), "--budget-usd", "5")
    assert resumed.code == 0, resumed.err


def test_a_resume_runs_its_trials_with_the_concurrency_given(proctor: Run, tmp_path: Path) -> None:
    """How many trials run at once changes no result: a resume given --concurrency runs its
    trials so (a bigger machine), where it was refused (`drop --concurrency`)."""
    cases = tmp_path / "cases"
    turns = {"turns": [{"shell": "sleep 2"}, {"say": "done"}]}
    write_case(cases, "c", config={"repeats": 2}, plan=turns)
    done = proctor("run", "--source", str(cases), "--out", str(tmp_path / "out"))
    assert done.code == 0, done.err
    (run_dir,) = (tmp_path / "out").glob("run-*")
    for repeat in (1, 2):
        (run_dir / f"trials/c/scripted/default/{repeat}/trial.json").unlink()
    resumed = proctor("run", "--resume", str(run_dir), "--concurrency", "2")
    assert resumed.code == 0 and "0 kept, 2 run now" in resumed.err, resumed.err
    times = [
        json.loads((run_dir / f"trials/c/scripted/default/{r}/trial.json").read_text())["timings"]
        for r in (1, 2)
    ]
    first, second = sorted(times, key=lambda t: t["startedAt"])
    assert second["startedAt"] < first["finishedAt"], times  # they ran together


def test_a_resume_keeps_the_workspaces_of_the_trials_it_runs_given_keep_workspace(
    proctor: Run, tmp_path: Path
) -> None:
    """--keep-workspace and --mirror change no trial's result (what is kept and shown of it)
    and were refused (`drop --keep-workspace`): the trials a resume runs keep their
    workspaces, passed ones too; those it keeps stay as they were."""
    cases = tmp_path / "cases"
    write_case(cases, "c", config={"repeats": 2}, plan={"turns": [{"say": "done"}]})
    done = proctor("run", "--source", str(cases), "--out", str(tmp_path / "out"))
    assert done.code == 0, done.err
    (run_dir,) = (tmp_path / "out").glob("run-*")
    trials = run_dir / "trials/c/scripted/default"
    assert not (trials / "1/workspace").exists()  # passed: not kept
    (trials / "2/trial.json").unlink()
    resumed = proctor("run", "--resume", str(run_dir), "--keep-workspace", "--mirror")
    assert resumed.code == 0 and "1 kept, 1 run now" in resumed.err, resumed.err
    assert (trials / "2/workspace").is_dir()
    assert not (trials / "1/workspace").exists()
    recorded = json.loads((run_dir / "resolved.json").read_text())
    assert recorded.get("keepWorkspace", False) is False  # the run's own, as it started


def test_a_resume_takes_an_option_given_its_default(proctor: Run, tmp_path: Path) -> None:
    """`--executor local`, `--source .` or `--collect-cost` change nothing and were taken by a
    resume, until every option given was refused; one given another value is still refused."""
    _, run_dir = started(proctor, tmp_path)
    same = ("--executor", "local", "--source", ".", "--collect-cost")
    resumed = proctor("run", "--resume", str(run_dir), *same)
    assert resumed.code == 0, resumed.err
    refused = proctor("run", "--resume", str(run_dir), "--executor", "local", "--no-collect-cost")
    assert refused.code == 2
    assert "configuration: drop --no-collect-cost; give it alone" in refused.err, refused.err


def test_a_resume_given_prompt_is_refused_before_it_writes_an_inline_case(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--resume RUN --prompt TEXT` is refused, naming --prompt, and leaves no inline case
    folder behind (it wrote proctor-results/inline/… before it was refused)."""
    _, run_dir = started(proctor, tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    refused = proctor("run", "--resume", str(run_dir), "--prompt", "Say hi.")
    assert refused.code == 2
    assert "configuration: drop --prompt; give it alone" in refused.err, refused.err
    assert list(work.iterdir()) == []


def test_the_refusal_names_the_case_whose_configuration_changed(
    proctor: Run, tmp_path: Path
) -> None:
    """It said `resolved.json differs at cases[1].configDigest`, leaving a suite of many cases
    to be counted through to find which one changed."""
    cases = tmp_path / "cases"
    for name in ("alpha", "beta"):
        write_case(cases, name, config={"env": {"MODE": "strict"}}, plan={"turns": [{"say": "hi"}]})
    done = proctor("run", "--source", str(cases), "--out", str(tmp_path / "out"))
    assert done.code == 0, done.err
    (run_dir,) = (tmp_path / "out").glob("run-*")
    (run_dir / "trials/beta/scripted/default/1/trial.json").unlink()
    edit_config(cases / "beta", env={"MODE": "lenient"})
    resumed = proctor("run", "--resume", str(run_dir))
    assert resumed.code == 2, resumed.err
    assert "differs at cases[1].configDigest (case 'beta'): the case's config.json" in resumed.err
