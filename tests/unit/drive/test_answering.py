import pytest

from proctor.discover.qna import QnaError, parse_qna_rules
from proctor.drive.answering import answer_question

QNA = """Prose for a model.

```rules
# comment
(?i)readme => No
overwrite .* => Yes, overwrite it.
```

```python
not => rules
```
"""


def test_rules_are_parsed_from_the_rules_block_only() -> None:
    rules = parse_qna_rules(QNA)
    assert [(r.pattern, r.answer) for r in rules] == [
        ("(?i)readme", "No"),
        ("overwrite .*", "Yes, overwrite it."),
    ]


def test_first_matching_rule_answers() -> None:
    rules = parse_qna_rules(QNA)
    answer = answer_question("Should I update the README?", rules)
    assert (answer.text, answer.policy) == ("No", "rule")


def test_no_match_aborts() -> None:
    answer = answer_question("Deploy to production?", parse_qna_rules(QNA))
    assert answer.text is None and answer.policy == "abort"


@pytest.mark.parametrize("line", ["no arrow here", " => empty pattern", "(( => bad regex"])
def test_malformed_rules_name_the_line(line: str) -> None:
    with pytest.raises(QnaError, match="line 2"):
        parse_qna_rules(f"```rules\n{line}\n```\n")


@pytest.mark.parametrize(
    "text",
    [
        "\ufeff```rules\nREADME => No\n```\n",  # a byte-order mark first
        "~~~rules\nREADME => No\n~~~\n",
        "  ```rules\nREADME => No\n  ```\n",  # indented fences
        "````rules\nREADME => No\n````\n",
    ],
)
def test_markdown_fences_of_every_kind_hold_rules(text: str) -> None:
    rules = parse_qna_rules(text)
    assert rules[0].pattern == "README" and rules[0].line == 2


def test_a_rules_block_inside_another_fence_is_an_example_not_rules() -> None:
    text = "````markdown\n```rules\nREADME => No\n```\n````\n"
    assert parse_qna_rules(text) == []


def test_a_shorter_fence_does_not_close_a_longer_one() -> None:
    with pytest.raises(QnaError, match="line 3: expected 'PATTERN => ANSWER', got \"```\""):
        parse_qna_rules("````rules\nREADME => No\n```\nmore => rules\n````\n")


def test_control_an_unclosed_rules_block_is_an_error() -> None:
    with pytest.raises(QnaError, match=r"line 3: the ```rules block opened here is never closed"):
        parse_qna_rules("Prose.\n\n```rules\nREADME => No\n")


@pytest.mark.parametrize("tag", ["Rules", "RULES", "rule", "rulse", "~~~Rule"])
def test_a_rules_block_tagged_with_a_near_miss_is_refused_not_read_as_prose(tag: str) -> None:
    """```Rules passed validate and its rules never answered: the block read as prose."""
    fence, info = ("~~~", tag[3:]) if tag.startswith("~~~") else ("```", tag)
    with pytest.raises(QnaError) as raised:
        parse_qna_rules(f"Prose.\n\n{fence}{info}\nchangelog => No\n{fence}\n")
    assert str(raised.value) == (
        f"line 3: a block tagged {fence}{info}: rules blocks are tagged {fence}rules, in lower "
        "case; as tagged, its lines would be prose for the answering model and no rule of it "
        "would answer"
    )


@pytest.mark.parametrize(
    "tag", ["", "text", "markdown", "python", "rust", "ruby", "roles", "ruler", "rulers", "mules"]
)
def test_control_other_blocks_stay_prose(tag: str) -> None:
    assert parse_qna_rules(f"```{tag}\nchangelog => No\n```\n") == []
