"""The viewer's pages over a real run of the scripted agent (Starlette's TestClient)."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from proctor.view import ViewSettings, build_app
from proctor.view.synthetic import XSS, write_planted_run, write_run, write_trajectory_lines
from tests.conftest import MakeCase, Run

EXAMPLES = Path(__file__).parents[2] / "examples" / "cases"


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real run of two example cases (find-the-bug has two conditions) and a planted one."""
    out = tmp_path_factory.mktemp("results")
    env = {**os.environ, "HOME": str(out.parent / "home")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "proctor",
            "run",
            "--source",
            str(EXAMPLES),
            "--case",
            "fix-a-bug",
            "--case",
            "find-the-bug",
            "--case",
            "wrong-fix",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr  # wrong-fix fails its gate on purpose
    write_planted_run(out, "run-20261201T000000Z-planted")
    return out


@pytest.fixture(scope="module")
def client(results: Path) -> Iterator[TestClient]:
    with TestClient(build_app(ViewSettings(results=results))) as c:
        yield c


def _real_run(results: Path) -> str:
    return next(p.name for p in sorted(results.glob("run-*")) if "planted" not in p.name)


def test_runs_page_lists_every_run_newest_first(client: TestClient, results: Path) -> None:
    page = client.get("/")
    assert page.status_code == 200
    real = _real_run(results)
    assert page.text.index(real) < page.text.index("run-20261201T000000Z-planted")
    assert "script-src 'self'" in page.headers["content-security-policy"]


@pytest.mark.parametrize(
    ("query", "shown"),
    [
        ("case=fix-a-bug", True),
        ("case=no-such-case", False),
        ("status=failed", True),
        ("agent=codex", False),
        ("tag=synthetic", False),
        ("q=examples", True),
        ("q=zzz", False),
        ("q=-", True),  # the run names hold dashes
        ("q=%25", False),  # a % typed is a %, not a wildcard
        ("q=_", False),
        ("q=%5C", False),
    ],
)
def test_runs_page_filters(client: TestClient, results: Path, query: str, shown: bool) -> None:
    assert (_real_run(results) in client.get(f"/?{query}").text) is shown


def test_run_page_shows_the_matrix_gate_ab_and_figures(client: TestClient, results: Path) -> None:
    run = _real_run(results)
    page = client.get(f"/runs/{run}").text
    for text in (
        "fix-a-bug",
        "find-the-bug",
        "with-skill",
        "baseline",
        "A/B: with-skill vs baseline",
        "pass@1",
        "minPassRate",
        'id="figures-data"',
        "/static/chart.umd.min.js",
    ):
        assert text in page, text
    assert re.search(r'class="outcome-fail"[^>]*data-case="wrong-fix"', page)
    filtered = client.get(f"/runs/{run}?condition=with-skill").text
    assert 'data-case="find-the-bug"' in filtered and 'data-case="fix-a-bug"' not in filtered


def test_trial_page_shows_calls_beside_results_the_diff_and_the_terminal(
    client: TestClient, results: Path
) -> None:
    run = _real_run(results)
    page = client.get(f"/runs/{run}/trials/fix-a-bug/scripted/default/1")
    assert page.status_code == 200
    text = page.text
    assert 'class="tool-input"' in text and "python3 -m unittest" in text
    assert "FAILED (failures=1)" in text  # the first call's result, beside it
    assert '<span class="gi">+    return a + b</span>' in text  # the diff, coloured
    assert 'id="terminal"' in text and "step 0" in text
    unverified = re.search(r"<td>unverified</td>.*?</tr>", text)
    assert unverified and "?step=" in unverified.group(0)  # a rule row links its steps
    raw = client.get(f"/runs/{run}/trials/fix-a-bug/scripted/default/1/raw")
    assert raw.status_code == 200 and "page 1 of 1" in raw.text


def test_a_step_link_opens_the_page_holding_that_step(tmp_path: Path) -> None:
    paths = write_run(tmp_path, "run-big", trials=1, cases=1, events_per_trial=1000)
    key = "case-000/scripted/default/1"
    with TestClient(build_app(ViewSettings(results=tmp_path, page_size=100))) as c:
        first = c.get(f"/runs/run-big/trials/{key}").text
        assert "page 1 of 10" in first and 'rel="next"' in first
        step = c.get(f"/runs/run-big/trials/{key}?step=200").text  # the 201st call: line 801
        assert "page 9 of 10" in step and 'id="step-200"' in step
        assert c.get(f"/runs/run-big/trials/{key}?page=10").text.count('class="event ') > 0
    assert paths.root.is_dir()


def test_a_trajectory_rewritten_in_place_shows_its_new_events(tmp_path: Path) -> None:
    paths = write_run(tmp_path, "run-r", trials=1, cases=1, events_per_trial=8)
    key = "case-000/scripted/default/1"
    trajectory = paths.trial("case-000", "scripted", "default", 1).trajectory
    inode = trajectory.stat().st_ino
    with TestClient(build_app(ViewSettings(results=tmp_path, page_size=4))) as c:
        assert "page 1 of 2" in c.get(f"/runs/run-r/trials/{key}").text  # offsets scanned
        write_trajectory_lines(trajectory, 12, text="rewritten")  # open("w"): same inode
        assert trajectory.stat().st_ino == inode
        last = c.get(f"/runs/run-r/trials/{key}?page=3").text
    assert "page 3 of 3" in last
    events = re.findall(r'class="event event-([a-z_]+)"', last)
    assert events == ["user_message", "tool_call", "assistant_text"]  # events 9 to 12
    assert "rewritten" in last and "message 8" not in last


def test_files_are_plain_text_and_confined(client: TestClient, results: Path) -> None:
    run = _real_run(results)
    diff = client.get(f"/runs/{run}/files/trials/fix-a-bug/scripted/default/1/workspace.diff")
    assert diff.status_code == 200 and diff.headers["content-type"].startswith("text/plain")
    assert "return a + b" in diff.text
    for bad in (
        "trials/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/run.json",
        "%2fetc%2fpasswd",
        "trials/fix-a-bug/scripted/default/1/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/x",
    ):
        assert client.get(f"/runs/{run}/files/{bad}").status_code == 404, bad
    assert client.get("/runs/no-such-run").status_code == 404
    assert client.get(f"/runs/{run}/trials/a/b/c/9").status_code == 404
    # A page typed short is the viewer's "Not here" page, as a run there is not, not
    # Starlette's bare "Not Found"; the API's stay JSON.
    for short in ("/runs", f"/runs/{run}/trials", f"/runs/{run}/trials/fix-a-bug/scripted"):
        page = client.get(short)
        assert page.status_code == 404 and "<h1>Not here</h1>" in page.text, short
        assert f"the page {short} was not found" in page.text
    assert client.get("/api/nope").json() == {"error": "no API endpoint /api/nope"}


def test_planted_markup_stays_text_on_every_page(client: TestClient) -> None:
    run = "run-20261201T000000Z-planted"
    trial = f"/runs/{run}/trials/case-000/scripted/default/1"
    pages = [client.get(u) for u in ("/", f"/runs/{run}", trial, f"{trial}/raw", "/compare")]
    for page in pages:
        assert page.status_code == 200
        assert "<script>window.__pwned" not in page.text and "<img src=x" not in page.text
    trial_page = pages[2].text
    assert trial_page.count("&lt;script&gt;window.__pwned") >= 4  # prompt, tool, diff, screen
    assert "\\x1b[31m" in trial_page  # the terminal escape, shown
    assert "&lt;img src=x onerror=" in trial_page and ".txt" in trial_page  # the file name
    name = next(n for n in os.listdir(_trial_dir(client, run)) if n.endswith(".txt"))
    served = client.get(f"/runs/{run}/files/trials/case-000/scripted/default/1/{name}")
    assert served.headers["content-type"].startswith("text/plain") and served.text == XSS


def _trial_dir(client: TestClient, run: str) -> Path:
    return client.app.state.settings.results / run / "trials/case-000/scripted/default/1"  # type: ignore[attr-defined]


def test_compare_two_runs_and_two_conditions(client: TestClient, results: Path) -> None:
    run = _real_run(results)
    runs = client.get(f"/compare?a={run}&b={run}").text
    assert 'id="compare-table"' in runs and "unchanged" in runs
    # The same run on both sides is said, as `proctor compare` says it.
    assert f"{run} is both the baseline and the candidate run" in runs
    conditions = client.get(f"/compare?run={run}").text
    assert "with-skill against baseline" in conditions
    refused = client.get(f"/compare?run={run}&treatment=nope").text
    assert 'id="compare-error"' in refused and "nope" in refused


def test_compare_two_runs_offers_the_newest_against_the_one_before(
    client: TestClient, results: Path
) -> None:
    """Opened with no run chosen, the form's baseline is the second newest run and its candidate
    the newest (it offered the newest against itself)."""
    page = client.get("/compare").text

    def chosen(name: str) -> str:
        select = re.search(rf'<select name="{name}">(.*?)</select>', page, re.S)
        assert select is not None
        found = re.search(r'<option value="([^"]*)" selected>', select.group(1))
        return found.group(1) if found else "(the first)"

    assert chosen("a") == "run-20261201T000000Z-planted"
    assert chosen("b") in ("(the first)", _real_run(results))


def test_live_fragments_and_progress(client: TestClient, results: Path) -> None:
    assert client.get("/fragments/runs").status_code == 200
    run = _real_run(results)
    fragment = client.get(f"/fragments/runs/{run}").text
    assert 'data-done="1"' in fragment and 'id="trial-list"' in fragment
    progress = {r["run"]: r for r in client.get("/api/runs").json()}
    assert progress[run]["inProgress"] is False and progress[run]["trials"] == 9


def test_a_registered_key_is_never_shown(
    client: TestClient, results: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from proctor.util import masking
    from proctor.util.masking import register_secret

    # This process's secrets only: one an earlier test registered (a part of this key) would
    # mask the planted key before the control sees it.
    monkeypatch.setattr(masking, "_SECRETS", set())
    key = "sk-viewer-test-0123456789abcdef"
    run = "run-20261201T000000Z-planted"
    (_trial_dir(client, run) / "stdout.log").write_text(f"token {key} leaked\n")
    url = f"/runs/{run}/files/trials/case-000/scripted/default/1/stdout.log"
    assert key in client.get(url).text  # control: the planted key is there
    register_secret(key)  # as the viewer does for the keys in its environment and .env
    assert client.get(url).text == "token *** leaked\n"
    page = client.get(f"/runs/{run}/trials/case-000/scripted/default/1").text
    assert key not in page


def test_the_trial_page_shows_the_audit_of_the_scratch_home(tmp_path: Path, results: Path) -> None:
    import json
    import shutil

    run = _real_run(results)
    copy = tmp_path / "results" / run
    shutil.copytree(results / run, copy)
    trial = copy / "trials/fix-a-bug/scripted/default/1/trial.json"
    data = json.loads(trial.read_text())
    data["audit"] = {
        "home": "/scratch/home",
        "agents": [
            {
                "agent": "claude-code",
                "components": [
                    {
                        "kind": "skill",
                        "name": "tdd",
                        "file": "/scratch/home/.claude/skills/tdd/SKILL.md",
                    },
                    {
                        "kind": "plugin",
                        "name": "<b>x</b>",
                        "file": "p.json",
                        "enabled": False,
                        "decoy": "a disabled plugin",
                    },
                ],
            }
        ],
    }
    trial.write_text(json.dumps(data))
    with TestClient(build_app(ViewSettings(results=tmp_path / "results"))) as c:
        text = c.get(f"/runs/{run}/trials/fix-a-bug/scripted/default/1").text
    assert "Installed components" in text and "/scratch/home/.claude/skills/tdd/SKILL.md" in text
    assert "decoy: a disabled plugin" in text and "<b>x</b>" not in text  # escaped
    with TestClient(build_app(ViewSettings(results=results))) as c:  # control: no audit, no section
        plain = c.get(f"/runs/{run}/trials/fix-a-bug/scripted/default/1").text
    assert "Installed components" not in plain


def test_compare_reads_a_run_once_until_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import proctor.view.routes.compare as compare_route
    from proctor.models.io import read_record, write_record
    from proctor.models.trial import TrialRecord

    name = "run-20261201T000000Z-compare"
    paths = write_run(tmp_path, name, trials=8, cases=2, conditions=("a", "b"))
    reads: list[Path] = []
    real = compare_route.load_records

    def counted(folder: Path) -> list[object]:
        reads.append(folder)
        return real(folder)

    monkeypatch.setattr(compare_route, "load_records", counted)
    with TestClient(build_app(ViewSettings(results=tmp_path))) as c:
        first = c.get(f"/compare?run={name}&treatment=b&baseline=a").text
        assert c.get(f"/compare?run={name}&treatment=b&baseline=a").text == first
        assert len(reads) == 1  # the second request used the records read by the first
        trial = next(paths.root.glob("trials/*/*/*/*/trial.json"))
        record = read_record(trial, TrialRecord)
        write_record(trial, record.model_copy(update={"reason": "rewritten"}))
        os.utime(paths.trials_dir, ns=(1, 1))  # the run changed, as a trial finishing shows
        c.app.state.index.refresh(force=True)
        c.get(f"/compare?run={name}&treatment=b&baseline=a")
        assert len(reads) == 2  # a trial changed: read again


def test_an_internal_error_carries_the_security_headers_too(tmp_path: Path) -> None:
    """Whatever fails inside, the 500 is served with the same headers as every page."""
    from starlette.routing import Route

    app = build_app(ViewSettings(results=tmp_path))

    def broken(request: object) -> None:
        raise RuntimeError("a bug")

    app.router.routes.append(Route("/broken", broken))
    with TestClient(app, raise_server_exceptions=False) as c:
        page = c.get("/broken")
    assert page.status_code == 500
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-content-type-options"] == "nosniff"
    assert "a bug" not in page.text  # no traceback served


def test_a_run_started_after_the_last_refresh_opens_at_once(tmp_path: Path) -> None:
    """A run's page opened right after the run began (its URL printed by ``proctor run``) is
    shown, not a 404 until the index's next timed refresh."""
    from proctor.view.synthetic import write_run

    out = tmp_path / "results"
    write_run(out, "run-20261202T000000Z-first", trials=1, cases=1)
    with TestClient(build_app(ViewSettings(results=out))) as c:
        c.app.state.index.refresh(force=True)  # just refreshed: the next one is a second away
        fresh = write_run(out, "run-20261202T000001Z-fresh", trials=1, cases=1, finished=False)
        page = c.get(f"/runs/{fresh.root.name}")
        assert page.status_code == 200 and 'id="run-progress"' in page.text
        assert c.get(f"/fragments/runs/{fresh.root.name}").status_code == 200
        assert c.get("/runs/run-20261202T000002Z-none").status_code == 404  # the control


def test_a_raw_transcript_line_of_megabytes_is_shown_cut_with_the_whole_file_linked(
    tmp_path: Path,
) -> None:
    from proctor.paths import TrialPaths

    write_run(tmp_path, "run-raw", trials=1, cases=1, events_per_trial=3)
    folder = tmp_path / "run-raw/trials/case-000/scripted/default/1"
    raw = TrialPaths(folder).raw_transcript
    raw.write_text('{"type":"user"}\n{"output":"' + "x" * 3_000_000 + '"}\n{"type":"end"}\n')
    key = "case-000/scripted/default/1"
    with TestClient(build_app(ViewSettings(results=tmp_path))) as c:
        page = c.get(f"/runs/run-raw/trials/{key}/raw")
        assert page.status_code == 200 and len(page.text) < 100_000
        assert "more bytes not shown" in page.text and "&#34;type&#34;:&#34;end&#34;" in page.text
        whole = re.search(r'href="([^"]+)">the whole file', page.text)
        assert whole and c.get(whole.group(1)).status_code == 200


def test_a_trajectory_line_of_megabytes_written_by_hand_is_shown_cut(tmp_path: Path) -> None:
    """proctor caps its trajectory lines; one written by another hand (30 MB of a tool's
    output) is shown as its first 20,000 bytes, not a page of 30 MB."""
    paths = write_run(tmp_path, "run-huge", trials=1, cases=1, events_per_trial=3)
    key = "case-000/scripted/default/1"
    trajectory = tmp_path / "run-huge/trials" / key / "trajectory.jsonl"
    huge = {"type": "tool_result", "id": "x", "output": "Z" * 3_000_000}
    with trajectory.open("a") as fh:
        fh.write(json.dumps(huge) + "\n")
    with TestClient(build_app(ViewSettings(results=tmp_path))) as c:
        page = c.get(f"/runs/run-huge/trials/{key}")
        assert page.status_code == 200 and len(page.text) < 200_000
        assert "more characters not shown" in page.text
    assert paths


def test_proctor_s_own_long_lines_stay_events_with_their_steps_counted() -> None:
    """A tool output cut at the parsers' cap, or a file written whole, makes a line longer than
    a page shows: it stays an event beside its call, cut for the page, and the calls after it
    keep their step numbers (the metrics' links point at them)."""
    from proctor.models.trajectory import OUTPUT_CAP, ToolCall, ToolResult
    from proctor.view.timeline import build_steps

    out = ("é" * 3000 + "line\n" * 4000)[:OUTPUT_CAP]
    events = [
        ToolCall(id="c1", name="Bash", kind="shell", input={"command": "pytest"}),
        ToolResult(id="c1", output=out, is_error=False),
        ToolCall(id="c2", name="Write", kind="write", input={"content": "x = 1\n" * 40_000}),
        ToolCall(id="c3", name="Bash", kind="shell", input={"command": "ls"}),
    ]
    lines = [e.model_dump_json(by_alias=True, exclude_none=True).encode() for e in events]
    assert len(lines[1]) > 20_000 and len(lines[2]) > 20_000
    steps = build_steps(lines, 0, 0)
    assert [(s.number, s.kind, s.tool_index) for s in steps] == [
        (0, "tool_call", 0), (2, "tool_call", 1), (3, "tool_call", 2),
    ]  # fmt: skip
    assert steps[0].result is not None and steps[0].result.output == out  # under the cut
    written = steps[1].event.input["content"]  # type: ignore[union-attr]
    assert written.endswith("more characters not shown]") and len(written) < 21_000


def test_compare_counts_a_trial_gone_from_a_finished_run_as_the_run_page_does(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix", config={"repeats": 3}, plan={"turns": [{"say": "hi"}]})
    out = tmp_path / "out"
    for _ in range(2):
        assert proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out)).code == 0
    before, after = sorted(out.glob("run-*"))
    (after / "trials/fix/scripted/default/2/trial.json").unlink()
    with TestClient(build_app(ViewSettings(results=out))) as c:
        page = c.get(f"/compare?a={before.name}&b={after.name}").text
    assert re.search(r">3/3</a></td>\s*<td[^>]*><a [^>]*>2/2</a> \(\+1 error\)", page), page


def test_the_runs_search_finds_a_case_by_its_name_as_written(tmp_path: Path) -> None:
    """A case named in another script than ASCII, or holding a quote, is found by the text of its
    name (the runs' cases are kept as JSON, where ``ü`` is ``\\u00fc`` and ``"`` is ``\\"``)."""
    results = tmp_path / "results"
    paths = write_run(results, "run-a", trials=1, cases=1)
    trials = paths.root / "trials"
    name = 'ünïcødé-修复-"q"'
    (trials / "case-000").rename(trials / name)
    record = trials / name / "scripted" / "default" / "1" / "trial.json"
    record.write_text(json.dumps({**json.loads(record.read_text()), "case": name}))
    with TestClient(build_app(ViewSettings(results=results))) as client:
        for text, shown in (("ünïc", True), ("修复", True), ('-"q"', True), ("u00fc", False)):
            page = client.get("/", params={"q": text}).text
            assert ('data-run="run-a"' in page) is shown, text


def test_compare_over_a_folder_of_no_run_says_so(tmp_path: Path) -> None:
    (tmp_path / "results").mkdir()
    with TestClient(build_app(ViewSettings(results=tmp_path / "results"))) as client:
        page = client.get("/compare").text
    assert 'id="compare-empty"' in page and "no run in this folder yet" in page


def test_a_count_of_one_is_said_in_the_singular(tmp_path: Path) -> None:
    """Compare said "1 scored trials on the smaller side" and "(+1 errors)", the trial page
    "Trajectory (1 events)" and its raw transcript "(1 lines)"."""
    results = tmp_path / "results"
    for name in ("run-a", "run-b"):
        write_run(results, name, trials=1, cases=1, events_per_trial=1)
    trial = "/runs/run-b/trials/case-000/scripted/default/1"
    (results / "run-b" / "trials/case-000/scripted/default/1/raw-transcript.jsonl").write_text(
        "{}\n"
    )
    with TestClient(build_app(ViewSettings(results=results))) as client:
        compared = client.get("/compare?a=run-a&b=run-b").text
        page = client.get(trial).text
        raw = client.get(f"{trial}/raw").text
    # (a group too small to judge says it in the words of `proctor compare`)
    assert "fewer than 3 scored trials: no claim" in compared and "1 scored trials" not in compared
    assert "Trajectory (1 event)" in page
    assert "Raw transcript (1 line)" in raw


def test_compare_its_conditions_offers_only_runs_of_two_conditions(tmp_path: Path) -> None:
    """The newest run had one condition, and the form chose it: pressing "compare its
    conditions" said the run has fewer than two. The form offers the runs of two conditions
    or more, the newest first; with none, it says so in place of the button."""
    results = tmp_path / "results"
    write_run(results, "run-20261201T000000Z-ab", trials=4, cases=1, conditions=("a", "b"))
    write_run(results, "run-20261202T000000Z-one", trials=2, cases=1)
    with TestClient(build_app(ViewSettings(results=results))) as client:
        page = client.get("/compare").text
        form = page[page.index('id="compare-conditions"') :]
        form = form[form.index('<select name="run">') :]
        offered = re.findall(r'<option value="([^"]+)"', form[: form.index("</select>")])
        assert offered == ["run-20261201T000000Z-ab"]
        pressed = client.get(f"/compare?run={offered[0]}").text
        assert 'id="compare-table"' in pressed and 'id="compare-error"' not in pressed
        # A run of one condition named in the address is not offered either: the page says
        # it has nothing to compare within it.
        asked = client.get("/compare?run=run-20261202T000000Z-one").text
        assert 'id="compare-single"' in asked and 'id="compare-error"' not in asked
        assert (
            '<option value="run-20261202T000000Z-one"' not in asked.split("compare-conditions")[1]
        )
    lone = tmp_path / "lone"
    write_run(lone, "run-20261202T000000Z-one", trials=2, cases=1)
    with TestClient(build_app(ViewSettings(results=lone))) as client:
        page = client.get("/compare").text
    assert "No run here has two conditions or more to compare" in page
    assert "compare its conditions</button>" not in page


def test_compare_and_the_ab_panel_say_no_claim_where_the_data_are_too_few(
    tmp_path: Path,
) -> None:
    """A verdict withheld reads "no claim", as the Markdown report says it; the JSON's word
    (``insufficient-data``) stays in the class the page is styled by and never shows."""
    shown = re.compile(r">[^<]*insufficient-data")
    for name in ("run-a", "run-b"):
        write_run(tmp_path, name, trials=1, cases=1, events_per_trial=1)
    write_run(tmp_path, "run-ab", trials=2, cases=1, conditions=("a", "b"))
    with TestClient(build_app(ViewSettings(results=tmp_path))) as c:
        compared = c.get("/compare?a=run-a&b=run-b").text
        conditions = c.get("/compare?run=run-ab&treatment=b&baseline=a").text
        panel = c.get("/runs/run-ab").text
    assert '<span class="verdict-insufficient-data">no claim 1</span>' in compared
    assert 'class="short verdict-insufficient-data">no claim</td>' in compared
    assert 'class="short verdict-insufficient-data">no claim</td>' in conditions
    ab = panel[panel.index('<section id="ab">') :]
    ab = ab[: ab.index("</section>")]
    assert (
        "fewer than 3 pairs: no claim</td>" in ab
        and '"verdict-insufficient-data">no claim</td>' in ab
    )
    for page in (compared, conditions, ab):
        assert not shown.search(page), shown.search(page)


def test_compare_withholds_a_verdict_in_the_words_of_proctor_compare(tmp_path: Path) -> None:
    """A group too small to judge read "1 scored trial on the smaller side: fewer than 3
    samples, no claim." on the Compare page, where ``proctor compare`` says "fewer than 3
    scored trials: no claim"; so did a case of two conditions, and the Run page's A/B panel,
    against "fewer than 3 complete pairs: no claim"."""
    from proctor.report.ab.markdown import render_ab_markdown, render_runs_markdown
    from proctor.report.ab.runs import compare_runs
    from proctor.report.trial_records import load_records

    for name in ("run-a", "run-b"):
        write_run(tmp_path, name, trials=1, cases=1, events_per_trial=1)
    write_run(tmp_path, "run-ab", trials=2, cases=1, conditions=("a", "b"))
    with TestClient(build_app(ViewSettings(results=tmp_path))) as c:
        compared = c.get("/compare?a=run-a&b=run-b").text
        conditions = c.get("/compare?run=run-ab&treatment=b&baseline=a").text
        panel = c.get("/runs/run-ab").text
    cli = render_runs_markdown(
        compare_runs(load_records(tmp_path / "run-a"), load_records(tmp_path / "run-b"))
    )
    said = "fewer than 3 scored trials: no claim"
    assert f"| {said} |" in cli
    assert f'<td data-label="note" class="small">{said}</td>' in compared
    assert "on the smaller side" not in compared
    from proctor.models.io import read_record
    from proctor.models.suite import SuiteRecord

    suite = read_record(tmp_path / "run-ab" / "suite.json", SuiteRecord)
    assert suite.ab is not None
    pairs = "fewer than 3 complete pairs: no claim"
    assert f"| {pairs} |" in render_ab_markdown(suite.ab)
    assert f'<td data-label="note" class="small">{pairs}</td>' in conditions
    assert f"<td>{pairs}</td>" in panel
    assert "samples, no claim" not in conditions + panel


def test_compare_of_conditions_says_its_refusals_in_the_words_of_its_form(tmp_path: Path) -> None:
    """A run of one condition was refused with "give both: proctor compare BASE_RUN
    CANDIDATE_RUN", and one condition given on both sides with "--treatment and --baseline
    are both 'a'": the page's form has no flag; it names its own fields, and a run of one
    condition links the comparison with another run."""
    write_run(tmp_path, "run-one", trials=1, cases=1)
    write_run(tmp_path, "run-ab", trials=2, cases=1, conditions=("a", "b"))
    with TestClient(build_app(ViewSettings(results=tmp_path))) as c:
        one = html.unescape(c.get("/compare?run=run-one").text)
        same = html.unescape(c.get("/compare?run=run-ab&treatment=a&baseline=a").text)
    assert (
        "Run run-one has one condition, default: there is nothing to compare within it; "
        '<a href="/compare?a=run-one">compare it with another run</a> instead.'
    ) in one
    assert 'id="compare-error"' not in one
    assert (
        "the treatment and the baseline are both 'a': give two of the run's conditions (a, b)"
        in same
    )
    for page in (one, same):
        assert "proctor compare" not in page and "--treatment" not in page
