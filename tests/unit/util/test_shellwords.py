"""Simple shell commands told apart: reading, searching or listing, or anything else."""

from __future__ import annotations

import random
import shlex

import pytest

from proctor.util.shellwords import _compound, looking_kind, simple_argv


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        ("cat src/app.py", "read"),
        ("sed -n '1,80p' src/app.py", "read"),
        ("head -n 20 README.md", "read"),
        ("/usr/bin/nl -ba src/app.py", "read"),
        (["bash", "-lc", "cat src/app.py"], "read"),
        (["cat", "src/app.py"], "read"),
        ("rg -n total src", "search"),
        ("grep -R 'def total' .", "search"),
        ("ls -la src", "search"),
        ("find . -name '*.py'", "search"),
        ("git grep total", "search"),
        ("git ls-files", "search"),
        (["bash", "-lc", "rg total"], "search"),
        ("bash -lc 'cat src/app.py'", "read"),
        ("sed -n '/def total/,/return/p' src/app.py", "read"),
        ("fd test_", "search"),
        # The controls: what writes, runs or chains is none of these.
        ("sed -i 's/a/b/' src/app.py", None),
        ("sed 's/a/b/' src/app.py", None),
        ("cat a.py > b.py", None),
        ("cat a.py | wc -l", None),
        ("cd src && cat app.py", None),
        ("find . -name '*.pyc' -delete", None),
        ("find . -name '*.py' -fprintf out '%p'", None),
        ("find . -execdir rm {} +", None),
        ("fd -x rm", None),
        ("sed -n 'w out.txt' src/app.py", None),
        ("sed -n '1,5p;w out' src/app.py", None),
        ("sed -n 1,5p -i src/app.py", None),
        ("sed -n 1,5p src/app.py --in-place", None),
        ("cat a.txt\nrm -rf src", None),
        ("ls\rrm -rf build", None),
        (["bash", "-lc", "cat a\nrm b"], None),
        ("cat a.py # a comment", None),
        ("#cat a.py", None),
        ("grep -rn '#include' src", "search"),
        ("grep -n '# TODO' a.py", "search"),
        ("cat notes#1.md", "read"),
        ("cat 'notes#1.md'", "read"),
        ("sed -n 1p -e 'w x.out' a.py", None),
        ("sed -n 1p a.py --expression=w/tmp/x", None),
        ("git grep --open=touch foo", None),
        ("git grep -o foo", "search"),
        ("tail --fo t.log", None),
        ("tail -qf t.log", None),
        ("fd -Hx rm", None),
        ("fd --exclude node_modules test_", "search"),
        ("ag --pag less foo", None),
        ("ack --pager=./x foo", None),
        ("more +10 a.py", "read"),
        ("less +F app.log", None),
        ("grep -rn 'foo|bar' src", "search"),
        ("grep -E 'a|b' src", "search"),
        ("sed -n '10,$p' src/app.py", "read"),
        ("sed -n '/def total(/,/return/p' src/app.py", "read"),
        ("rg 'fn main()' src", "search"),
        ("grep -n 'a;b' f", "search"),
        ("rg --pretty foo src", "search"),
        ("rg --pre-glob '*.gz' foo", "search"),
        ("rg --pre=./unzip.sh foo", None),
        ('grep "$HOME" f', None),  # an expansion inside double quotes
        ('grep "a|b" f', "search"),
        ("fd --exec=rm x", None),
        ("fd --exec-batch=rm x", None),
        ("rg --pre ./run.sh foo", None),
        ("git grep -Ovim foo", None),
        ("git grep --open-files-in-pager=vim foo", None),
        ("ag --pager less foo", None),
        ("tree -o out.txt", None),
        ("less '+!rm -rf x' f", None),
        ("tail -f app.log", None),
        ("tail -n 20 app.log", "read"),
        ("git commit -m x", None),
        ("pytest -q", None),
        ("python3 -m unittest", None),
        (["bash", "-lc", "pytest -q"], None),
        ("", None),
        ([], None),
        (None, None),
        ("cat 'unclosed", None),
    ],
)
def test_a_command_is_a_read_a_search_or_neither(command: object, kind: str | None) -> None:
    assert looking_kind(command) == kind


def test_a_simple_command_splits_and_a_compound_one_does_not() -> None:
    assert simple_argv("sed -n '1,9p' a.py") == ["sed", "-n", "1,9p", "a.py"]
    assert simple_argv(["sh", "-c", "cat a.py"]) == ["cat", "a.py"]
    assert simple_argv("cat a.py; rm a.py") is None
    assert simple_argv("echo $(cat a.py)") is None


def test_a_command_without_quotes_splits_as_shlex_splits_it() -> None:
    """The split without shlex (no quote, no backslash) gives shlex's words: blanks are a
    space, a tab or a line's end; anything else, a no-break space or a ``#`` inside a word
    included, belongs to a word."""
    rng = random.Random(7)
    alphabet = "ab -./ \t\u00a0#=*~0"
    compared = 0
    for _ in range(20_000):
        command = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        argv = simple_argv(command)
        if _compound(command) or (argv is not None and argv[:1] == ["sh"]):
            continue
        assert argv == (shlex.split(command) or None), repr(command)
        compared += 1
    assert compared > 10_000
