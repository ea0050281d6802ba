import pytest

from proctor.drive.answering import QnaError, answer_question, parse_qna_rules

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
