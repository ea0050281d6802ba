"""The Compare page with one run chosen, the groups one run holds alone, and the pagers of the
viewer as navigation landmarks (Starlette's TestClient over synthetic runs)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from starlette.testclient import TestClient

from proctor.view import ViewSettings, build_app
from proctor.view.synthetic import write_run

OLD, NEW, OTHER = (
    "run-20261201T000000Z-old",
    "run-20261202T000000Z-new",
    "run-20261203T000000Z-other",
)


def _source(results: Path, run: str, source: str) -> None:
    manifest = results / run / "run.json"
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "source": source}))


def _chosen(page: str, name: str) -> str | None:
    select = re.search(rf'<select name="{name}">(.*?)</select>', page, re.S)
    assert select is not None
    found = re.search(r'<option value="([^"]*)" selected>', select.group(1))
    return found.group(1) if found else None


def test_compare_with_one_run_chosen_says_which_is_left_and_offers_its_source_s_runs(
    tmp_path: Path,
) -> None:
    """``/compare?a=RUN`` showed the bare form, its candidate the newest run (RUN itself when
    it is the newest): it says which run is left to choose, offers the other runs of RUN's
    source as links, and chooses the newest of them as the candidate."""
    results = tmp_path / "results"
    for run in (OLD, NEW, OTHER):
        write_run(results, run, trials=2, cases=1)
    _source(results, OTHER, "/elsewhere/cases")
    with TestClient(build_app(ViewSettings(results=results))) as client:
        page = client.get(f"/compare?a={OLD}").text
        assert _chosen(page, "a") == OLD and _chosen(page, "b") == NEW
        said = page[page.index('id="compare-choose"') :]
        said = said[: said.index("</p>")]
        assert f"{OLD} is the baseline run: choose the candidate run above" in said
        assert f'href="/compare?a={OLD}&amp;b={NEW}"' in said and OTHER not in said
        assert 'id="compare-table"' in client.get(f"/compare?a={OLD}&b={NEW}").text
        # The candidate chosen alone: the baseline is the side left, not the run itself.
        page = client.get(f"/compare?b={NEW}").text
        assert _chosen(page, "a") == OLD and _chosen(page, "b") == NEW
        assert f"{NEW} is the candidate run: choose the baseline run above" in page
        # A run of a source no other run has: any run may be chosen, and the form offers one.
        page = client.get(f"/compare?a={OTHER}").text
        assert "no other run here has its source, /elsewhere/cases" in page
        assert _chosen(page, "b") == NEW
        # A run this folder does not hold is said, not offered as chosen.
        page = client.get("/compare?a=run-nope").text
        assert 'id="compare-error"' in page and "run run-nope is not in this results" in page


def test_compare_counts_the_trials_of_the_groups_one_run_holds_alone(tmp_path: Path) -> None:
    """The groups in both runs showed their counts, those in one run only none: each says its
    trials, linked to them on its run's page."""
    results = tmp_path / "results"
    write_run(results, OLD, trials=6, cases=2)
    write_run(results, NEW, trials=3, cases=1)
    with TestClient(build_app(ViewSettings(results=results))) as client:
        page = client.get(f"/compare?a={OLD}&b={NEW}").text
    only = page[page.index('id="compare-only-baseline"') :]
    assert "Only in the baseline run (1 group, not compared)" in only
    assert (
        f'case-001 · scripted · default (<a href="/runs/{OLD}?case=case-001&amp;agent=scripted'
        '&amp;condition=default#trials">3 trials</a>)'
    ) in only
    assert 'id="compare-only-candidate"' not in page


def test_compare_of_runs_of_suites_named_apart_says_so_as_proctor_compare_does(
    tmp_path: Path,
) -> None:
    """Runs of ``suites/api`` and ``suites/cli`` sharing a case name were compared case by
    case without a word: the page notes that they are of different suites and how their
    groups were matched, as `proctor compare RUN RUN2` notes it; runs of one suite's folder
    in two checkouts are not noted."""
    results = tmp_path / "results"
    for run in (OLD, NEW, OTHER):
        write_run(results, run, trials=2, cases=1)
    _source(results, OLD, "/work/main/cases")
    _source(results, NEW, "/work/branch/cases")
    _source(results, OTHER, "/work/suites/cli")
    with TestClient(build_app(ViewSettings(results=results))) as client:
        page = client.get(f"/compare?a={OLD}&b={OTHER}").text
        assert 'id="compare-table"' in page
        assert (
            "the runs are of different suites (run.json&#39;s source): "
            f"{OLD}: /work/main/cases; {OTHER}: /work/suites/cli; their groups are matched by "
            "case, agent and condition: a case of one name in both is compared as one case"
        ) in page
        assert "different suites" not in client.get(f"/compare?a={OLD}&b={NEW}").text


