"""The viewer answers every request over a damaged or hostile results folder: no 500, no hang,
no record from outside the folder shown as one of its own."""

from __future__ import annotations

import html
import json
import os
import shutil
import time
from pathlib import Path

from proctor.view.schema import INDEX_FILE
from proctor.view.synthetic import write_run
from tests.conftest import viewer
from tests.integration.test_view_server import raw_get

TRIAL = "/runs/run-a/trials/case-000/scripted/default/1"


def test_numbers_and_search_texts_of_any_length_are_no_500(tmp_path: Path) -> None:
    results = tmp_path / "results"
    write_run(results, "run-a", trials=2, cases=1)
    with viewer(results) as base:
        huge = "9" * 4301  # past Python's int() digit limit
        for path in (
            f"{TRIAL}?page={huge}",
            f"{TRIAL}?step={huge}",
            f"{TRIAL}/raw?page={huge}",
            f"/runs/run-a?tpage={huge}",
            f"/?q={'a' * 50_000}",
            f"/fragments/runs?q={'a' * 50_000}",
        ):
            status, _ = raw_get(base, path)
            assert status in (200, 404), (path[:60], status)


def test_damaged_records_leave_every_page_answering(tmp_path: Path) -> None:
    results = tmp_path / "results"
    paths = write_run(results, "run-a", trials=3, cases=1)
    trials = paths.root / "trials" / "case-000" / "scripted" / "default"
    (paths.root / "annotations.json").write_text("[" * 200_000 + "]" * 200_000)
    os.mkfifo(trials / "2" / "workspace.diff")  # a pipe would block whoever opened it
    (trials / "3" / "trial.json").unlink()
    os.mkfifo(trials / "3" / "trial.json")
    (trials / "stray-file").write_text("not a trial")
    lines = (trials / "1" / "trajectory.jsonl").read_text().splitlines()
    naive = json.loads(lines[1])
    naive["ts"] = "2026-12-02T02:20:27"  # no zone, among zoned times
    (trials / "1" / "trajectory.jsonl").write_text(
        "\n".join([lines[0], json.dumps(naive), *lines[2:]]) + "\n"
    )
    with viewer(results) as base:
        started = time.monotonic()
        for path in (
            "/",
            "/runs/run-a",
            "/api/runs",
            "/compare",
            TRIAL,
            "/runs/run-a/trials/case-000/scripted/default/2",
            "/runs/run-a/trials/case-000/scripted/default/stray-file",
        ):
            status, text = raw_get(base, path)
            assert status in (200, 404), (path, status, text[:200])
        assert time.monotonic() - started < 30, "a page waited on a pipe"


def test_records_linked_in_from_elsewhere_are_not_the_folder_s_own(tmp_path: Path) -> None:
    results = tmp_path / "results"
    paths = write_run(results, "run-a", trials=1, cases=1)
    elsewhere = write_run(tmp_path / "elsewhere", "run-x", trials=1, cases=1)
    outside = elsewhere.root / "trials" / "case-000" / "scripted" / "default" / "1"
    record = json.loads((outside / "trial.json").read_text())
    record["reason"] = "OUTSIDE-TRIAL-REASON"
    (outside / "trial.json").write_text(json.dumps(record))
    linked = paths.root / "trials" / "case-000" / "scripted" / "default" / "8"
    linked.mkdir()
    (linked / "trial.json").symlink_to(outside / "trial.json")
    (paths.root / "trials" / "linked-case").symlink_to(elsewhere.root / "trials" / "case-000")
    (results / "run-linked").symlink_to(elsewhere.root)
    with viewer(results) as base:
        for path in ("/", "/runs/run-a", "/api/runs", "/runs/run-a?case=linked-case"):
            status, text = raw_get(base, path)
            assert status in (200, 404), path
            assert "OUTSIDE-TRIAL-REASON" not in text and "run-linked" not in text, path
            assert "linked-case" not in text or path.endswith("linked-case"), path


def test_runs_whose_run_json_is_damaged_sort_by_the_time_in_their_name(tmp_path: Path) -> None:
    """A run.json that does not read gives no start time: the run sorts by the time its
    folder's name holds, and a name with none sorts last (not first, as 'run-…' after
    '2026-…' did)."""
    from starlette.testclient import TestClient

    from proctor.view import ViewSettings, build_app

    results = tmp_path / "results"
    write_run(results, "run-20261201T000000Z-good", trials=1, cases=1)  # started 2026-12-01
    names = {
        "newer": "run-20261202T000000Z-damaged",
        "older": "run-20261130T000000Z-damaged",
        "timeless": "run-damaged-no-time",
    }
    for name in names.values():
        write_run(results, name, trials=1, cases=1)
        (results / name / "run.json").write_text("{not json")
    order = [names["newer"], "run-20261201T000000Z-good", names["older"], names["timeless"]]
    with TestClient(build_app(ViewSettings(results=results))) as client:
        runs, compare = client.get("/").text, client.get("/compare").text
    assert sorted(order, key=lambda n: runs.index(f'data-run="{n}"')) == order
    assert sorted(order, key=lambda n: compare.index(f'<option value="{n}"')) == order


