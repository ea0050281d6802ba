"""dump_json and model_to_json: orjson and pydantic write the text, the standard library takes
over for what they refuse, and the text reads back the same either way."""

from __future__ import annotations

import json

from proctor.models.history import SessionSummary
from proctor.models.io import dump_json, model_to_json
from proctor.models.suite import Spread

DATA = {"name": "é ☃", "n": 3, "x": 0.1, "tiny": 1.5e-07, "nested": {"list": [1, None, True]}}


def test_dump_json_is_indented_utf8_text_that_reads_back_the_same() -> None:
    text = dump_json(DATA)
    assert text.endswith("}\n")
    assert '  "name": "é ☃",\n' in text
    assert json.loads(text) == DATA
    assert (
        text == json.dumps(DATA, indent=2, ensure_ascii=False).replace("1.5e-07", "1.5e-7") + "\n"
    )


def test_dump_json_escapes_a_lone_surrogate_through_the_standard_library() -> None:
    text = dump_json({"file": "bad\udcffname"})
    assert json.loads(text) == {"file": "bad\\xffname"}
    text.encode("utf-8")  # nothing left that UTF-8 cannot hold


def test_dump_json_takes_keys_that_are_not_strings() -> None:
    assert json.loads(dump_json({1: "one", 2: "two"})) == {"1": "one", "2": "two"}


def test_model_to_json_uses_camel_case_keys_and_falls_back_for_a_surrogate() -> None:
    text = model_to_json(Spread(n=2, median=1.5, min=1, max=2))
    assert json.loads(text) == {"n": 2, "median": 1.5, "min": 1.0, "max": 2.0}
    assert text.startswith("{\n  ")
    summary = SessionSummary(agent="codex", path="bad\udcffname", rules_fired=["loops"])
    data = json.loads(model_to_json(summary))
    assert data["path"] == "bad\\xffname"
    assert data["rulesFired"] == ["loops"]
