"""Checkpoint files, waste signals, eligibility and the --live draw."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from proctor.addons.grounding.checkpoints import (
    Checkpoint,
    CheckpointFile,
    has_waste,
    is_eligible,
    load_checkpoints,
    select_all,
    select_live,
)
from proctor.errors import ConfigError


def cp(name: str, waste: bool | str | None = None, **signals: Any) -> dict[str, Any]:
    item: dict[str, Any] = {"id": name, "signals": signals or {"tokens": 100}}
    if waste is not None:
        item["waste"] = waste
    return item


def write(tmp_path: Path, data: Any, name: str = "checkpoints.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_a_list_an_object_and_json_lines_load_alike(tmp_path: Path) -> None:
    items = [cp("a", tokens=12), cp("b", waste=True, tokens=40)]
    as_list = load_checkpoints(write(tmp_path, items))
    as_object = load_checkpoints(write(tmp_path, {"checkpoints": items}, "o.json"))
    lines = "\n".join(json.dumps(i) for i in items) + "\n\n"
    as_lines = load_checkpoints(write(tmp_path, lines, "c.jsonl"))
    assert as_list == as_object == as_lines
    assert [c.id for c in as_list.checkpoints] == ["a", "b"]


@pytest.mark.parametrize(
    ("data", "name", "expected"),
    [
        (
            [cp("a"), {"id": "b", "signals": 5}],
            "c.json",
            "checkpoint 'b': field 'checkpoints[1].signals'",
        ),
        (
            [cp("a"), {"id": "b", "signals": {}, "signal": {}}],
            "c.json",
            "checkpoint 'b': unknown key",
        ),
        (
            [cp("a"), {"id": "b", "signals": {}, "wast": True}],
            "c.json",
            "checkpoint 'b': unknown key 'checkpoints[1].wast' (did you mean 'waste'? known keys: "
            "id, note, signals, waste)",
        ),
        ([{"signals": {"x": 1}}], "c.json", "field 'checkpoints[0].id' is required"),
        ([cp("a", waste="maybe")], "c.json", "checkpoint 'a': field 'checkpoints[0].waste'"),
        ({"checkpoints": [], "wasteThreshold": {}}, "c.json", "unknown key 'wasteThreshold'"),
        ('{"id": "a", "signals": {}}\n{"id": 3}\n', "c.jsonl", "line 2: field 'id'"),
        ('{"id": "a", "signals": {}}\n{oops\n', "c.jsonl", "line 2: malformed JSON"),
        ("[1,", "c.json", "malformed JSON at line 1"),
        ('"text"', "c.json", "expected a list of checkpoints or an object"),
        (
            [cp("a"), cp("b"), cp("a")],
            "c.json",
            "checkpoint id 'a' appears twice (checkpoints[0] and checkpoints[2])",
        ),
        (
            '{"id": "a", "signals": {}}\n\n{"id": "b", "signals": {}}\n{"id": "a", "signals": {}}\n',
            "c.jsonl",
            "checkpoint id 'a' appears twice (line 1 and line 4)",
        ),
    ],
)
def test_a_bad_file_is_one_sentence_naming_file_checkpoint_and_field(
    tmp_path: Path, data: Any, name: str, expected: str
) -> None:
    path = write(tmp_path, data, name)
    with pytest.raises(ConfigError) as caught:
        load_checkpoints(path)
    message = str(caught.value)
    assert message.startswith(str(path)) and expected in message, message
    assert "\n" not in message


def test_waste_is_the_flag_or_else_a_waste_signal_reaching_its_threshold() -> None:
    thresholds = {"redundantReads": 3, "repeatedFailures": 2}
    assert has_waste(Checkpoint.model_validate(cp("a", redundantReads=3)), thresholds)
    assert has_waste(Checkpoint.model_validate(cp("a", repeatedFailures=5)), thresholds)
    assert not has_waste(Checkpoint.model_validate(cp("a", redundantReads=2)), thresholds)
    assert not has_waste(Checkpoint.model_validate(cp("a", tokens=10**6)), thresholds)
    assert not has_waste(Checkpoint.model_validate(cp("a", redundantReads=True)), thresholds)
    flagged = Checkpoint.model_validate(cp("a", waste=False, redundantReads=30))
    assert not has_waste(flagged, thresholds)
    assert has_waste(Checkpoint.model_validate(cp("a", waste=True, tokens=1)), thresholds)


def test_a_file_may_set_its_own_thresholds(tmp_path: Path) -> None:
    file = load_checkpoints(
        write(tmp_path, {"checkpoints": [cp("a", loops=4)], "wasteThresholds": {"loops": 5}})
    )
    assert not has_waste(file.checkpoints[0], file.waste_thresholds)


def test_eligible_means_a_figure_somewhere_in_the_signals() -> None:
    assert is_eligible(Checkpoint.model_validate(cp("a", phase="retry 3")))
    assert is_eligible(Checkpoint.model_validate(cp("a", nested={"n": [0]})))
    assert not is_eligible(Checkpoint.model_validate(cp("a", phase="reading", done=False)))


def sample(wasteful: int, clean: int, ineligible: int = 0) -> CheckpointFile:
    items = [cp(f"w{i}", waste=True, tokens=100 + i) for i in range(wasteful)]
    items += [cp(f"c{i}", waste=False, tokens=200 + i) for i in range(clean)]
    items += [cp(f"x{i}", waste=True, phase="none") for i in range(ineligible)]
    return CheckpointFile.model_validate({"checkpoints": items})


def ids(file: CheckpointFile, count: int, seed: int = 0) -> list[str]:
    return [c.id for c in select_live(file, count, seed).checkpoints]


def test_live_takes_half_with_waste_and_half_without() -> None:
    chosen = ids(sample(10, 10, ineligible=5), 6)
    assert len(chosen) == 6
    assert sum(i.startswith("w") for i in chosen) == sum(i.startswith("c") for i in chosen) == 3


def test_an_odd_count_gives_the_extra_one_to_the_waste_side() -> None:
    chosen = ids(sample(10, 10), 5)
    assert sum(i.startswith("w") for i in chosen) == 3


def test_the_draw_is_deterministic_for_a_seed_and_changes_with_it() -> None:
    file = sample(20, 20)
    assert ids(file, 4, seed=1) == ids(file, 4, seed=1)
    assert any(ids(file, 4, seed=s) != ids(file, 4, seed=1) for s in range(2, 6))


def test_a_short_side_is_taken_whole_and_the_other_fills_up_with_a_note() -> None:
    selection = select_live(sample(1, 10), 6, 0)
    chosen = [c.id for c in selection.checkpoints]
    assert chosen.count("w0") == 1 and len(chosen) == 6
    assert "took 1 with and 5 without" in selection.notes[-1]


def test_ineligible_checkpoints_are_never_drawn_and_none_eligible_draws_nothing() -> None:
    assert ids(sample(0, 0, ineligible=4), 4) == []
    assert all(not i.startswith("x") for i in ids(sample(2, 2, ineligible=9), 10))


def test_without_live_every_checkpoint_runs_in_file_order() -> None:
    file = sample(2, 2, ineligible=1)
    assert [c.id for c in select_all(file).checkpoints] == ["w0", "w1", "c0", "c1", "x0"]


def test_a_signal_written_as_nan_is_measured_data_and_loads(tmp_path: Path) -> None:
    """Python's json.dumps writes NaN for a ratio it could not compute; the checkpoint loads
    (the rule against non-finite numbers is for settings)."""
    path = write(tmp_path, json.dumps([cp("a", ratio=float("nan"), tokens=3)]))
    (loaded,) = load_checkpoints(path).checkpoints
    assert loaded.signals["tokens"] == 3


def test_an_integer_too_long_to_read_or_json_too_deep_is_one_sentence(tmp_path: Path) -> None:
    digits = "9" * 4400
    too_long = "a number has more than 4300 digits, too long to read"
    text = f'[{{"id": "a", "signals": {{"x": {digits}}}}}]'
    with pytest.raises(ConfigError, match=f"checkpoints.json: {too_long}"):
        load_checkpoints(write(tmp_path, text))
    line = text[1:-1] + "\n"
    with pytest.raises(ConfigError, match=f"checkpoints.jsonl, line 1: {too_long}"):
        load_checkpoints(write(tmp_path, line, "checkpoints.jsonl"))
    deep = '{"id": "a", "signals": {"x": ' + "[" * 100_000 + "]" * 100_000 + "}}\n"
    with pytest.raises(ConfigError, match="checkpoints.jsonl, line 1: JSON nested too deeply"):
        load_checkpoints(write(tmp_path, deep, "checkpoints.jsonl"))
