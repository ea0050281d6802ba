"""The Python API: the worked example of docs/api.md runs as written, and the functions behave
as the CLI does."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import proctor
from proctor.session.request import RunRequest

ROOT = Path(__file__).parents[2]
EXAMPLES = ROOT / "examples" / "cases"


def test_the_worked_example_in_the_docs_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = (ROOT / "docs" / "api.md").read_text()
    example = re.search(r"## A worked example.*?```python\n(.*?)```", doc, re.S)
    assert example is not None
    shutil.copytree(
        ROOT / "examples" / "cases" / "fix-a-bug", tmp_path / "examples/cases/fix-a-bug"
    )
    monkeypatch.chdir(tmp_path)
    exec(compile(example.group(1), "docs/api.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "0 1.0"
    assert printed[4] == "['json', 'junit', 'markdown']"
    assert printed[5] == "0"
    assert printed[6] == "['shell', 'search', 'read', 'edit', 'shell']"
    assert (tmp_path / "api-results").is_dir()


def test_a_configuration_error_raises_the_cli_sentence(tmp_path: Path) -> None:
    with pytest.raises(proctor.ConfigError, match="no such file or directory"):
        proctor.run(tmp_path / "missing")
    with pytest.raises(proctor.ConfigError, match="unknown reporter"):
        proctor.run(tmp_path, reporters=["pdf"])
    with pytest.raises(proctor.ConfigError, match=r"proctor.run\(\): argument 'timeout'"):
        proctor.run(tmp_path, timeout=1e9)  # a time limit past a day, as the CLI refuses it
    with pytest.raises(proctor.ConfigError, match="argument 'concurrency'"):
        proctor.run(tmp_path, concurrency=0)
    with pytest.raises(proctor.ConfigError, match="argument 'repeats': expected greater"):
        proctor.run(tmp_path, repeats=0)
    with pytest.raises(proctor.ConfigError, match="'repeat'; did you mean 'repeats'"):
        proctor.run(tmp_path, repeat=3)
    # The CliOverrides field `run` takes as `timeout` was taken too, and won over `timeout`.
    with pytest.raises(proctor.ConfigError, match="'timeout_sec'; did you mean 'timeout'"):
        proctor.run(tmp_path, timeout=60, timeout_sec=5)


@pytest.mark.parametrize(
    ("executor", "address", "said"),
    [
        ("bogus", None, "executor='bogus': expected one of 'local', 'ray'"),
        ("RAY", None, "executor='RAY'"),
        ("local", "127.0.0.1:1", "ray_address names a Ray cluster: give executor='ray' too"),
    ],
)
def test_a_bad_executor_is_a_sentence_and_makes_no_run_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, executor: Any, address: Any, said: str
) -> None:
    """It raised a KeyError (or a TypeError) after making a run folder that stayed behind,
    unfinished."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(proctor.ConfigError, match=re.escape(said)):
        proctor.run(EXAMPLES, executor=executor, ray_address=address)
    assert not list(tmp_path.rglob("run-*"))


def test_parse_transcript_forces_a_format_by_agent_id() -> None:
    fixture = ROOT / "tests/fixtures/transcripts/codex"
    trajectory = proctor.parse_transcript(next(fixture.glob("rollout-2026-*.jsonl")), agent="codex")
    assert trajectory.format == "codex" and trajectory.usage


_LEAKY_RUN = """
import json, sys
import proctor
from proctor.session.request import RunRequest
result = proctor.run("cases", out="out", reporters=["json", "markdown"])
print(json.dumps([result.exit_code, [r.reason for r in result.records]]))
"""


def test_run_masks_every_key_of_the_environment_and_dotenv(tmp_path: Path) -> None:
    """As `proctor run` (tests/integration/test_safety.py): the scripted agent is lent no key,
    and a key of the environment or ./.env that it prints is masked in every file the run
    writes and in what it returns. In a process of its own: a key registered for masking by an
    earlier test in this one would hide a run that registers none."""
    env_key, dotenv_key = "sk-ant-api03-APIPLANTEDenv1111", "sk-proj-APIPLANTEDdotenv2222"
    case = tmp_path / "cases" / "leaky"
    case.mkdir(parents=True)
    (case / "prompt.md").write_text(f"Use {env_key} and {dotenv_key}.\n")
    check = {"use": "command", "label": "leaks", "run": "cat out.txt; exit 1"}
    (case / "config.json").write_text(json.dumps({"evaluators": [check]}))
    shell = f"echo {env_key} {dotenv_key} > out.txt; cat out.txt"
    (case / "plan.json").write_text(json.dumps({"turns": [{"shell": shell}]}))
    (tmp_path / ".env").write_text(f"OPENAI_API_KEY={dotenv_key}\n")
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    env |= {"ANTHROPIC_API_KEY": env_key, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, "-c", _LEAKY_RUN], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    code, reasons = json.loads(done.stdout.splitlines()[-1])
    assert code == 1 and reasons
    written = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert any(p.name == "trajectory.jsonl" for p in written)
    for key in (env_key, dotenv_key):
        assert key not in done.stdout + done.stderr
        for path in written:
            assert key not in path.read_text(errors="replace"), f"{key} in {path}"


