"""The self-contained HTML report."""

from __future__ import annotations

import re
from pathlib import Path

import jinja2
import pytest

from proctor.report.html import TEMPLATES, clean_text, render_html, template_environment
from proctor.report.reporters import REPORTERS, render_into
from proctor.util.masking import register_secret
from proctor.view.synthetic import XSS, aggregate_of, trial_record


def _report(text: str = "") -> str:
    records = [
        trial_record("case-a", "scripted", "default", 1, text=text),
        trial_record("case-a", "scripted", "default", 2, status="failed", text=text),
        trial_record("case-b", "scripted", "default", 1, status="agent-error", text=text),
    ]
    return render_html(aggregate_of(records, "run-x"), records)


def test_the_report_is_one_file_that_needs_no_network() -> None:
    html = _report()
    assert "<style>" in html and "Chart.js v" in html and "proctorDrawFigures" in html
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)
    assert not re.search(r"<(script|link)[^>]+(src|href)=", html)
    for key in (
        "case-a/scripted/default/1",
        "case-a/scripted/default/2",
        "case-b/scripted/default/1",
    ):
        assert f'id="trial-{key}"' in html and f'href="#trial-{key}"' in html
    assert "agent-error" in html and "pass rate 50%" in html


def test_agent_text_is_escaped_and_secrets_masked() -> None:
    register_secret("sk-test-abcdef123456")
    html = _report(XSS + " key sk-test-abcdef123456 \x1b[31mred")
    assert "<script>window.__pwned" not in html and "<img src=x" not in html
    assert "&lt;script&gt;window.__pwned" in html
    assert "sk-test-abcdef123456" not in html and "***" in html
    assert "\x1b" not in html and "\\x1b[31m" in html


def test_the_escaping_check_catches_a_template_that_does_not_escape() -> None:
    """Control: the same template with autoescaping off lets the payload through."""
    loose = jinja2.Environment(loader=jinja2.FileSystemLoader([TEMPLATES]), autoescape=False)
    loose.filters.update(template_environment().filters)
    record = trial_record("c", "scripted", "default", 1, text=XSS)
    html = loose.get_template("_trial_body.html").render(record=record, step_url=None)
    assert "<script>window.__pwned" in html and "<img src=x" in html


def test_clean_text_makes_control_characters_visible() -> None:
    assert clean_text("a\x1b[0mb\x07\tc\n") == "a\\x1b[0mb\\x07\tc\n"
    assert clean_text(None) == ""


def test_html_is_a_registered_reporter_writing_report_html(tmp_path: Path) -> None:
    records = [trial_record("case-a", "scripted", "default", 1)]
    outputs = render_into(tmp_path, aggregate_of(records, "run-x"), records, ["html"])
    assert REPORTERS["html"].file_name == "report.html"
    assert (tmp_path / "report.html").read_text() == outputs["html"]


def test_the_pass_at_k_table_shows_each_groups_largest_k() -> None:
    """A group of five repeats beside a group of one: its pass@5 and pass^5 are shown (the
    suite's mean table stops at the fewest repeats, k = 1)."""
    records = [trial_record("five", "scripted", "default", n) for n in range(1, 6)]
    records[0] = trial_record("five", "scripted", "default", 1, status="failed")
    records.append(trial_record("one", "scripted", "default", 1))
    suite = aggregate_of(records, "run-k")
    assert list(suite.totals.pass_at_k) == ["1"]
    html = render_html(suite, records)
    table = html[html.index('id="passk"') : html.index("</table>", html.index('id="passk"'))]
    heads = re.findall(r"<th[^>]*>(pass[@^]\d+)</th>", table)
    ks = (1, 2, 3, 5)  # (and 4 left out, as in every table: see some_ks)
    assert heads == [*(f"pass@{k}" for k in ks), *(f"pass^{k}" for k in ks)]
    five = table[table.index("five · ") : table.index("</tr>", table.index("five · "))]
    assert re.findall(r'<td class="num">([^<]*)</td>', five) == [
        "0.80", "1.00", "1.00", "1.00", "0.80", "0.60", "0.40", "0.00",
    ]  # fmt: skip


