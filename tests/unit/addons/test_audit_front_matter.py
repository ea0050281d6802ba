"""The audit's reading of skills' front matter agrees with what each CLI was measured to offer
(``tests/contract/test_skills.py``, run against the real CLIs)."""

from __future__ import annotations

import pytest

from proctor.addons.audit.front_matter import codex_skill, gemini_cli_skill
from tests.contract.test_skills import FRONT_MATTER_SKILLS, OFFERED

RULES = {"codex": codex_skill, "gemini-cli": gemini_cli_skill}


@pytest.mark.parametrize("agent", sorted(RULES))
def test_the_audit_loads_the_skills_each_cli_was_measured_to_offer(agent: str) -> None:
    loaded = {
        "FM" + folder.upper()
        for folder, text in FRONT_MATTER_SKILLS.items()
        if RULES[agent](text, folder)[1] is None
    }
    # (Gemini CLI offers "twice" with its second description, which has no marker.)
    assert loaded - {"FMTWICE"} == OFFERED[agent]


def test_gemini_cli_names_a_skill_as_its_line_reader_does_where_js_yaml_stops() -> None:
    text = '---\nname: "quoted"\ndescription: d\ntools: *none\n---\n'
    assert gemini_cli_skill(text, "folder") == ("-quoted-", None)
    assert gemini_cli_skill(text.replace("*none", "x"), "folder") == ("quoted", None)
    nested = "---\nname: outer\ndescription: d\nmeta:\n  name: inner\nx: *none\n---\n"
    assert gemini_cli_skill(nested, "folder") == ("inner", None)
