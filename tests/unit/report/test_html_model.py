"""The matrix cells and figure data shared by the viewer and the HTML report."""

from __future__ import annotations

from dataclasses import replace

from proctor.report.html_model import TrialPoint, figures, matrix
from proctor.view.synthetic import aggregate_of, trial_record


def _point(
    case: str, status: str, repeat: int, score: float | None, cost: float | None = None
) -> TrialPoint:
    return TrialPoint(
        key=f"{case}/a/c/{repeat}",
        case=case,
        agent="a",
        condition="c",
        repeat=repeat,
        status=status,
        score=score,
        reason="",
        cost_usd=cost,
        tokens=10 * repeat,
        tool_calls=repeat,
        total_ms=1000.0 * repeat,
        agent_ms=800.0,
        harness_ms=200.0,
        url=f"/t/{case}/{repeat}",
    )


def test_cells_count_scored_trials_and_colour_by_outcome() -> None:
    points = [
        _point("all-pass", "passed", 1, 100),
        _point("all-pass", "passed", 2, 100),
        _point("mixed", "passed", 1, 100),
        _point("mixed", "timeout", 2, 0),
        _point("mixed", "agent-error", 3, None),
        _point("mixed", "skipped", 4, None),
        _point("no-data", "infra-error", 1, None),
    ]
    cells = {c.case: c for c in matrix(points, None)}
    assert (cells["all-pass"].outcome, cells["all-pass"].stability) == ("pass", "stable-pass")
    mixed = cells["mixed"]
    assert (mixed.passes, mixed.scored, mixed.errors, mixed.n) == (1, 2, 1, 4)
    assert mixed.pass_rate == 0.5 and mixed.outcome == "mixed" and mixed.stability == "flaky"
    # The time of the scored trials only: 1 s (passed) and 2 s (timeout), median 1.5 s; the
    # agent error (3 s) and the skipped trial (4 s) are left out.
    assert mixed.mean_score == 50 and mixed.median_ms == 1500 and mixed.gate_passed is None
    assert cells["no-data"].outcome == "none" and cells["no-data"].pass_rate is None


def test_the_median_time_leaves_out_error_trials_and_unknown_times() -> None:
    points = [
        _point("c", "passed", 1, 100),  # 1 s
        _point("c", "failed", 2, 0),  # 2 s
        replace(_point("c", "passed", 3, 100), total_ms=0.0),  # never measured
        _point("c", "infra-error", 9, None),  # 9 s of a crash
        _point("c", "agent-error", 8, None),  # 8 s of a crash
    ]
    (cell,) = matrix(points, None)
    # Of 1, 2, unknown, 9 and 8 s only 1 and 2 s count: median 1.5 s (over all five, 0, 1,
    # 2, 8 and 9 s, it would be 2 s; over the three scored ones, 0, 1 and 2 s, 1 s).
    assert cell.median_ms == 1500
    (alone,) = matrix([points[3]], None)
    assert alone.median_ms is None  # no scored trial with a known time: no median


def test_the_aggregate_supplies_stability_and_the_gate() -> None:
    records = [trial_record("c", "scripted", "default", r, status="passed") for r in (1, 2)]
    records.append(trial_record("c", "scripted", "default", 3, status="failed"))
    suite = aggregate_of(records, "run-x")
    points = [_point("c", r.status, r.repeat, r.score) for r in records]
    points = [
        p.__class__(**{**p.__dict__, "agent": "scripted", "condition": "default"}) for p in points
    ]
    (cell,) = matrix(points, suite)
    assert cell.gate_passed is False and cell.stability == suite.groups[0].stability


def test_every_point_and_bar_of_the_figures_links_to_its_trials() -> None:
    points = [
        _point("b", "passed", 1, 100, 0.5),
        _point("a", "failed", 1, 0),
        _point("a", "passed", 2, 90),
    ]
    data = figures(points, None, lambda case, agent, condition: f"/g/{case}")
    assert data["groups"] == ["a · a · c", "b · a · c"] and data["groupUrls"] == ["/g/a", "/g/b"]
    assert {(p["x"], p["y"], p["url"]) for p in data["scores"]} == {
        (1, 100, "/t/b/1"),
        (0, 0, "/t/a/1"),
        (0, 90, "/t/a/2"),
    }
    assert [p["url"] for p in data["costSuccess"]] == ["/t/b/1", "/t/a/1", "/t/a/2"]
    assert data["phases"]["agent"] == [1.6, 0.8] and data["ranges"] == []


def test_time_per_phase_leaves_out_skipped_trials_as_the_statistics_do() -> None:
    """A skipped trial (not evaluated, or excluded by a person) is no sample: its time is no
    part of its group's bar, as it is no point of "Cost against success"."""
    points = [
        _point("a", "passed", 1, 100),
        _point("a", "skipped", 2, None),
        _point("a", "agent-error", 3, None),  # an error's time was spent: it counts
    ]
    data = figures(points, None, lambda case, agent, condition: f"/g/{case}")
    assert data["phases"] == {"agent": [1.6], "harness": [0.4]}
    assert [p["status"] for p in data["costSuccess"]] == ["passed", "agent-error"]
    only_skipped = figures([points[1]], None, lambda *k: "/g")
    assert only_skipped["phases"] == {"agent": [0.0], "harness": [0.0]}
    assert "fig-phases" in only_skipped["noData"]
    assert only_skipped["noData"]["fig-phases"].startswith("every trial was skipped")


def test_a_trial_a_stop_cut_short_is_no_point_of_cost_against_success() -> None:
    """An interrupted trial neither passed nor failed: it is not drawn on the "not passed"
    line, and the caption counts it as left out."""
    points = [
        _point("a", "passed", 1, 100),
        replace(
            _point("a", "agent-error", 2, None),
            reason="interrupted: the run was stopped before this trial ended",
        ),
    ]
    data = figures(points, None, lambda case, agent, condition: f"/g/{case}")
    assert [p["status"] for p in data["costSuccess"]] == ["passed"]
    assert data["cutShort"] == 1 and "fig-cost" not in data["noData"]
    only_cut = figures([points[1]], None, lambda *k: "/g")
    assert only_cut["costSuccess"] == []
    assert only_cut["noData"]["fig-cost"].startswith("every trial that was not skipped was cut")


def test_a_scored_trial_whose_reason_begins_interrupted_is_drawn() -> None:
    """Only a trial in an error status is cut short, as every other report reads it: a failed
    trial whose evaluator's text begins ``interrupted:`` is a point, not counted cut short."""
    failed = replace(_point("a", "failed", 1, 0), reason="interrupted: the loop never ended")
    data = figures([failed], None, lambda *k: "/g")
    assert [p["status"] for p in data["costSuccess"]] == ["failed"]
    assert data["cutShort"] == 0
