"""File names in workspace.diff are quoted as git quotes them, and lines end at "\\n" only: no
name or line of the agent's making can forge a header or a hunk that hides a change."""

from __future__ import annotations

import pytest

from proctor.evaluators.gates.patches import parse_unified_diff
from proctor.util.diffpaths import quote_path, unquote_path
from proctor.workspace.diff import unified_diff

FORGED = "a\n@@ -0,0 +1,999 @@"


@pytest.mark.parametrize(
    ("name", "quoted"),
    [
        ("plain name.txt", "plain name.txt"),
        ("é ☃.md", "é ☃.md"),
        (FORGED, '"a\\n@@ -0,0 +1,999 @@"'),
        ("tab\there", '"tab\\there"'),
        ('say "hi"', '"say \\"hi\\""'),
        ("back\\slash", '"back\\\\slash"'),
        ("bell\x07del\x7f", '"bell\\adel\\177"'),
        ("bad\udcffname", '"bad\\377name"'),
    ],
)
def test_names_are_quoted_as_git_quotes_them_and_read_back(name: str, quoted: str) -> None:
    assert quote_path(name) == quoted
    if quoted == name:
        assert unquote_path(name) == (name, "")  # unquoted: the name is the whole text
        return
    expected = name.replace("\udcff", "\ufffd")  # a byte that is not UTF-8 reads back replaced
    assert unquote_path(quoted + " b/x") == (expected, " b/x")


def test_a_forged_hunk_header_in_a_file_name_hides_no_deletion() -> None:
    before = {"test_calc.py": b"def test():\n    assert add(2, 3) == 5\n"}
    after = {FORGED: b"x"}
    changes = {c.path: c for c in parse_unified_diff(unified_diff(before, after))}
    assert changes["test_calc.py"].kind == "deleted"
    assert changes[FORGED].kind == "added" and changes[FORGED].added == ["x"]


def test_control_the_same_diff_with_the_name_written_raw_hides_the_deletion() -> None:
    """What the quoting prevents: written unquoted, the name swallows what follows it."""
    diff = unified_diff({"test_calc.py": b"gone\n"}, {FORGED: b"x"})
    raw = diff.replace(quote_path(f"a/{FORGED}"), f"a/{FORGED}").replace(
        quote_path(f"b/{FORGED}"), f"b/{FORGED}"
    )
    assert raw != diff
    assert "test_calc.py" not in {c.path for c in parse_unified_diff(raw)}


def test_a_form_feed_or_a_line_separator_is_inside_a_line_not_between_two() -> None:
    old = b"a = 1\n\x0c\nb = 2\x0c # page\nc\n"
    new = b"a = 1\n\x0c\nb = 2\x0c # page\nC\n"
    diff = unified_diff({"ff.py": old}, {"ff.py": new})
    assert "@@ -1,4 +1,4 @@" in diff and "No newline" not in diff
    (change,) = parse_unified_diff(diff)
    assert (change.removed, change.added) == (["c"], ["C"])
    spaced = unified_diff({"ls.txt": "one\u2028two\n".encode()}, {"ls.txt": b"one\n"})
    (change,) = parse_unified_diff(spaced)
    assert change.removed == ["one\u2028two"] and change.added == ["one"]
