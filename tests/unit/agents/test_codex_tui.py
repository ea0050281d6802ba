"""Codex TUI screen parsers and rollout counting, on screens captured from Codex 0.171."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from proctor.agents.codex import interactive_permissions, tui
from proctor.agents.terminal import option_index, option_indices, option_parts
from proctor.errors import AgentError
from proctor.util.jsonl import JsonlTail

HEADER = """
  >_ OpenAI Codex (v0.171.0)
     /tmp/exp/workspace

"""
STARTING = """
  >_ OpenAI Codex (v0.171.0)
     loading

› Ask Codex to do anything

  ? for shortcuts
"""
READY = (
    HEADER
    + """
› Ask Codex to do anything

  GPT-5.5 default · /tmp/exp/workspace
  ← for agents · ? for shortcuts
"""
)
TYPED = (
    HEADER
    + """
› Do the task in this folder.

  GPT-5.5 default · /tmp/exp/workspace
"""
)
APPROVAL_BODY = """
› Do the task in this folder.


• Running touch outside.txt && echo approved








  Would you like to run the following command?

  Environment: local

  Reason: Needs to run outside the sandbox

  $ touch outside.txt && echo approved


"""
OPTIONS = """\
› 1. Yes, proceed (y)
  2. Yes, and don't ask again for commands that start with `touch outside.txt` (p)
  3. No, and tell Codex what to do differently (esc)
"""
CONFIRM = """
  Press enter to confirm or esc to cancel
