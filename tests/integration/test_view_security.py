"""The viewer's confinement and masking at its edges: links in a trial folder that lead out of
the results, keys of every agent and provider, a key split by a read boundary, a viewer bound
to every address, odd query values, quoted links, and runs whose orchestrator is gone."""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import quote

import pytest
from starlette.testclient import TestClient

from proctor.models.run import JournalEntry
from proctor.view import ViewSettings, build_app
from proctor.view.synthetic import write_planted_run, write_run

RUN = "run-20261201T000000Z-edges"
TRIAL = "case-000/scripted/default/1"


@pytest.fixture
def results(tmp_path: Path) -> Path:
    out = tmp_path / "results"
    write_planted_run(out, RUN, payload="plain text")
    return out


def trial_dir(results: Path) -> Path:
    return results / RUN / "trials" / TRIAL


def test_links_out_of_the_results_are_read_as_missing(results: Path, tmp_path: Path) -> None:
    secret = tmp_path / "outside.txt"
    secret.write_text("root:x:0:0:outside the results\n")
    folder = trial_dir(results)
    for name in ("screen.log", "workspace.diff", "trajectory.jsonl", "questions.jsonl"):
        (folder / name).unlink(missing_ok=True)
        (folder / name).symlink_to(secret)
    with TestClient(build_app(ViewSettings(results=results))) as client:
        page = client.get(f"/runs/{RUN}/trials/{TRIAL}")
        assert page.status_code == 200
        assert "outside the results" not in page.text
        raw = client.get(f"/runs/{RUN}/files/trials/{TRIAL}/screen.log")
        assert raw.status_code == 404
    (folder / "screen.log").unlink()  # control: the same text in the folder itself is shown
    (folder / "screen.log").write_text("root:x:0:0:outside the results\n")
    with TestClient(build_app(ViewSettings(results=results))) as client:
        assert "outside the results" in client.get(f"/runs/{RUN}/trials/{TRIAL}").text


def test_a_linked_trial_folder_is_not_served_as_a_trial(results: Path) -> None:
    case, agent, condition, repeat = TRIAL.split("/")
    linked = results / RUN / "trials" / "linked-case"
    linked.symlink_to(results / RUN / "trials" / case)
    with TestClient(build_app(ViewSettings(results=results))) as client:
        assert client.get(f"/runs/{RUN}/trials/{TRIAL}").status_code == 200  # control
        page = client.get(f"/runs/{RUN}/trials/linked-case/{agent}/{condition}/{repeat}")
        assert page.status_code == 404


