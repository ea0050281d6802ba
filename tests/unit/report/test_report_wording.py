"""What a run's report says reads as English: a count agrees with its noun ("1 group",
"3 groups", never "group(s)"), a figure is named as people read it ("median elapsed (s)",
never ``elapsedSeconds``), and a run comparison's note is a sentence."""

from __future__ import annotations

from proctor.models.config import Gate
from proctor.models.trial import TrialRecord
from proctor.report.ab import compare_runs, render_runs_markdown
from proctor.report.ab.markdown import metric_label
from proctor.report.ab.sides import METRICS
from proctor.report.aggregate import aggregate
from proctor.report.markdown import render_markdown


def _record(case: str, repeat: int = 1, passed: bool = False) -> TrialRecord:
    status = "passed" if passed else "failed"
    return TrialRecord(
        case=case, agent="s", repeat=repeat, status=status, passed=passed, score=100.0 * passed
    )


def test_the_exit_reason_and_pass_rate_count_one_group_and_one_trial_in_the_singular() -> None:
    one = [_record("a")]
    text = render_markdown(aggregate(one, Gate(min_pass_rate=1.0), run_id="r"), one)
    assert "gate failed for 1 group: a/s/default." in text
    assert "- Pass rate: 0% (0/1 scored trial; error statuses excluded)" in text
    assert "(s)" not in text.split("\n\n", 2)[1]  # the exit line and the summary
    three = [_record(case) for case in "abc"] + [_record("d", passed=True)]
    text = render_markdown(aggregate(three, Gate(min_pass_rate=1.0), run_id="r"), three)
    assert "gate failed for 3 groups: a/s/default, b/s/default, c/s/default." in text
    assert "- Pass rate: 25% (1/4 scored trials; error statuses excluded)" in text


def test_every_compared_figure_has_a_name_for_people() -> None:
    """The Overall table of ``proctor compare`` and the viewer's figures: ``fileHitRate`` and
    the other outcome measures were shown by their JSON keys."""
    for name, *_ in METRICS:
        label = metric_label(name)
        assert label != name and label.islower(), (name, label)
    assert metric_label("elapsedSeconds") == "median elapsed (s)"
    assert metric_label("fileHitRate") == "file hit rate"
    assert metric_label("someOtherKey") == "someOtherKey"  # an unknown one as it is


def test_a_run_comparison_says_how_many_groups_a_varying_figure_needs_in_a_sentence() -> None:
    before = [_record("a", repeat, passed=True) for repeat in (1, 2)]
    text = render_runs_markdown(compare_runs(before, before))
    assert "over the groups 6 groups" not in text
    assert "and the overall comparison at least 6 groups for a figure that varies." in text


def test_every_table_of_elapsed_seconds_says_they_are_the_agent_s_not_the_trial_s() -> None:
    """``elapsed s`` (0.02) beside ``median trial 1.00s`` reads as a contradiction unless the
    report says what each is: the agent's transcript span, the trial's whole time."""
    from proctor.report.ab import analyse_ab, render_ab_markdown
    from proctor.report.repeated import render_repeated_markdown, repeated_runs

    records = [_record("a", repeat, passed=True) for repeat in (1, 2)]
    text = render_markdown(aggregate(records, Gate(), run_id="r"), records)
    legend = "Elapsed s is the agent's time, its transcript's first to last event"
    assert legend in text and "a trial's time (the median trial above) also counts" in text
    assert "median trial" in text.split("## Repeats")[0]
    assert legend in render_repeated_markdown(repeated_runs(records))
    ab = render_ab_markdown(analyse_ab(records, "t", "b"))
    assert "- Elapsed is the agent's time, its transcript's first to last event (its agent" in ab