"""
APPROVAL = HEADER + APPROVAL_BODY + OPTIONS + CONFIRM
APPROVAL_ON_SECOND = (
    HEADER + APPROVAL_BODY + OPTIONS.replace("› 1.", "  1.").replace("  2.", "› 2.")
)
APPROVAL_ON_SECOND += CONFIRM


def test_ready_only_once_the_session_is_configured() -> None:
    assert not tui.input_ready(STARTING)
    assert tui.input_ready(READY)
    assert tui.composer_text(READY) == "Ask Codex to do anything"
    assert tui.composer_text(TYPED) == "Do the task in this folder."


def test_approval_prompt_is_a_question_with_its_command() -> None:
    question = tui.question_on_screen(APPROVAL)
    assert question is not None
    assert question.kind == "permission"
    assert question.text == (
        "Would you like to run the following command?\n"
        "Environment: local\n"
        "Reason: Needs to run outside the sandbox\n"
        "$ touch outside.txt && echo approved"
    )
    assert question.options == [
        "Yes, proceed",
        "Yes, and don't ask again for commands that start with `touch outside.txt`",
        "No, and tell Codex what to do differently",
    ]
    assert tui.cursor(APPROVAL) == 0
    assert tui.cursor(APPROVAL_ON_SECOND) == 1


def test_half_drawn_approval_is_not_a_question() -> None:
    """Control: until the confirm line is drawn under the options, nothing is answered."""
    assert tui.question_on_screen(HEADER + APPROVAL_BODY + OPTIONS) is None
    assert tui.question_on_screen(HEADER + APPROVAL_BODY + OPTIONS.splitlines()[0]) is None
    assert tui.cursor(HEADER + APPROVAL_BODY + OPTIONS) is None


def test_numbered_lines_in_the_transcript_are_not_a_question() -> None:
    screen = HEADER + "› 1. Fix the bug\n  2. Add a test\n\n• Working (0s • esc to interrupt)\n"
    assert tui.question_on_screen(screen + READY) is None
    assert tui.input_ready(screen + READY)


@pytest.mark.parametrize(
    ("answer", "index"),
    [
        ("Yes, proceed", 0),
        ("yes", 0),
        ("No", 2),
        ("no, and tell codex what to do differently", 2),
        ("2", 1),
        ("something else", None),
        ("Deny", 2),  # a plain word that refuses: the first option that does
        ("approve", 0),
        ("Maybe later", None),
        ("No. Run the tests first", 2),
        ("No! Run the tests first", 2),
        ("Nope-ish", None),
    ],
)
def test_answers_map_to_options(answer: str, index: int | None) -> None:
    options = tui.question_on_screen(APPROVAL).options  # type: ignore[union-attr]
    assert option_index(options, answer) == index


def _line(kind: str, payload: dict[str, object]) -> str:
    return json.dumps({"timestamp": "t", "type": kind, "payload": payload}) + "\n"


def test_turns_are_counted_from_the_rollout(tmp_path: Path) -> None:
    home = tmp_path / ".codex"
    watch = tui.RolloutWatch(home)
    assert watch.poll() == 0 and watch.rollout() is None
    day = home / "sessions" / "2026" / "11" / "29"
    day.mkdir(parents=True)
    rollout = day / "rollout-2026-11-29T15-40-00-0190-abc.jsonl"
    rollout.write_text(
        _line("session_meta", {"id": "0190-abc", "cwd": "/w"})
        + _line("event_msg", {"type": "task_started"})
        + _line("response_item", {"type": "message", "role": "assistant"})
    )
    assert watch.poll() == 0
    assert watch.thread_id == "0190-abc"
    with open(rollout, "a") as fh:
        fh.write(_line("event_msg", {"type": "task_complete"})[:20])  # half a line
    assert watch.poll() == 0
    with open(rollout, "a") as fh:
        fh.write(_line("event_msg", {"type": "task_complete"})[20:])
        fh.write(_line("event_msg", {"type": "turn_aborted", "reason": "interrupted"}))
    assert watch.poll() == 2
    later = day / "rollout-2026-11-29T15-41-00-0190-sub.jsonl"
    later.write_text(_line("event_msg", {"type": "task_complete"}))
    assert watch.poll() == 2 and watch.rollout() == rollout, "pinned to the first rollout"


def test_tail_copies_what_it_reads(tmp_path: Path) -> None:
    source, copy = tmp_path / "chat.jsonl", tmp_path / "copy.jsonl"
    source.write_text('{"a": 1}\n{"b"')
    tail = JsonlTail(source, copy)
    assert tail.new_records() == [{"a": 1}]
    with open(source, "a") as fh:
        fh.write(": 2}\nnot json\n")
    assert tail.new_records() == [{"b": 2}]
    assert copy.read_text() == source.read_text()


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        (None, ("never", "danger-full-access")),
        ("yolo", ("never", "danger-full-access")),
        ("on-request", ("on-request", "workspace-write")),
        ("never", ("never", "danger-full-access")),
        ("read-only", ("never", "read-only")),
        ("on-request/read-only", ("on-request", "read-only")),
        ("workspace-write, on-failure", ("on-failure", "workspace-write")),
    ],
)
def test_permission_modes_choose_approval_and_sandbox(
    mode: str | None, expected: tuple[str, str]
) -> None:
    assert interactive_permissions(mode) == expected


def test_unknown_permission_mode_names_the_choices() -> None:
    with pytest.raises(AgentError, match="on-request"):
        interactive_permissions("acceptEdits")


@pytest.mark.parametrize("mode", ["untrusted", "untrusted/workspace-write"])
def test_the_untrusted_policy_codex_retired_is_refused_with_its_reason(mode: str) -> None:
    """Codex 0.171.0's terminal UI refuses `approval_policy = "untrusted"` ("is no longer
    supported; remove this setting"), and headless drops it: refused before the run."""
    with pytest.raises(AgentError, match="no longer supports the 'untrusted' approval policy"):
        interactive_permissions(mode)


def test_the_fix_for_the_retired_policy_says_when_on_request_asks() -> None:
    """``on-request`` runs in the workspace-write sandbox and asks only for a command the model
    asks to run outside it: a command that stays in the workspace runs without a prompt."""
    with pytest.raises(AgentError, match="outside the workspace-write sandbox"):
        interactive_permissions("untrusted")


@pytest.mark.parametrize(
    ("answer", "index"),
    [("yes", 0), ("approve", 0), ("Allow.", 0), ("deny", 2), ("no", 2), ("Nope", None)],
)
def test_a_plain_yes_or_no_chooses_the_option_that_approves_or_refuses(
    answer: str, index: int | None
) -> None:
    """Gemini CLI's permission prompt names no option "yes": an answering model's
    ``{"action": "approve", "answer": "yes"}`` or a rule's ``=> yes`` must approve, as an ACP
    agent's request takes it, not leave the prompt unanswered."""
    options = ["Allow once", "Allow for this session", "No, suggest changes (esc)"]
    assert option_index(options, answer) == index