def test_a_key_where_the_html_report_cuts_or_a_terminal_wraps_is_never_shown_in_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The report shows the head of a trial's diff and terminal, and the start of a long tool
    input: a key registered when the report is made (the files were written without it)
    that falls across the cut, or that the terminal wrapped, shows no part of itself."""
    import json as json_module

    from proctor.report.html import clean_text
    from proctor.report.html_artifacts import MAX_FIELD, MAX_FILE, folder_artifacts
    from proctor.util import masking

    key = "sk-ant-api03-LEAKTESTKEY0123456789abcdef"
    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(key)
    (tmp_path / "workspace.diff").write_text("+" + "d" * (MAX_FILE - 21) + key + "\n")
    (tmp_path / "screen.log").write_text(("s" * 150 + key[:10] + "\n" + key[10:] + "\n") * 2)
    call = {"type": "tool_call", "name": "Bash", "input": {"command": "x" * (MAX_FIELD - 30) + key}}
    (tmp_path / "trajectory.jsonl").write_text(json_module.dumps(call) + "\n")
    art = folder_artifacts(tmp_path)
    shown = [clean_text(art.diff), clean_text(art.screen), *(clean_text(s.body) for s in art.steps)]
    for text in shown:
        assert not any(key[: n + 1] in text for n in range(12, len(key))), text[-200:]
        assert not any(key[n:] in text for n in range(0, len(key) - 12)), text[-200:]
    assert art.diff_cut and "***" in clean_text(art.screen)


def test_the_report_lists_the_cases_the_run_skipped_as_the_markdown_does() -> None:
    from proctor.models.run import SkippedCaseRecord

    records = [trial_record("case-a", "scripted", "default", 1)]
    suite = aggregate_of(records, "run-x").model_copy(
        update={"skipped_cases": [SkippedCaseRecord(case="broken<b>", reason="prompt.md is empty")]}
    )
    html = render_html(suite, records)
    assert '<section id="skipped">' in html and "<h2>Skipped case folders</h2>" in html
    assert "<li><code>broken&lt;b&gt;</code>: prompt.md is empty</li>" in html
    assert 'id="skipped"' not in _report()  # none skipped: no section


def test_a_trials_steps_tell_a_denial_from_an_error_and_a_success(tmp_path: Path) -> None:
    """A refused call (here one headless Gemini CLI's permissionMode left out) is marked
    denied, a failed one error, and neither for a call that succeeded."""
    import json as json_module

    events = []
    for n, (name, extra) in enumerate(
        [
            ("run_shell_command", {"isError": False, "denied": True}),
            ("no_such_tool", {"isError": True, "denied": False}),
            ("read_file", {"isError": False, "denied": False}),
        ]
    ):
        events.append({"type": "tool_call", "id": f"c{n}", "name": name, "kind": "other"})
        events.append({"type": "tool_result", "id": f"c{n}", "output": "out", **extra})
    folder = tmp_path / "run" / "trials" / "case-a" / "scripted" / "default" / "1"
    folder.mkdir(parents=True)
    (folder / "trajectory.jsonl").write_text("".join(json_module.dumps(e) + "\n" for e in events))
    records = [trial_record("case-a", "scripted", "default", 1)]
    html = render_html(
        aggregate_of(records, "run-x"),
        records,
        folders={("case-a", "scripted", "default", 1): folder},
    )
    steps = re.findall(
        r'<li class="step step-tool_call([^"]*)"><strong>([^<]*)</strong>( <em>\w+</em>)?', html
    )
    assert steps == [
        (" outcome-denied", "run_shell_command (other)", " <em>denied</em>"),
        (" outcome-fail", "no_such_tool (other)", " <em>error</em>"),
        ("", "read_file (other)", ""),
    ]


def test_a_case_folder_named_with_bytes_that_are_not_utf8_shows_its_steps_and_diff(
    tmp_path: Path,
) -> None:
    """The record names the case ``caf\\xe9`` (its byte escaped); the folder on disk holds the
    byte: its steps, diff and terminal are read from it, as the viewer reads them (the report
    showed none)."""
    import os

    from proctor.paths import RunPaths
    from proctor.report.html_artifacts import trial_artifacts
    from proctor.view.synthetic import write_trajectory_lines

    run_dir = tmp_path / "run-a"
    folder = RunPaths(run_dir).trial(os.fsdecode(b"caf\xe9"), "scripted", "default", 1)
    folder.root.mkdir(parents=True)
    (folder.root / "workspace.diff").write_text("diff --git a/x b/x\n")
    write_trajectory_lines(folder.trajectory, 4)
    record = trial_record("caf\\xe9", "scripted", "default", 1, status="passed")
    found = trial_artifacts(run_dir, record)
    assert found.diff is not None and "diff --git" in found.diff
    assert found.steps


def test_a_trial_s_warnings_show_beside_its_reason_and_on_its_section_quietly() -> None:
    """A warning decides nothing: shown in the trials table and the trial's section as a
    warning, the trial still passed."""
    said = "the plan has 2 turns (split by endTurn) and the test sent 1 message"
    warned = trial_record("case-a", "scripted", "default", 1)
    warned = warned.model_copy(update={"warnings": [said, XSS]})
    html = render_html(aggregate_of([warned], "run-x"), [warned])
    assert f'<div class="warning">warning: {said}</div>' in html  # the trials table
    assert f'<li class="warning">warning: {said}</li>' in html  # the trial's section
    assert "<script>window.__pwned" not in html and "warning: &lt;script&gt;" in html
    assert "pass rate 100%" in html


def test_the_a_b_panel_never_shows_a_claimed_interval_reaching_zero() -> None:
    """Condition b passing all six repeats, a three (pairs a=3, b=3): the pass rate's
    interval is [0.0000556, 0.812], `improved`; at three decimals it read [0.000, 0.812]. The
    panel shows the report's rows, in points."""
    records = [
        trial_record("case-a", "scripted", condition, repeat, status=status)
        for repeat in range(1, 7)
        for condition, status in (("b", "passed"), ("a", "passed" if repeat <= 3 else "failed"))
    ]
    html = render_html(aggregate_of(records, "run-x"), records)
    assert 'class="short num">[+0.006, +81] pts</td>' in html
