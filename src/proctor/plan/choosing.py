"""Which cases ``--case`` and ``--tag`` choose, and what a case they leave out may say.

A case whose configuration is refused stops a run that would run it (``proctor validate``
counts it a problem). One that ``--case`` does not name, or whose config.json gives tags none
of ``--tag``'s, is not run: its problem is no reason to refuse the cases chosen, and is said as
a warning. With ``--tag`` alone, a case whose
tags cannot be read might carry the tag: its problem stops the run, as it would without
``--tag``.
"""

from __future__ import annotations

import fnmatch

from proctor.discover.folders import Discovery
from proctor.errors import ConfigError
from proctor.models.config import CliOverrides
from proctor.models.io import escape_surrogates
from proctor.util.json_shown import name_shown
from proctor.util.text import did_you_mean

LEFT_UNREAD = "does not choose, is not read:"
"""What a warning on a case a run leaves out for its configuration says (said once per command,
however many plans find it: see :func:`~proctor.util.logs.said_once`)."""


def picks(name: str, glob: str) -> bool:
    """Whether ``--case GLOB`` picks the case ``name``: as spelled, or as the records and
    messages show it (a byte of a folder name that is not UTF-8 as ``\\xff``)."""
    return fnmatch.fnmatchcase(name, glob) or fnmatch.fnmatchcase(escape_surrogates(name), glob)


def _options(cli: CliOverrides) -> str:
    return " and ".join(o for o, given in (("--case", cli.cases), ("--tag", cli.tags)) if given)


def unchosen_problems(
    found: Discovery, cli: CliOverrides, problems: list[str], chosen_by: str | None = None
) -> tuple[list[str], list[str]]:
    """The ``problems`` discovery noted in ``found`` sorted out: the warnings on the cases
    ``--case``/``--tag`` do not choose, one a problem, and the problems that stop the run: of
    a case they choose, or might (``--tag``, and tags its config.json cannot give), or of no
    case (a task file's). ``chosen_by``: what the warnings name as leaving a case out, when
    not ``--case``/``--tag`` as given (``the manifest m.json``, whose tasks they are)."""
    warnings: list[str] = []
    stopping: list[str] = []
    for name in dict.fromkeys(found.broken):
        said = found.said.get(name, [])
        tags = found.tags.get(name)
        named = not cli.cases or any(picks(name, glob) for glob in cli.cases)
        if named and cli.tags and tags is None:
            stopping.append(
                f"{said[0]} (its tags cannot be read, so --tag {', '.join(cli.tags)} cannot "
                f"tell whether case '{escape_surrogates(name)}' is chosen: fix it, or name the "
                "cases to run with --case)"
            )
            stopping.extend(said[1:])
        elif named and (not cli.tags or set(tags or []) & set(cli.tags)):
            stopping.extend(said)
        else:
            which = f"case '{escape_surrogates(name)}', which {chosen_by or _options(cli)}"
            warnings.extend(f"{which} {LEFT_UNREAD} {problem}" for problem in said)
    attributed = {problem for said in found.said.values() for problem in said}
    stopping.extend(problem for problem in problems if problem not in attributed)
    return warnings, stopping


def selection(cli: CliOverrides) -> str:
    """The --case and --tag options that chose the cases, as given."""
    given = [f"--case {c}" for c in cli.cases or ()] + [f"--tag {t}" for t in cli.tags or ()]
    return " ".join(given)


def unknown_condition(
    name: str,
    chosen: list[str],
    defined: set[str],
    everywhere: set[str],
    cli: CliOverrides,
    found: int,
) -> str:
    """The sentence refusing ``--condition NAME`` that no case of ``chosen`` (the names of the
    cases chosen) has, ``defined`` their conditions: the one case asked for (by ``--case``,
    ``--tag``, or as the only one of the ``found``) is named; a condition only cases left out
    have (``everywhere``: those of every case found) is said so."""
    near, listed = did_you_mean(name, sorted(defined)), ", ".join(sorted(defined)) or "none"
    if len(chosen) == 1 and (cli.cases or cli.tags or found == 1):
        said = f"case '{escape_surrogates(chosen[0])}' has no such condition ({near}its "
    elif chosen and (cli.cases or cli.tags):
        said = f"no case {selection(cli)} chooses has that condition ({near}their "
    else:
        said = f"no case has that condition ({near}"
    said += f"conditions: {listed})"
    if name in everywhere - defined:
        said += f"; it is only of cases left out by {selection(cli)}"
    return f"--condition {name_shown(name)}: {said}"


def check_tag_typos(found: Discovery, cli: CliOverrides) -> None:
    """A ``--tag`` no case found carries is a typo, said as such even beside tags that choose
    cases, as a ``--case`` that matches nothing is: it would otherwise run less than asked,
    and pass (the tags a broken case's config.json gives count as carried)."""
    carried = sorted({tag for case in found.cases for tag in case.tags})
    every = {*carried, *(tag for tags in found.tags.values() for tag in tags or ())}
    unknown = [tag for tag in cli.tags if tag not in every]
    if not unknown:
        return
    shown = ", ".join(carried[:20]) + (", …" if len(carried) > 20 else "")
    near = did_you_mean(unknown[0], carried) if len(unknown) == 1 else ""
    raise ConfigError(
        f"--tag {', '.join(map(name_shown, unknown))}: no case carries it ({near}tags: {shown})"
    )


def broken_chosen(found: Discovery, cli: CliOverrides) -> list[str]:
    """The cases whose files are refused that ``--case`` and ``--tag`` choose: by name, and
    by the tags their config.json gives (one whose tags cannot be read is chosen: its problem
    stops the run)."""
    named = [n for n in found.broken if any(picks(n, g) for g in cli.cases or ["*"])]
    if not cli.tags:
        return named
    return [n for n in named if (t := found.tags.get(n)) is None or set(t) & set(cli.tags)]