def test_a_rollout_replaced_is_counted_anew(tmp_path: Path) -> None:
    """A rollout rewritten whole (renamed over the old): its turns are those of the new file,
    not the old file's and the new one's added up."""
    home = tmp_path / ".codex"
    rollout = home / "sessions" / "rollout-2026-11-29T15-40-00-0190-abc.jsonl"
    rollout.parent.mkdir(parents=True)
    end = _line("event_msg", {"type": "task_complete"})
    rollout.write_text(end)
    watch = tui.RolloutWatch(home)
    assert watch.poll() == 1
    replacement = rollout.with_name("new.jsonl")
    replacement.write_text(end + end)
    os.replace(replacement, rollout)
    assert watch.poll() == 2


@pytest.mark.parametrize(
    ("answer", "indices"),
    [
        ("Red, Blue", [0, 2]),
        ("blue,red", [0, 2]),
        ("Yes, and more", [3]),
        ("3, 1", [0, 2]),
        ("Red, Red", [0]),
        (" RED ,  yes, AND more ", [0, 3]),
        ("Red, Purple", None),
        ("Red and Blue", None),
        ("Red, Blue and Green", None),
        ("Green tea, Blue", None),
        ("Gre, Blue", None),
        ("Red, 5", None),
        ("Purple", None),
        (" , ", None),
    ],
)
def test_a_multiple_choice_answer_names_each_option_by_commas(
    answer: str, indices: list[int] | None
) -> None:
    """Comma-separated parts, each exactly an option's label or number (not read as a single
    choice's answer is: ``Red and Blue`` is none of them); a label holding a comma is taken
    whole; a part that names no option refuses the answer."""
    assert option_indices(["Red", "Green", "Blue", "Yes, and more"], answer) == indices


@pytest.mark.parametrize(
    ("answer", "named", "own"),
    [
        ("Red, Blue", [0, 2], ""),
        ("Red, extra basil", [0], "extra basil"),
        ("extra basil, Blue", [2], "extra basil"),
        ("Red, basil, oregano, Blue", [0, 2], "basil, oregano"),
        ("Red and Blue", [], "Red and Blue"),
        ("Green tea, Blue", [2], "Green tea"),
        ("Red, 5", [0], "5"),
        ("Yes, and more, garlic", [3], "garlic"),
        (" , ", [], ""),
    ],
)
def test_a_multiple_choice_answer_keeps_the_parts_that_name_no_option(
    answer: str, named: list[int], own: str
) -> None:
    """The parts that name no option exactly are an answer of one's own, joined again with
    ``, `` in the answer's order (nothing is guessed for them); option_indices refuses such an
    answer."""
    options = ["Red", "Green", "Blue", "Yes, and more"]
    assert option_parts(options, answer) == (named, own)
    if own:
        assert option_indices(options, answer) is None


@pytest.mark.parametrize("answer", ["²", "¹, 2", "①"])
def test_a_digit_that_is_no_number_names_no_entry(answer: str) -> None:
    """A superscript or circled digit is a digit to ``str.isdigit`` but no number ``int``
    reads: no entry (it raised before), for one choice or several."""
    assert option_indices(["a", "b"], answer) is None
    assert option_index(["a", "b"], answer.split(",")[0]) is None


def test_labels_are_compared_case_folded() -> None:
    """``STRASSE`` is ``Straße`` whatever its case (``lower()`` keeps the ß, ``casefold()``
    makes it ss, as the Unicode standard compares them), on both kinds of picker."""
    options = ["Weg", "Straße", "Platz"]
    assert option_index(options, "STRASSE") == 1
    assert option_indices(options, "weg, STRASSE") == [0, 1]
    assert option_index(options, "Gasse") is None  # control: no label is guessed


def test_the_fix_for_the_retired_policy_names_the_sandbox_chosen() -> None:
    # POLICY/SANDBOX: the sandbox the user chose is the one a command stays in.
    with pytest.raises(AgentError, match="outside the read-only sandbox"):
        interactive_permissions("untrusted/read-only")