def test_the_pagers_are_navigation_landmarks_that_mark_the_page_shown(tmp_path: Path) -> None:
    """The transcript's, the raw transcript's and the trials' pagers were plain boxes: each is
    a ``<nav>`` named for what it pages, its page shown marked ``aria-current``."""
    results = tmp_path / "results"
    write_run(results, OLD, trials=1, cases=1, events_per_trial=450)
    trial = f"/runs/{OLD}/trials/case-000/scripted/default/1"
    raw = results / OLD / "trials/case-000/scripted/default/1/raw-transcript.jsonl"
    raw.write_text("{}\n" * 250)
    settings = ViewSettings(results=results)
    with TestClient(build_app(settings)) as client:
        pages = {
            "transcript": client.get(f"{trial}?page=2").text,
            "raw": client.get(f"{trial}/raw?page=2").text,
        }
    navs = re.findall(
        r'<nav class="pager" aria-label="([^"]+)">(.*?)</nav>', pages["transcript"], re.S
    )
    labels = [label for label, _ in navs]
    assert labels == ["transcript pages", "transcript pages, again below the events"]
    for _, nav in navs:
        assert '<span aria-current="page">page 2 of 3</span>' in nav
    raw_nav = re.search(
        r'<nav class="pager" aria-label="raw transcript pages">(.*?)</nav>', pages["raw"], re.S
    )
    assert raw_nav is not None and '<span aria-current="page">page 2 of 3</span>' in raw_nav.group(
        1
    )
    many = tmp_path / "many"
    write_run(many, NEW, trials=120, cases=1, events_per_trial=0)
    with TestClient(build_app(ViewSettings(results=many))) as client:
        run_page = client.get(f"/runs/{NEW}?tpage=2").text
    trials_nav = re.search(
        r'<nav class="pager" aria-label="trials pages">(.*?)</nav>', run_page, re.S
    )
    assert trials_nav is not None
    assert '<span aria-current="page">page 2 of 2</span>' in trials_nav.group(1)


def test_a_run_page_links_to_compare_it_with_the_run_of_its_source_before_it(
    tmp_path: Path,
) -> None:
    """A run page offered no way to compare the run with another but to choose both runs
    again on the Compare page: it links to Compare with the run as the candidate, where the
    baseline offered first is the run of its source just before it, not the newest."""
    results = tmp_path / "results"
    newest = "run-20261204T000000Z-newest"
    for run in (OLD, NEW, OTHER, newest):
        write_run(results, run, trials=2, cases=1)
    _source(results, OTHER, "/elsewhere/cases")
    with TestClient(build_app(ViewSettings(results=results))) as client:
        run_page = client.get(f"/runs/{NEW}").text
        assert f'<a href="/compare?b={NEW}" id="compare-with-another">' in run_page
        page = client.get(f"/compare?b={NEW}").text
        assert _chosen(page, "a") == OLD and _chosen(page, "b") == NEW
        said = page[page.index('id="compare-choose"') :]
        assert said.index(f"a={OLD}") < said.index(f"a={newest}")
    alone = tmp_path / "alone"
    write_run(alone, OLD, trials=2, cases=1)
    with TestClient(build_app(ViewSettings(results=alone))) as client:
        assert 'id="compare-with-another"' not in client.get(f"/runs/{OLD}").text
        # (Compare asked for it all the same says there is none, not to choose one.)
        page = client.get(f"/compare?a={OLD}").text
        assert f"{OLD} is the only run here: there is no other run to compare it with." in page


def test_an_address_of_runs_and_a_run_s_conditions_says_which_it_took(tmp_path: Path) -> None:
    """``/compare?run=R&a=R1`` showed the prompt to choose R1's candidate and dropped ``run``
    unsaid: a note names what was ignored and what was taken, of two runs compared too, and
    of a run refused (the note kept beside the error)."""
    results = tmp_path / "results"
    for run in (OLD, NEW):
        write_run(results, run, trials=2, cases=1)
    with TestClient(build_app(ViewSettings(results=results))) as client:
        page = client.get(f"/compare?run={NEW}&a={OLD}").text
        assert f"{OLD} is the baseline run: choose the candidate run above" in page
        note = page[page.index('id="compare-note"') :]
        assert (
            f"Note: run={NEW} is ignored: the address names runs to compare (a={OLD}), which "
            "the page takes; to compare a run&#39;s conditions, choose it under compare its "
            "conditions."
        ) in note[: note.index("</p>")]
        page = client.get(f"/compare?a={OLD}&b={NEW}&run={NEW}&baseline=x").text
        assert 'id="compare-table"' in page
        assert f"run={NEW} and baseline=x are ignored" in page
        assert f"(a={OLD} and b={NEW})" in page
        page = client.get(f"/compare?a=run-nope&run={NEW}").text
        assert 'id="compare-error"' in page and f"run={NEW} is ignored" in page
        # Nothing is said of an address that mixes nothing.
        assert 'id="compare-note"' not in client.get(f"/compare?a={OLD}").text
        assert 'id="compare-note"' not in client.get(f"/compare?run={NEW}").text


def test_an_address_of_a_treatment_or_baseline_without_its_run_says_so(tmp_path: Path) -> None:
    """``/compare?treatment=T`` (or ``baseline``) without ``run`` compared nothing and left the
    condition out unsaid: a note says it is ignored, and why, as for ``run`` with ``a``/``b``."""
    results = tmp_path / "results"
    write_run(results, NEW, trials=2, cases=1)
    with TestClient(build_app(ViewSettings(results=results))) as client:
        page = client.get("/compare?treatment=with-skill").text
        note = page[page.index('id="compare-note"') :]
        assert (
            "Note: treatment=with-skill is ignored: the address names no run whose conditions "
            "to compare (run=…); choose the run under compare its conditions."
        ) in note[: note.index("</p>")]
        page = client.get("/compare?run=&treatment=t&baseline=b").text
        assert "treatment=t and baseline=b are ignored: the address names no run" in page
