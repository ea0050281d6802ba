"""The sentence for keys a user wrote that are not known: the nearest known key named when one
is close, as the configuration's own models say it."""

from proctor.util.text import unknown_keys, unknown_name


def test_a_near_miss_is_named_and_the_known_keys_listed() -> None:
    assert unknown_keys({"statsu"}, {"status", "count"}) == (
        "unknown key 'statsu' (did you mean 'status'? known keys: count, status)"
    )


def test_control_nothing_close_names_no_key_and_several_are_plural() -> None:
    assert unknown_keys({"zz", "qq"}, {"status"}) == "unknown keys 'qq', 'zz' (known keys: status)"


def test_an_unknown_name_names_the_nearest_known_one() -> None:
    assert unknown_name("evaluator", "comand", ["command", "expect"]) == (
        "unknown evaluator 'comand' (did you mean 'command'? known: command, expect)"
    )
    assert unknown_name("role", "zz", ["fast", "judge"]) == (
        "unknown role 'zz' (known: fast, judge)"
    )
