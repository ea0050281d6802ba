"""The judge's material: capped lines, a cut that keeps its promises, and verdict parsing."""

from __future__ import annotations

import math
import pathlib
import re

import pytest

from proctor.llm.judge import (
    ARTIFACT_CAP,
    ContextOverflow,
    build_material,
    collect_artifacts,
    parse_verdict,
    perplexity_level,
)
from proctor.models.trajectory import Event, make_event


def failing_step(n: int, output: str = "boom") -> list[Event]:
    return [
        make_event("tool_call", id=f"t{n}", name="shell", input={"cmd": f"step {n}"}),
        make_event("tool_result", id=f"t{n}", output=output, isError=True),
    ]


def test_a_long_message_is_capped_and_the_prompt_fits_the_budget() -> None:
    prompt = "START " + "p" * 50_000 + " END"
    events = [
        make_event("user_message", text=prompt),
        *failing_step(1),
        make_event("assistant_text", text="a" * 50_000),
    ]
    material = build_material("Score it.", events, [], "", 10_000)
    assert len(material.prompt) <= 10_000
    assert "START" in material.prompt and "END" in material.prompt
    assert "chars cut from the middle" in material.prompt
    assert "[FAILED]" in material.prompt, "the only failing step must survive"


def test_failing_steps_that_do_not_fit_are_recorded_truthfully() -> None:
    events = [make_event("user_message", text="Do it.")]
    for n in range(40):
        events += failing_step(n, "e" * 400)
    events.append(make_event("assistant_text", text="Done."))
    material = build_material("Score it.", events, [], "", 5_000)
    truncation = material.truncation
    assert len(material.prompt) <= 5_000
    assert truncation["failingStepsCut"] > 0
    assert "every failing step" not in truncation["strategy"]
    assert "of 40 failing steps" in truncation["strategy"]
    assert material.prompt.startswith("# Rubric") and "USER: Do it." in material.prompt


def test_every_failing_step_kept_is_said_so() -> None:
    events = [make_event("user_message", text="Do it.")]
    for n in range(60):
        events.append(make_event("assistant_text", text=f"working {n} " + "w" * 300))
    events += failing_step(99)
    material = build_material("Score it.", events, [], "", 8_000)
    assert material.truncation["trajectoryLinesCut"] > 0
    assert "every failing step" in material.truncation["strategy"]
    assert "failingStepsCut" not in material.truncation
    assert "[FAILED]" in material.prompt and len(material.prompt) <= 8_000


def test_material_that_cannot_be_cut_to_fit_is_a_context_overflow() -> None:
    events = [make_event("user_message", text="t" * 5_000)]
    with pytest.raises(ContextOverflow, match="over the judge's budget of 2000"):
        build_material("r" * 1_500, events, [], "", 2_000)


def test_short_lines_are_left_alone() -> None:
    text = "x" * 1_500
    material = build_material("Score it.", [make_event("user_message", text=text)], [], "", 50_000)
    assert f"USER: {text}\n" in material.prompt and material.truncation == {}


@pytest.mark.parametrize("digits", [400, 5_000])
def test_a_huge_integer_score_is_a_malformed_reply(digits: int) -> None:
    reply = '{"score": %s, "confidenceLevel": 50, "rationale": "x"}' % ("9" * digits)
    with pytest.raises(ValueError) as caught:
        parse_verdict(reply)
    assert len(str(caught.value)) < 100


@pytest.mark.parametrize(
    ("logprobs", "expected"),
    [
        ([5.0, 0.5], 0.0),
        ([1_000.0, -0.0], 0.0),
        ([1e308, 1e308, -1e308], 100.0),
        ([-1e308] * 4, 100.0),
        ([math.inf, -math.inf], 100.0),
        ([math.nan], None),
        ([], None),
        (None, None),
    ],
)
def test_perplexity_is_clamped_and_never_overflows(
    logprobs: list[float] | None, expected: float | None
) -> None:
    assert perplexity_level(logprobs) == expected


def test_perplexity_of_ordinary_logprobs() -> None:
    level = perplexity_level([-0.1, -0.2, -0.05])
    assert level == pytest.approx(100 * (1 - math.exp(-0.35 / 3)), abs=0.001)


def test_a_tool_call_s_long_arguments_and_result_say_they_were_cut(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """They ended mid-sentence at 400 characters, the judge never told there was more."""
    from proctor.llm.judge import RESULT_EXCERPT, distil
    from proctor.util import masking

    monkeypatch.setattr(masking, "_SECRETS", set())
    key = "sk-test-JUDGEKEY-" + "k" * 40
    masking.register_secret(key)
    output = f"token {key} " + "r" * 1_000
    events = [
        make_event("tool_call", id="t1", name="shell", input={"cmd": "c" * 600}),
        make_event("tool_result", id="t1", output=output),
        make_event("tool_call", id="t2", name="shell", input={"cmd": "ls"}),
        make_event("tool_result", id="t2", output="r" * RESULT_EXCERPT),
    ]
    long, short = (line.text for line in distil(events))
    args = '{"cmd": "' + "c" * 600 + '"}'
    masked = len(output) - len(key) + len("***")  # counted once masked
    assert long == (
        f"TOOL #1 shell {args[:RESULT_EXCERPT]}… [cut: {len(args):,} characters in all]\n"
        f"  -> token *** {'r' * (RESULT_EXCERPT - 10)}… [cut: {masked:,} characters in all]"
    )
    # One that fits has no mark.
    assert short == f'TOOL #2 shell {{"cmd": "ls"}}\n  -> {"r" * RESULT_EXCERPT}'


def test_a_cut_diff_says_how_many_characters_were_cut() -> None:
    diff = "+" + "d" * 29_999
    material = build_material("Score it.", [], [], diff, 100_000)
    assert material.truncation["diffCharsCut"] == 10_000
    assert "d\n[... 10,000 chars of the diff cut ...]\n" in material.prompt


@pytest.mark.parametrize("budget", [8_000, 3_000])
def test_a_diff_cut_again_to_fit_the_budget_says_all_that_was_cut(budget: int) -> None:
    diff = "+" + "d" * 29_999
    material = build_material("Score it.", [], [], diff, budget)
    cut = material.truncation["diffCharsCut"]
    assert len(material.prompt) <= budget
    assert f"[... {cut:,} chars of the diff cut ...]" in material.prompt
    shown = material.prompt.split("# Workspace diff\n\n", 1)[1].split("\n[... ", 1)[0]
    assert len(shown) == 30_000 - cut
    assert "(no changes)" not in material.prompt


def test_every_cut_mark_counts_its_characters_with_a_thousands_separator(
    tmp_path: pathlib.Path,
) -> None:
    (tmp_path / "notes.md").write_text("n" * (ARTIFACT_CAP + 12_345), encoding="utf-8")
    [(name, text)] = collect_artifacts(tmp_path, ["*.md"])
    assert name == "notes.md"
    assert text.endswith("\n[... 12,345 chars of the file cut ...]")
    events = [make_event("user_message", text="m" * 12_000)]
    material = build_material("Score it.", events, [], "", 100_000)
    assert "chars cut from the middle" in material.prompt
    assert re.search(
        r"\[\.\.\. \d{1,3}(,\d{3})+ chars cut from the middle \.\.\.\]", material.prompt
    )
