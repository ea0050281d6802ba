"""`proctor run --resume` of a run started with `--source ../suite` (or `--config ../c.json`)
once the folder it was started in is renamed: the run records its paths whole, so the resume
finds the suite; a run of an older proctor, which recorded them as given, resumes too when the
`..` climbs out of that folder, and is refused in a sentence naming the path otherwise."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import Run, write_case

REPEATS = 3


def started_in_sub(proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A run started in ``sub`` on ``../suite`` and ``../pc.json``, its last trial's record
    removed (left to resume), and ``sub`` renamed since."""
    write_case(
        tmp_path / "suite",
        "c",
        config={"repeats": REPEATS, "evaluators": [{"use": "file-exists", "must": ["a.txt"]}]},
        plan={"turns": [{"write": {"path": "a.txt", "content": "a\n"}}, {"say": "done"}]},
    )
    (tmp_path / "pc.json").write_text("{}")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    first = proctor("run", "--source", "../suite", "--config", "../pc.json", "--out", "../out")
    assert first.code == 0, first.err
    (run_dir,) = (tmp_path / "out").glob("run-*")
    (run_dir / f"trials/c/scripted/default/{REPEATS}/trial.json").unlink()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").rename(tmp_path / "sub2")
    return run_dir


def as_an_older_proctor_recorded(run_dir: Path, source: str, config: str) -> None:
    manifest = json.loads((run_dir / "run.json").read_text())
    (run_dir / "run.json").write_text(json.dumps({**manifest, "source": source}))
    record = json.loads((run_dir / "config.json").read_text())
    (run_dir / "config.json").write_text(json.dumps({**record, "configFile": config}))


def test_a_run_started_through_dotdot_resumes_once_its_folder_is_renamed(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = started_in_sub(proctor, tmp_path, monkeypatch)
    manifest = json.loads((run_dir / "run.json").read_text())
    assert manifest["source"] == os.path.realpath(tmp_path / "suite")
    assert manifest["cwd"] == os.path.realpath(tmp_path / "sub")
    config = json.loads((run_dir / "config.json").read_text())
    assert config["configFile"] == os.path.realpath(tmp_path / "pc.json")
    again = proctor("run", "--resume", str(run_dir))
    assert again.code == 0, again.err
    assert f"{REPEATS - 1} kept, 1 run now" in again.err


def test_a_run_recorded_as_an_older_proctor_did_resumes_when_dotdot_climbs_out_of_its_folder(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = started_in_sub(proctor, tmp_path, monkeypatch)
    as_an_older_proctor_recorded(run_dir, "../suite", "../pc.json")
    again = proctor("run", "--resume", str(run_dir))
    assert again.code == 0, again.err
    assert f"{REPEATS - 1} kept, 1 run now" in again.err


def test_a_dotdot_after_another_folder_that_is_gone_is_refused_naming_the_path(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`gone` may have been a link: its `..` named a folder proctor cannot tell."""
    run_dir = started_in_sub(proctor, tmp_path, monkeypatch)
    recorded = str(tmp_path / "gone" / ".." / "suite")
    as_an_older_proctor_recorded(run_dir, recorded, str(tmp_path / "pc.json"))
    again = proctor("run", "--resume", str(run_dir))
    assert again.code == 2 and "Traceback" not in again.err
    assert f"the run's --source is recorded as {recorded}, whose '..' climbs out of " in again.err
    assert f"{tmp_path / 'gone'}, a folder that is gone" in again.err
    assert f"Put {tmp_path / 'gone'} back" in again.err and "start a new run" in again.err
    assert not (run_dir / f"trials/c/scripted/default/{REPEATS}/trial.json").exists()


@pytest.mark.parametrize("moved", ["suite", "pc.json"])
def test_a_source_or_config_moved_since_is_refused_naming_the_recorded_path(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, moved: str
) -> None:
    """A resume takes no --source or --config: the sentence names where the run read them
    and says to put them back, not an option the resume refuses."""
    run_dir = started_in_sub(proctor, tmp_path, monkeypatch)
    (tmp_path / moved).rename(tmp_path / f"{moved}.moved")
    again = proctor("run", "--resume", str(run_dir))
    assert again.code == 2 and "Traceback" not in again.err
    option = "--source" if moved == "suite" else "--config"
    recorded = os.path.realpath(tmp_path / moved)
    assert f"the run's {option}, {recorded}, is gone (moved or removed since" in again.err
    assert "put it back there and resume again, or start a new run" in again.err
    assert not (run_dir / f"trials/c/scripted/default/{REPEATS}/trial.json").exists()


def test_a_folder_inside_a_run_is_refused_naming_the_run(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = started_in_sub(proctor, tmp_path, monkeypatch)
    for inside in (run_dir / "trials", run_dir / "trials/c/scripted/default/1"):
        again = proctor("run", "--resume", str(inside))
        assert again.code == 2, again.err
        assert f"a folder inside the run {run_dir}; name the run folder" in again.err
