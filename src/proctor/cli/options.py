"""Options shared by several commands."""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from click.core import ParameterSource

FC = TypeVar("FC", bound=Callable[..., Any])


class CasesPath(click.Path):
    """``--source PATH``: where cases are, never a blank one (``--source "$SUITE"`` with the
    variable unset would read the current folder's cases, and run them, without a word)."""

    def __init__(self) -> None:
        super().__init__(path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():
            from proctor.util.json_shown import WHOLE, json_text

            self.fail(
                "expected a folder of cases, a case folder or a task file, not a blank path, "
                "got " + json_text(value, WHOLE),
                param,
                ctx,
            )
        return super().convert(value, param, ctx)


class GivenPath(click.Path):
    """A path an option or argument takes, never a blank one: read as ``Path("")``, the
    current folder, ``--resume "$RUN"`` or ``history "$LOGS"`` with the variable unset would
    go on with what is there, without a word (as :class:`CasesPath` refuses a blank
    ``--source``). ``expected``: what the path names, as the error says it."""

    def __init__(self, expected: str, **kwargs: Any) -> None:
        super().__init__(path_type=Path, **kwargs)
        self.expected = expected

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():
            from proctor.util.json_shown import WHOLE, json_text

            got = json_text(value, WHOLE)
            self.fail(f"expected {self.expected}, not a blank path, got {got}", param, ctx)
        return super().convert(value, param, ctx)


STDIN_CONFIG = Path("/dev/stdin")
"""What ``--config -`` stands for when standard input is a stream (a pipe, a socket, a file
unlinked since it was opened): read once, from the file descriptor itself (see
:func:`proctor.models.loading.top_config_path`), its errors naming ``/dev/stdin``."""

CONFIG_FROM_STDIN = "proctor.config_from_stdin"
"""The key of the Click context's ``meta`` that holds ``--config``'s value as given when it
named standard input (``-``, ``/dev/stdin``), even once that is a file's path: ``run
--manifest -`` refuses it, as one input cannot hold both."""


class ConfigPath(GivenPath):
    """``--config FILE``, every command's alike: a file (or a pipe, ``--config <(…)``; ``-``,
    standard input: see :func:`_stdin_config`), refused in the loader's one sentence when it
    is not there (``--config FILE: no such file``) or is a folder, never in Click's words; a
    blank one as :class:`GivenPath` refuses it. Beside ``run --resume`` (read before it), which
    takes the run's own configuration, it is not checked: the resume refuses it in its own
    sentence. ``no_stdin``: why the command refuses standard input that is not a file (it
    hands the path on to be read again)."""

    def __init__(self, no_stdin: str = "") -> None:
        super().__init__("a configuration file")
        self.no_stdin = no_stdin

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from proctor.paths import names_stdin

        # (Click 8.3 holds a parameter not given yet as its UNSET sentinel, not None)
        resumed = ctx is not None and isinstance(ctx.params.get("resume"), Path)
        checked = not resumed and not (ctx is not None and ctx.resilient_parsing)
        if isinstance(value, str) and names_stdin(value) and checked:
            if ctx is not None:
                ctx.meta[CONFIG_FROM_STDIN] = value
            path = _stdin_config(value, self.no_stdin)
        else:
            path = super().convert(value, param, ctx)
        if not checked:
            return path
        from proctor.models.loading import top_config_path

        # A path given is checked, never ./proctor.json: the current folder is not read (it
        # may be gone, as a command run from a removed folder finds it).
        top_config_path(path, None)
        return path

    def get_metavar(self, *args: Any, **kwargs: Any) -> str:
        return "FILE"  # (a folder is refused: Click would say PATH)


def _stdin_config(given: str, no_stdin: str) -> Path:
    """``--config -`` (or another name of standard input, ``given``): the file standard
    input is, by its path, when it is a file still linked there (``< ci.json``: read, recorded
    and resumed as ``--config ci.json`` is); else :data:`STDIN_CONFIG` (``given`` when it is
    a path) when it is a stream, read once (a pipe, ``… | proctor run --config -``; a socket;
    a file unlinked since, such as a long here-document). A ConfigError (exit 2) when the
    command refuses a stream (``no_stdin`` says why), or when standard input is a terminal
    (it would wait for a configuration typed by hand), closed or something else
    (``/dev/null``: no configuration)."""
    import stat

    from proctor.errors import ConfigError
    from proctor.paths import stdin_file

    found = stdin_file()
    if found is not None:
        return found
    if no_stdin:
        raise ConfigError(f"--config {given}: {no_stdin}; give the configuration as a file")
    try:
        mode = os.fstat(0).st_mode
    except OSError:
        raise ConfigError(
            f"--config {given}: standard input is closed; pipe the configuration in, or give a file"
        ) from None
    if os.isatty(0):
        raise ConfigError(
            f"--config {given}: standard input is a terminal, not a configuration: pipe one "
            "in (`jq … proctor.json | proctor run --config -`), or give a file"
        )
    if not (stat.S_ISFIFO(mode) or stat.S_ISREG(mode) or stat.S_ISSOCK(mode)):
        raise ConfigError(
            f"--config {given}: standard input is not a pipe or a file (a device such as "
            "/dev/null holds no configuration); pipe the configuration in, or give a file"
        )
    return STDIN_CONFIG if given == "-" else Path(given)


CONFIG_PATH = ConfigPath()

MAX_MIN_SAMPLES = 1_000_000
"""The largest ``--min-samples``: more samples than any run holds, so a larger number is a
typo (every verdict would be withheld without a word of why)."""

source_option = click.option(
    "--source",
    "source",
    type=CasesPath(),
    default=Path("."),
    show_default=True,
    help="A folder of case folders, one case folder, a task JSON file or a folder of them.",
)
config_option = click.option(
    "--config",
    "config",
    type=CONFIG_PATH,
    default=None,
    help="Top-level configuration file (default: ./proctor.json when present); - reads it "
    "from standard input.",
)


class Name(click.ParamType):  # type: ignore[type-arg]
    """An option's name of something (an agent, a case, a tag, a condition), never a blank
    one: ``--agent "$AGENT"`` with the variable unset, read as not given, would go on with
    another value without a word (refused as :func:`blank_refused` refuses one)."""

    name = "text"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            named = param.opts[0] if param is not None and param.opts else "the option"
            blank_refused((named, value))
        return value


NAME = Name()


# What chooses which trials a run plans, shared by run and validate (validate checks what that
# run would run, and refuses what it would refuse); eval's --case picks cases by id with it.
def case_option_of(name: str) -> Callable[[FC], FC]:
    """``--case GLOB``, the cases whose ``name`` matches it (a case folder's name for
    ``proctor run``, a case's id for ``proctor eval``)."""
    return click.option(
        "--case",
        "cases",
        type=NAME,
        multiple=True,
        metavar="GLOB",
        help=f"Only cases whose {name} matches GLOB (repeatable; * matches / too).",
    )


case_option = case_option_of("folder name")
tag_option = click.option(
    "--tag",
    "tags",
    type=NAME,
    multiple=True,
    metavar="TAG",
    help="Only cases carrying TAG (repeatable).",
)
condition_option = click.option(
    "--condition",
    "conditions",
    type=NAME,
    multiple=True,
    help="Only these A/B conditions (repeatable).",
)
first_condition_option = click.option(
    "--first-condition",
    type=NAME,
    help="Run this condition first in every pair (default: the order rotates with the repeat).",
)
mode_option = click.option(
    "--mode",
    type=click.Choice(["headless", "interactive"]),
    help="Drive every agent headless or in its terminal UI.",
)
agent_model_option = click.option(
    "--agent-model",
    "agent_models",
    multiple=True,
    metavar="ID=MODEL",
    help="The model agent ID is asked to use (repeatable).",
)
agent_effort_option = click.option(
    "--agent-effort",
    "agent_efforts",
    multiple=True,
    metavar="ID=EFFORT",
    help="The reasoning effort agent ID is asked to use (repeatable).",
)
only_evaluator_option = click.option(
    "--only-evaluator",
    "only_evaluators",
    type=NAME,
    multiple=True,
    metavar="ID",
    help="Run only the evaluators with this use or label (repeatable).",
)
skip_evaluator_option = click.option(
    "--skip-evaluator",
    "skip_evaluators",
    type=NAME,
    multiple=True,
    metavar="ID",
    help="Leave out the evaluators with this use or label (repeatable).",
)
keep_workspace_option = click.option(
    "--keep-workspace", is_flag=True, help="Keep every workspace, not only failed ones."
)


reporter_option = click.option(
    "--reporter",
    "reporters",
    type=NAME,
    multiple=True,
    metavar="NAME",
    help="A reporter to write: markdown, json, junit or html (repeatable, or comma-separated).",
)


def label_options(command: Any) -> Any:
    """``--buckets FILE`` and ``--goal-labels FILE``: label files applied at report time."""
    for option in reversed(
        [
            click.option(
                "--buckets",
                type=click.Path(path_type=Path, dir_okay=False, exists=True),
                help="A label file (task id → bucket: JSON, or 'id,bucket' lines).",
            ),
            click.option(
                "--goal-labels",
                type=click.Path(path_type=Path, dir_okay=False, exists=True),
                help="A label file (task id → goal shape) over the tasks' own.",
            ),
        ]
    ):
        command = option(command)
    return command


def relabeller(
    buckets: Path | None, goal_labels: Path | None, run_dirs: tuple[Path, ...] = ()
) -> Any:
    """The function that applies the label files, or None without any. ``run_dirs``: the runs
    ``report`` reads (as one sample set when there are several); ``compare`` names each run
    as it reads it."""
    if buckets is None and goal_labels is None:
        return None
    from proctor.report.labels import left_out_by_manifest, read_label_file, relabel

    by_bucket = read_label_file(buckets, "--buckets") if buckets else None
    by_shape = read_label_file(goal_labels, "--goal-labels") if goal_labels else None

    said: set[str] = set()
    checked: set[Path | None] = set()

    def relabelled(records: Any, run: Path | None = None) -> Any:
        # A label file may name more tasks than a run has (the whole goals.csv of a suite
        # read pair by pair, a misspelt id): said, as a note, once for the same run (its
        # records read in parts: on the first part that has any), naming the run when read
        # apart; a file that names none of the run's tasks is a wrong file, said so.
        tasks = {record.case for record in records}
        if not tasks or run in checked:
            return relabel(records, by_bucket, by_shape)
        checked.add(run)
        files = (("--buckets", buckets, by_bucket), ("--goal-labels", goal_labels, by_shape))
        whose = f"the tasks of {run}" if run is not None else "the run's tasks"
        whose = "the runs' tasks" if run is None and len(run_dirs) > 1 else whose
        # The tasks a repeat manifest's --goal-shape left out of its pairs: not a mistake.
        aside = left_out_by_manifest([run] if run is not None else list(run_dirs), by_shape)
        for option, path, labels in files:
            if not labels:
                continue
            if not set(labels) & tasks:
                note = (
                    f"proctor: note: {option} {path}: the file names none of {whose} "
                    f"({', '.join(sorted(tasks)[:5])}{', …' if len(tasks) > 5 else ''})"
                )
            elif unmatched := sorted(set(labels) - tasks - aside):
                note = f"proctor: note: {option} {path}: {_unmatched(unmatched, labels, tasks)}"
                note += f" {whose}, {'its label' if len(unmatched) == 1 else 'their labels'} unused"
            else:
                continue
            if note not in said:
                said.add(note)
                click.echo(note, err=True)
        return relabel(records, by_bucket, by_shape)

    return relabelled


def _unmatched(ids: list[str], labels: dict[str, str], tasks: set[str]) -> str:
    """The task ids of a label file that name no task of a run (up to 10), each with the
    unlabelled task of the run it may misspell: ``'fix-ad' (did you mean 'fix-add'?)``."""
    from proctor.util.text import did_you_mean, shown_repr

    unlabelled = sorted(tasks - set(labels))
    shown = []
    for task in ids[:10]:
        near = did_you_mean(task, unlabelled).strip()
        shown.append(f"{shown_repr(task)} ({near})" if near else shown_repr(task))
    more = f" and {len(ids) - 10} more" if len(ids) > 10 else ""
    return f"{', '.join(shown)}{more}: {'not one' if len(ids) == 1 else 'none'} of"


class FiniteRange(click.FloatRange):
    """A number in a range, never NaN or infinity (``click.FloatRange`` lets NaN through every
    bound, since no comparison with it is true)."""

    name = "number"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


budget_option = click.option(
    "--budget-usd",
    type=FiniteRange(min=0, min_open=True),
    help="Warn once when the estimated cost passes this; never abort.",
)


class ResultsFolder(click.Path):
    """``--out FOLDER``: a folder results are written to, never a blank name (``--out ""``
    would be the current folder, among the cases; ``--out " "`` a folder named by a space)."""

    def __init__(self) -> None:
        super().__init__(path_type=Path, file_okay=False)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():
            from proctor.util.json_shown import WHOLE, json_text

            self.fail(
                "expected the path of a results folder, not a blank one, got "
                + json_text(value, WHOLE),
                param,
                ctx,
            )
        if isinstance(value, str):
            from proctor.errors import ConfigError

            named = param.opts[0] if param is not None and param.opts else "--out"
            if os.path.exists(value) and not os.path.isdir(value):
                raise ConfigError(f"{named} {value}: a file, not a folder (results are a folder)")
            blocking = _file_above(value)
            if blocking is not None:
                # `--out FILE/sub`: the folder cannot be made, and nothing has run yet.
                raise ConfigError(
                    f"{named} {value}: {blocking} is a file, not a folder; "
                    "the results folder cannot be made inside it"
                )
        return super().convert(value, param, ctx)


def _file_above(path: str) -> str | None:
    """The nearest folder above ``path`` that exists as something other than a folder (a
    file), as the user spelt it; None when the nearest one there is a folder (or none is)."""
    above = os.path.dirname(os.path.normpath(path))
    while above and above != os.path.dirname(above):
        if os.path.exists(above):
            return None if os.path.isdir(above) else above
        above = os.path.dirname(above)
    return None


def role_models(fast: str | None, workhorse: str | None, judge: str | None) -> dict[str, str]:
    """``--fast-model``, ``--workhorse-model`` and ``--judge-model`` as the roles they set (a
    blank one is refused: given, it is no model, and left out it would be the config's)."""
    blank_refused(
        ("--fast-model", fast), ("--workhorse-model", workhorse), ("--judge-model", judge)
    )
    given = (("fast", fast), ("workhorse", workhorse), ("judge", judge))
    return {role: value for role, value in given if value}


def blank_refused(*options: tuple[str, str | None]) -> None:
    """A ConfigError (exit 2) for an option given a blank value (``--judge-model ""``, an
    unset variable in a script): read as not given, it would run with another value without
    a word."""
    from proctor.errors import ConfigError
    from proctor.util.json_shown import json_text

    for option, value in options:
        if value is not None and not value.strip():
            raise ConfigError(f"{option} {json_text(value)}: expected a value, not a blank one")


def check_folder_of(option: str, path: Path) -> None:
    """A ConfigError (exit 2) unless the folder of the file ``path`` (given as ``option``) is
    there: a file is written, never a missing folder, which a mistyped path would make and
    leave the file where no one looks for it."""
    from proctor.errors import ConfigError

    folder = path.parent
    if not folder.is_dir():
        what = (
            f"{folder} is not a folder"
            if folder.exists()
            else f"the folder {folder} does not exist"
        )
        raise ConfigError(f"{option} {path}: {what}")


def given_options(ctx: click.Context, taken: frozenset[str]) -> list[str]:
    """The options given other than ``taken`` (parameter names) that change something: on the
    command line or by an environment variable, to a value other than the option's default
    (``--executor local``, ``--source .`` or ``--collect-cost`` change nothing), each as it is
    spelt (``--no-evaluate`` for a flag's off switch), in the command's order."""
    given = []
    for param in ctx.command.params:
        name = param.name or ""
        if name in taken or not isinstance(param, click.Option):
            continue
        source = ctx.get_parameter_source(name)
        if source not in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT):
            continue
        if ctx.params.get(name) == _default_of(param, ctx):
            continue
        off = param.secondary_opts and ctx.params.get(name) is False
        spellings = param.secondary_opts if off else param.opts
        given.append(next((o for o in spellings if o.startswith("--")), spellings[0]))
    return given


def _default_of(param: click.Option, ctx: click.Context) -> Any:
    """``param``'s default as its value would be (converted by its type: ``Path(".")``, ``()``
    for a repeatable option left out)."""
    default = param.get_default(ctx)
    if default is None or type(default).__module__.startswith("click."):  # 8.5's UNSET: none
        return () if param.multiple else None
    try:
        return param.type_cast_value(ctx, default)
    except click.BadParameter:  # a default its type refuses is no value a user gives
        return default


def id_pairs(option: str, values: tuple[str, ...]) -> dict[str, str]:
    """``--agent-model ID=MODEL`` (and ``--agent-effort``) given several times, by agent id."""
    from proctor.errors import ConfigError
    from proctor.util.json_shown import WHOLE, json_text

    pairs = {}
    for value in values:
        agent, sep, setting = value.partition("=")
        if not sep or not agent.strip() or not setting.strip():
            raise ConfigError(
                f"{option} {json_text(value, WHOLE)}: expected ID=VALUE, e.g. claude-code=opus"
            )
        pairs[agent] = setting
    return pairs