def test_every_agent_and_provider_key_is_masked(
    results: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    keys = {
        "GEMINI_API_KEY": "gem-SECRET-0123456789",
        "CLAUDE_CODE_OAUTH_TOKEN": "oauth-SECRET-0123456789",
        "CODEX_API_KEY": "codex-SECRET-0123456789",
        "PROCTOR_ANTHROPIC_KEY": "pak-SECRET-0123456789",
    }
    for name, value in keys.items():
        monkeypatch.setenv(name, value)
    log = trial_dir(results) / "stdout.log"
    log.write_text(" ".join(keys.values()) + "\n")
    with TestClient(build_app(ViewSettings(results=results))) as client:
        text = client.get(f"/runs/{RUN}/files/trials/{TRIAL}/stdout.log").text
    assert text == " ".join(["***"] * len(keys)) + "\n"


def test_a_key_across_a_read_boundary_is_still_masked(results: Path) -> None:
    from proctor.util.masking import register_secret

    key = "sk-boundary-SECRET-abcdef"
    register_secret(key)
    big = trial_dir(results) / "big.txt"
    boundary = 1 << 20
    big.write_bytes(b"a" * (boundary - 8) + key.encode() + "é tail\n".encode())
    with TestClient(build_app(ViewSettings(results=results))) as client:
        text = client.get(f"/runs/{RUN}/files/trials/{TRIAL}/big.txt").text
    assert key not in text and text.endswith("***é tail\n")
    assert len(text) == boundary - 8 + 3 + len("é tail\n")


def test_a_key_in_a_run_name_is_masked_on_every_page_and_answer(tmp_path: Path) -> None:
    from proctor.util.masking import register_secret

    key = "sk-name-SECRET-0123456789"
    register_secret(key)
    out = tmp_path / "results"
    run = f"run-20261201T000000Z-{key}"
    write_planted_run(out, run, payload=key)
    trial = f"/runs/{run}/trials/{TRIAL}"
    urls = ["/", f"/runs/{run}", trial, f"{trial}/raw", "/api/runs", "/fragments/runs"]
    with TestClient(build_app(ViewSettings(results=out))) as client:
        answers = {url: client.get(url) for url in [*urls, f"/fragments/runs/{run}"]}
    for url, answer in answers.items():
        assert answer.status_code == 200, url
        assert key not in answer.text and "***" in answer.text, url
    assert answers["/api/runs"].json()[0]["run"] == "run-20261201T000000Z-***"


def test_a_viewer_on_every_address_runs_no_batch(results: Path, tmp_path: Path) -> None:
    settings = ViewSettings(results=results, source=tmp_path, allow_changes=False)
    with TestClient(build_app(settings)) as client:
        headers = {"x-proctor-token": settings.token, "origin": "http://testserver"}
        refused = client.post("/api/batches", json={"suite": ".", "cases": []}, headers=headers)
    assert refused.status_code == 403 and "every address" in refused.json()["error"]
    bound = ViewSettings(results=results, source=tmp_path)  # control: bound to one address
    with TestClient(build_app(bound)) as client:
        headers = {"x-proctor-token": bound.token, "origin": "http://testserver"}
        answer = client.post("/api/batches", json={"suite": "nope", "cases": []}, headers=headers)
    assert answer.status_code == 400  # past the checks: an unknown suite


def test_a_batch_needs_the_page_s_own_origin_not_only_the_token(
    results: Path, tmp_path: Path
) -> None:
    settings = ViewSettings(results=results, source=tmp_path)
    body = {"suite": "nope", "cases": []}
    with TestClient(build_app(settings)) as client:
        token = {"x-proctor-token": settings.token}
        bare = client.post("/api/batches", json=body, headers=token)
        foreign = client.post("/api/batches", json=body, headers={**token, "origin": "http://x"})
        fetched = client.post(
            "/api/batches", json=body, headers={**token, "sec-fetch-site": "same-origin"}
        )
        own = client.post(
            "/api/batches", json=body, headers={**token, "origin": "http://testserver"}
        )
    assert (bare.status_code, foreign.status_code) == (403, 403)
    assert (fetched.status_code, own.status_code) == (400, 400)  # past the checks


@pytest.mark.parametrize("query", ["page=%C2%B2", "step=%C2%B2", "page=-1", "step=1e3"])
def test_odd_numbers_in_a_query_are_ignored(results: Path, query: str) -> None:
    with TestClient(build_app(ViewSettings(results=results))) as client:
        assert client.get(f"/runs/{RUN}/trials/{TRIAL}?{query}").status_code == 200
        assert client.get(f"/runs/{RUN}/trials/{TRIAL}/raw?{query}").status_code in (200, 404)


def test_trial_links_are_quoted_and_a_new_run_s_url_works_at_once(
    results: Path, tmp_path: Path
) -> None:
    with TestClient(build_app(ViewSettings(results=results))) as client:
        write_run(results, "run-20261201T000001Z-later", trials=1, cases=1)
        url = "/runs/run-20261201T000001Z-later/trials/case-000/scripted/default/1"
        assert client.get(url).status_code == 200  # the index had not seen it yet
        folder = results / RUN / "trials" / "case #1"
        os.rename(results / RUN / "trials" / "case-000", folder)
        client.app.state.index.refresh(force=True)  # type: ignore[attr-defined]
        page = client.get(f"/runs/{RUN}").text
        assert "/trials/case%20%231/scripted/default/1" in page
        assert client.get(f"/runs/{RUN}/trials/case%20%231/scripted/default/1").status_code == 200


def test_a_case_folder_named_with_a_backslash_has_its_pages(results: Path) -> None:
    """A backslash is a character of a name on this system (proctor runs and reports such a
    case): its Trial, raw and file pages answer, and a backslash leads nowhere else."""
    os.rename(results / RUN / "trials" / "case-000", results / RUN / "trials" / "back\\slash")
    trial = f"/runs/{RUN}/trials/back%5Cslash/scripted/default/1"
    with TestClient(build_app(ViewSettings(results=results))) as client:
        assert trial in client.get(f"/runs/{RUN}").text
        for url in (
            trial,
            f"{trial}/raw",
            f"/runs/{RUN}/files/trials/back%5Cslash/scripted/default/1/screen.log",
        ):
            assert client.get(url).status_code == 200, url
        assert client.get(f"/runs/{RUN}/files/trials%5C..%5C..%5Crun.json").status_code == 404


def test_a_run_whose_orchestrator_is_another_process_is_not_live(results: Path) -> None:
    paths = write_run(results, "run-20261201T000002Z-open", trials=1, cases=1, finished=False)
    with TestClient(build_app(ViewSettings(results=results))) as client:
        live = {r["run"]: r for r in client.get("/api/runs").json()}
        assert live["run-20261201T000002Z-open"]["inProgress"] is True  # this process: alive
    entry = JournalEntry(event="run-started", time="2026-12-01T00:00:00Z", pid=1, pid_start=1)
    paths.journal.write_text(entry.model_dump_json(by_alias=True) + "\n")  # pid 1, another start
    with TestClient(build_app(ViewSettings(results=results))) as client:
        runs = {r["run"]: r for r in client.get("/api/runs").json()}
        assert runs["run-20261201T000002Z-open"]["inProgress"] is False
    assert json.loads(paths.run_json.read_text())["finishedAt"] is None


def test_a_page_number_of_any_length_past_the_last_shows_the_last() -> None:
    from proctor.view.templating import int_param

    assert int_param("99999999999999999999999", 1) == 10**9 - 1  # then clamped to the last
    assert int_param("999", 1) == 999
    assert int_param("-5", 1) == 1 and int_param("²", 1) == 1  # the controls: no number


def test_a_key_a_record_holds_from_before_it_was_registered_stays_out_of_the_index(
    tmp_path: Path,
) -> None:
    from proctor.util.masking import register_secret

    key = "sk-ant-INDEXED-0123456789abc"
    out = tmp_path / "results"
    write_planted_run(out, RUN, payload=f"failed: {key}")  # written raw: not registered yet
    assert key in (out / RUN / "trials" / TRIAL / "trial.json").read_text()
    register_secret(key)
    with TestClient(build_app(ViewSettings(results=out))) as client:
        page = client.get(f"/runs/{RUN}")
    assert page.status_code == 200 and key not in page.text
    stored = b"".join(p.read_bytes() for p in out.glob(".proctor-view*") if p.is_file())
    assert stored and key.encode() not in stored


def test_a_trial_page_shows_figures_as_words_and_links_only_to_what_is_there(
    results: Path,
) -> None:
    raw = trial_dir(results) / "raw-transcript.jsonl"
    with TestClient(build_app(ViewSettings(results=results))) as client:
        with_raw = client.get(f"/runs/{RUN}/trials/{TRIAL}").text
        raw.unlink(missing_ok=True)
        without = client.get(f"/runs/{RUN}/trials/{TRIAL}").text
    assert '<link rel="icon"' in with_raw  # no request for a /favicon.ico that is not there
    assert '/raw">raw transcript' not in without  # a trial without one links to none
    if raw.name in {p.name for p in trial_dir(results).iterdir()} or '/raw">raw' in with_raw:
        assert '/raw">raw transcript' in with_raw  # the control: one that has it links to it


def test_a_key_where_a_page_cuts_or_a_terminal_wraps_is_never_shown_in_part(
    results: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The viewer cuts a long event text, a long raw line, a diff and a terminal, and a
    terminal wraps its lines: a key registered when the viewer starts (the records were
    written without it) falls across each, and no part of it shows."""
    from proctor.util import masking
    from proctor.view.routes.trial import DIFF_LIMIT, SCREEN_LIMIT
    from proctor.view.timeline import LINE_SHOWN

    key = "sk-ant-api03-LEAKTESTKEY0123456789abcdef"
    monkeypatch.setattr(masking, "_SECRETS", set())
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    folder = trial_dir(results)
    say = {"type": "assistant_text", "text": "x" * (LINE_SHOWN - 20) + key}
    (folder / "trajectory.jsonl").write_text(json.dumps(say) + "\n")
    (folder / "raw-transcript.jsonl").write_text("x" * (LINE_SHOWN - 20) + key + "\n")
    (folder / "workspace.diff").write_text("+" + "d" * (DIFF_LIMIT - 21) + key + "\n")
    screen = ("s" * 150 + key[:10] + "\n" + key[10:] + "\n") * 2
    (folder / "screen.log").write_text(
        "s" * (SCREEN_LIMIT - len(screen) - 20) + "\n" + key + "\n" + screen
    )
    trial = f"/runs/{RUN}/trials/{TRIAL}"
    with TestClient(build_app(ViewSettings(results=results))) as client:
        answers = {
            url: client.get(url)
            for url in (trial, f"{trial}/raw", f"/runs/{RUN}/files/trials/{TRIAL}/screen.log")
        }
    for url, answer in answers.items():
        assert answer.status_code == 200, url
        assert not any(key[: n + 1] in answer.text for n in range(12, len(key))), url
        assert not any(key[n:] in answer.text for n in range(0, len(key) - 12)), url
    page = answers[trial].text
    assert "more characters not shown" in page and "Cut:" in page
    assert answers[f"/runs/{RUN}/files/trials/{TRIAL}/screen.log"].text.endswith(
        ("s" * 150 + "***\n\n") * 2
    )


def test_case_names_and_tags_show_their_control_and_bidi_characters_escaped(
    tmp_path: Path,
) -> None:
    """A case folder (and so a case name) or a tag may hold a terminal escape or a mark that
    reorders text: every page shows them as ``\\x1b`` and ``\\u202e``, as it shows agent
    output (attribute values and links keep the name itself, to find it by)."""
    import re
    import shutil

    from proctor.models.io import read_trial, write_record

    out = tmp_path / "results"
    case = "esc\x1b[31mred\u202etxt.exe"
    runs = ["run-20261201T000000Z-a", "run-20261201T000001Z-b"]
    for run in runs:
        paths = write_run(out, run, trials=2, cases=1)
        old = paths.trials_dir / "case-000"
        for folder in sorted(old.glob("*/*/*")):
            record, _ = read_trial(folder / "trial.json")
            record = record.model_copy(update={"case": case, "tags": ["t\u202eag"]})
            trial = paths.trial(case, record.agent, record.condition, record.repeat)
            write_record(trial.trial_json, record)
            shutil.copy(folder / "trajectory.jsonl", trial.trajectory)
            (trial.root / "raw-transcript.jsonl").write_text("{}\n")
        shutil.rmtree(old)
    trial = f"/runs/{runs[0]}/trials/{quote(case)}/scripted/default/1"
    urls = ["/", f"/runs/{runs[0]}", trial, f"{trial}/raw", f"/compare?a={runs[0]}&b={runs[1]}"]
    with TestClient(build_app(ViewSettings(results=out))) as client:
        pages = {url: client.get(url) for url in urls}
    for url, page in pages.items():
        assert page.status_code == 200, url
        shown = re.sub(r'="[^"]*"', "", page.text)  # the text, not the attribute values
        assert "\x1b" not in shown and "\u202e" not in shown, url
        assert "esc\\x1b[31mred\\u202etxt.exe" in shown or url == "/", url
    assert ">t\\u202eag</option>" in pages["/"].text
    assert "esc\\x1b[31mred\\u202etxt.exe</option>" in pages["/"].text
    assert f'<option value="{runs[0]}"' in pages[urls[-1]].text  # compare still names it