def test_a_results_folder_deleted_under_the_viewer_is_said_gone_until_it_is_back(
    tmp_path: Path,
) -> None:
    results = tmp_path / "results"
    write_run(results, "run-a", trials=1, cases=1)
    gone = f"the results folder {results} is gone (deleted or moved)"
    with viewer(results) as base:
        assert "run-a" in raw_get(base, "/")[1]
        shutil.rmtree(results)
        time.sleep(1.1)  # (the index is refreshed at most once a second)
        for path in ("/", "/fragments/runs"):
            status, body = raw_get(base, path)
            # 200, not 404: the Runs page goes on following the folder.
            assert status == 200 and gone in body and "in this folder yet" not in body, path
            assert "run-a" not in body
        # The API tells it from a folder with no run yet (``[]``): a 404 naming the folder.
        status, body = raw_get(base, "/api/runs")
        assert (status, json.loads(body)) == (404, {"error": gone})
        write_run(results, "run-b", trials=1, cases=1)
        time.sleep(1.1)
        for path in ("/", "/fragments/runs"):
            status, body = raw_get(base, path)
            assert status == 200 and "run-b" in body and gone not in body, path
        status, body = raw_get(base, "/api/runs")
        assert status == 200 and [r["run"] for r in json.loads(body)] == ["run-b"]
        assert (results / INDEX_FILE).is_file()  # the index is kept in the folder again


def test_the_run_folder_of_a_viewer_of_one_run_deleted_under_it_is_said_gone(
    tmp_path: Path,
) -> None:
    results = tmp_path / "results"
    write_run(results, "run-a", trials=1, cases=1)
    moved = tmp_path / "moved"
    gone = f"the run folder {results / 'run-a'} is gone (deleted or moved)"
    with viewer(results / "run-a") as base:
        assert [r["run"] for r in json.loads(raw_get(base, "/api/runs")[1])] == ["run-a"]
        (results / "run-a").rename(moved)
        time.sleep(1.1)  # (the index is refreshed at most once a second)
        # Not a run of no trial: the API says the folder is gone, and so does the Runs page.
        status, body = raw_get(base, "/api/runs")
        assert (status, json.loads(body)) == (404, {"error": gone})
        status, body = raw_get(base, "/")
        assert status == 200 and f"{gone}: its run shows here again" in body
        assert 'data-run="run-a"' not in body
        assert raw_get(base, "/runs/run-a")[0] == 404
        moved.rename(results / "run-a")
        time.sleep(1.1)
        status, body = raw_get(base, "/api/runs")
        assert status == 200 and [r["trials"] for r in json.loads(body)] == [1]
        assert gone not in raw_get(base, "/")[1]


def test_a_run_whose_run_json_does_not_read_says_why_in_the_api_and_on_its_row(
    tmp_path: Path,
) -> None:
    results = tmp_path / "results"
    for name in ("run-good", "run-cut", "run-wrong"):
        write_run(results, name, trials=1, cases=1)
    cut = results / "run-cut" / "run.json"
    cut.write_bytes(cut.read_bytes()[:40])  # half-written
    (results / "run-wrong" / "run.json").write_text('{"schemaVersion": 1, "runId": 3}')
    with viewer(results) as base:
        status, body = raw_get(base, "/api/runs")
        page = raw_get(base, "/")[1]
    assert status == 200
    runs = {r["run"]: r for r in json.loads(body)}
    assert set(runs) == {"run-good", "run-cut", "run-wrong"}
    assert runs["run-good"]["problem"] is None and runs["run-good"]["planned"] == 1
    for name in ("run-cut", "run-wrong"):
        problem = runs[name]["problem"]
        assert problem.startswith("run.json: ") and str(results) not in problem, problem
        assert runs[name]["planned"] is None and runs[name]["trials"] == 1
        row = page[page.index(f'data-run="{name}"') :].split("</tr>")[0]
        assert problem in html.unescape(row), row
    assert "not a readable JSON file" in runs["run-cut"]["problem"]
    assert "run-problem" not in page[page.index('data-run="run-good"') :].split("</tr>")[0]


def test_a_case_folder_named_with_bytes_that_are_not_utf8_is_shown_and_opens(
    tmp_path: Path,
) -> None:
    """Its trial is listed as the reports name it (``caf\\xe9``) and its page and files open;
    before, indexing it stopped the viewer at start-up."""
    results = tmp_path / "results"
    paths = write_run(results, "run-a", trials=1, cases=1)
    trials = paths.root / "trials"
    folder = trials / os.fsdecode(b"caf\xe9")
    (trials / "case-000").rename(folder)
    record = folder / "scripted" / "default" / "1" / "trial.json"
    data = json.loads(record.read_text())
    data["case"] = "caf\\xe9"  # as proctor run records it
    record.write_text(json.dumps(data))
    with viewer(results) as base:
        status, page = raw_get(base, "/runs/run-a")
        assert status == 200
        link = "/runs/run-a/trials/caf%5Cxe9/scripted/default/1"
        assert f'href="{link}"' in page
        status, page = raw_get(base, link)
        assert status == 200, page
        assert "Trajectory" in page
        status, text = raw_get(
            base, "/runs/run-a/files/trials/caf%5Cxe9/scripted/default/1/trial.json"
        )
        assert status == 200 and '"caf\\\\xe9"' in text
