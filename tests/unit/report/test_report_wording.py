"""What a run's report says reads as English: a count agrees with its noun ("1 group",
"3 groups", never "group(s)"), a figure is named as people read it ("median elapsed (s)",
never ``elapsedSeconds``), and a run comparison's note is a sentence."""

from __future__ import annotations

from proctor.models.config import Gate
from proctor.models.trial import TrialRecord
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
