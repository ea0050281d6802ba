"""A forwarded value (``--env``) in an advisor's advice: the sentence shown around a figure
never cuts it in two (it showed its first 19 characters), and the digit runs inside it are
part of the secret, not figures: never listed with their values."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest

from proctor.addons.grounding import (
    AdvisorSettings,
    CheckpointFile,
    GroundingReport,
    check_grounding,
    render_text,
    select_all,
)
from proctor.util import masking

TOKEN = "xoxb-123456789012-1234567890123-AbCdEfGhIjKl"
SECRET = "ZZTESTenvopt-secret-9876543210"
SIGNALS = {"tokensSoFar": 48210}


@pytest.fixture(autouse=True)
def secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(masking, "_SECRETS", set())


def run(tmp_path: Path, advice: str) -> GroundingReport:
    script = tmp_path / "advisor.py"
    script.write_text(f"print({advice!r})\n")
    file = CheckpointFile.model_validate({"checkpoints": [{"id": "c1", "signals": SIGNALS}]})
    settings = AdvisorSettings(
        command=f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}",
        cwd=tmp_path,
        forward=("SLACK_BOT_TOKEN", "MY_SECRET"),
        parent_env={"PATH": os.environ["PATH"], "SLACK_BOT_TOKEN": TOKEN, "MY_SECRET": SECRET},
    )
    return check_grounding(file, select_all(file), settings)


def printed(report: GroundingReport) -> str:
    return json.dumps(report.to_dict()) + render_text(report)


def test_the_digit_runs_of_a_forwarded_token_are_not_listed_as_figures(tmp_path: Path) -> None:
    report = run(tmp_path, f"Post to Slack with {TOKEN}. You used 48,210 tokens.")
    (result,) = report.results
    assert result.ok and not result.ungrounded
    assert report.notes == [
        "c1: 2 figures within a masked value of the advice left out (part of a secret, "
        "not figures it cites)"
    ]
    assert "123456789012" not in printed(report) and "1234567890123" not in printed(report)
    assert result.advice == "Post to Slack with ***. You used 48,210 tokens."


def test_a_long_sentence_is_cut_around_a_figure_without_cutting_a_secret(tmp_path: Path) -> None:
    advice = "w " * 60 + "figure 55555555555 " + "v" * 80 + SECRET + " " + "w " * 60
    report = run(tmp_path, advice)
    (figure,) = report.results[0].ungrounded
    assert figure.figure == "55555555555"
    assert figure.text.endswith("v" * 80 + "*** ...")
    assert SECRET[:6] not in printed(report) and "9876543210" not in printed(report)


def test_a_figure_equal_to_a_forwarded_value_is_still_checked_and_shown_masked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "advisor.py"
    script.write_text("print('You cut 123456 tokens.')\n")
    file = CheckpointFile.model_validate({"checkpoints": [{"id": "c1", "signals": SIGNALS}]})
    settings = AdvisorSettings(
        command=f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}",
        cwd=tmp_path,
        forward=("MYV",),
        parent_env={"PATH": os.environ["PATH"], "MYV": "123456"},
    )
    report = check_grounding(file, select_all(file), settings)
    (figure,) = report.results[0].ungrounded
    assert (figure.figure, figure.value, figure.text) == ("***", None, "You cut *** tokens.")
    assert not report.notes


def test_a_hidden_range_is_shown_whole_as_a_mask_wherever_the_cuts_fall() -> None:
    from proctor.addons.grounding.figures import hidden_figures, sentence_around, ungrounded_figures

    text = "a " * 200 + "cost 77777 " + "x" * 95 + "SECRETVALUE" + " tail" + " b" * 200
    start = text.index("77777")
    hidden = [(text.index("SECRETVALUE"), text.index("SECRETVALUE") + len("SECRETVALUE"))]
    shown = sentence_around(text, start, start + 5, hidden)
    assert shown.endswith("x" * 95 + "*** ...") and "SECRET" not in shown
    left_cut = "SECRETVALUE" + "y" * 85 + " cost 77777 " + "b " * 200
    start = left_cut.index("77777")
    shown = sentence_around(left_cut, start, start + 5, [(0, len("SECRETVALUE"))])
    assert shown.startswith("... ***" + "y" * 85) and "VALUE" not in shown
    inside = "key ab-12345678-cd and 99999 more."
    span = [(4, 18)]
    assert hidden_figures(inside, span) == 1
    assert [u.figure for u in ungrounded_figures(inside, {}, span)] == ["99999"]