def test_one_name_as_a_string_is_a_list_of_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """cases="fix-a-bug" was read as its letters (`--case f, i, x, …: no case matches`)."""
    result = proctor.run(
        ROOT / "examples" / "cases", cases="fix-a-bug", out=tmp_path / "out", reporters="junit"
    )
    assert result.exit_code == 0 and {r.case for r in result.records} == {"fix-a-bug"}
    assert sorted(result.outputs) == ["json", "junit", "markdown"]  # json and markdown always
    seen: list[RunRequest] = []  # what the other keywords become, without a run
    monkeypatch.setattr("proctor.api.run_session", lambda request, subs: seen.append(request))
    proctor.run(tmp_path, agents="scripted", tags="ab", conditions="baseline", reporters="json")
    (request,) = seen
    overrides = request.overrides
    assert (overrides.agents, overrides.tags, overrides.conditions) == (
        ["scripted"],
        ["ab"],
        ["baseline"],
    )
    assert request.reporters == ("json",)
    with pytest.raises(TypeError, match="argument 'cases': expected a name or a list"):
        proctor.run(tmp_path, cases=5)  # type: ignore[arg-type]


def test_parse_transcript_of_a_folder_reads_the_session_proctor_parse_shows(
    tmp_path: Path,
) -> None:
    """``proctor parse FOLDER`` shows the newest session as ``proctor history`` lists them;
    ``parse_transcript`` read the newest file of any kind: a Codex subagent's thread, a Claude
    Code file holding a title alone, and no session at all in a folder of project folders."""
    fixtures = ROOT / "tests/fixtures/transcripts"
    home = tmp_path / ".codex" / "sessions" / "2026" / "12" / "02"
    home.mkdir(parents=True)
    for rollout in (fixtures / "codex" / "threads" / "spawn").glob("rollout-*.jsonl"):
        (home / rollout.name).write_bytes(rollout.read_bytes())
    parent = home / "rollout-2026-12-02T18-46-40-01a23814-8c07-7ed2-a026-1df397406950.jsonl"
    os.utime(parent, (1_000_000_000, 1_000_000_000))  # the thread is the newest file
    codex = proctor.parse_transcript(tmp_path / ".codex")
    assert codex.session_id == "01a23814-8c07-7ed2-a026-1df397406950"
    project = tmp_path / ".claude" / "projects" / "-w"
    project.mkdir(parents=True)
    main = fixtures / "claude" / "7f3c2a10-0000-4000-8000-000000000001.jsonl"
    session = project / main.name
    session.write_bytes(main.read_bytes())
    os.utime(session, (1_000_000_000, 1_000_000_000))
    title = project / "d0000000-0000-4000-8000-0000000000aa.jsonl"
    title.write_text('{"type":"summary","summary":"Fix a bug","leafUuid":"x"}\n')
    assert proctor.parse_transcript(project).session_id == main.stem
    below = proctor.parse_transcript(tmp_path / ".claude" / "projects")  # a folder of folders
    assert below.session_id == main.stem


def test_wrong_argument_types_and_paths_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pathlib's TypeError named no argument ("expected str, bytes or os.PathLike object, not
    int"), and a run folder that does not exist was "no trial.json found; is this a run
    folder?"."""
    for call, said in [
        (lambda: proctor.parse_transcript(5), "proctor.parse_transcript(): argument 'path'"),
        (lambda: proctor.parse_transcript(b"x.jsonl"), "argument 'path': expected a path"),
        (lambda: proctor.parse_transcript("x", agent=3), "argument 'agent'"),
        (lambda: proctor.load_run(None), "proctor.load_run(): argument 'path'"),
        (lambda: proctor.recompute_run(tmp_path, config=1), "argument 'config'"),
        (lambda: proctor.run(None), "proctor.run(): argument 'source'"),
        (lambda: proctor.run(EXAMPLES, subscribers=5), "argument 'subscribers'"),
    ]:
        with pytest.raises(TypeError, match=re.escape(said)):
            call()
    with pytest.raises(proctor.ConfigError, match="no such run folder"):
        proctor.load_run(tmp_path / "nope")
    home = tmp_path / "home"
    shutil.copytree(ROOT / "tests/fixtures/results-v1/example-suite", home / "run")
    monkeypatch.setenv("HOME", str(home))
    # "~/run" is the run in the home folder, as parse_transcript reads "~/.codex".
    assert len(proctor.load_run("~/run").records) == 17
    assert proctor.recompute_run("~/run").exit_code == 1
    (tmp_path / "file").write_text("x")
    with pytest.raises(proctor.ConfigError, match="a file, not a run folder"):
        proctor.recompute_run(tmp_path / "file")
