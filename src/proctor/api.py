"""proctor's Python API: run a suite, read a stored run, parse a native transcript.

    import proctor

    result = proctor.run("examples/cases", repeats=3)
    print(result.exit_code, result.suite.totals.pass_rate)
    for trial in result.records:
        print(trial.case, trial.status, trial.score)

    run = proctor.load_run(result.paths.root)         # any run folder, any schema version
    trajectory = proctor.parse_transcript("~/.claude/projects/-home-me-app/<session>.jsonl")

The command line is a thin layer over these functions; every record they return is a model of
:mod:`proctor.models` (the ones written to disk carry ``schemaVersion``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from proctor.errors import ConfigError
from proctor.execute.events import Subscriber, subscriber_exits
from proctor.models.config import CliOverrides
from proctor.models.errors_format import describe_validation_error
from proctor.models.suite import SuiteRecord
from proctor.models.trajectory import Trajectory
from proctor.report.progress import as_of_now, stopped_short_notes
from proctor.report.recompute import check_own_gate, recompute
from proctor.report.reporters import reporter_names
from proctor.report.stored import StoredRun
from proctor.report.stored import load_run as _load_run
from proctor.session.request import RunRequest, RunResult
from proctor.session.run import run_session
from proctor.util import argtypes
from proctor.util.signals import stop_handlers_kept


def run(
    source: str | Path = ".",
    *,
    config: str | Path | None = None,
    agents: str | Sequence[str] = (),
    cases: str | Sequence[str] = (),
    tags: str | Sequence[str] = (),
    conditions: str | Sequence[str] = (),
    repeats: int | None = None,
    concurrency: int | None = None,
    timeout: float | None = None,
    out: str | Path | None = None,
    mode: Literal["headless", "interactive"] | None = None,
    model: Literal["provider", "scripted"] | None = None,
    keep_workspace: bool = False,
    reporters: str | Iterable[str] = ("markdown",),
    subscribers: Iterable[Subscriber] = (),
    executor: Literal["local", "ray"] = "local",
    ray_address: str | None = None,
    **options: Any,
) -> RunResult:
    """Run the cases under ``source`` and return the finished run: its folder, aggregate,
    trials and each reporter's output. Keyword arguments are the ``proctor run`` options
    (``options`` takes the rest by their field names in :class:`CliOverrides`, e.g.
    ``agent_models={"claude-code": "opus"}``; ``executor="ray"`` with ``ray_address`` runs
    the trials on a Ray cluster, see docs/scale.md). ``agents``, ``cases``, ``tags``,
    ``conditions`` and ``reporters`` take a list of names, or one name as a string. Every
    key of the environment and of ``./.env`` is masked in what the run writes and returns, as
    with the CLI. ``subscribers`` are plain callables given each run event; one that raises is
    dropped with a warning and the run goes on; one that raises SystemExit stops the run as
    Ctrl-C does, and ``run`` raises it once the run is written. Ctrl-C stops the run as it
    stops ``proctor run`` and returns its result with ``exit_code`` 130; the caller's signal
    handlers are put back. Raises :class:`proctor.errors.ConfigError` for a configuration the
    user can fix, as the CLI reports with exit code 2, and TypeError for an argument of the
    wrong Python type."""
    where = "proctor.run()"
    folder = _path(source, where, "source")
    given = _path(config, where, "config") if config is not None else None
    if out is not None:
        _path(out, where, "out")
    listed = {
        key: argtypes.names(value, where, key)
        for key, value in (
            ("agents", agents),
            ("cases", cases),
            ("tags", tags),
            ("conditions", conditions),
            ("reporters", reporters),
        )
    }
    argtypes.whole(repeats, where, "repeats", optional=True)
    argtypes.whole(concurrency, where, "concurrency", optional=True)
    argtypes.number(timeout, where, "timeout", optional=True)
    argtypes.text(mode, where, "mode", optional=True)
    argtypes.text(model, where, "model", optional=True)
    argtypes.flag(keep_workspace, where, "keep_workspace")
    callables = argtypes.items(
        subscribers, where, "subscribers", _SUBSCRIBER, _plain_callable, many="callables"
    )
    argtypes.text(executor, where, "executor")
    argtypes.text(ray_address, where, "ray_address", optional=True)
    for field, keyword in _KEYWORD_OF.items():
        if field in options:  # read after `timeout`, it would silently win over it
            raise ConfigError(
                f"proctor.run(): unknown keyword argument '{field}'; did you mean '{keyword}'?"
            )
    try:
        # Strict: a wrong Python type among ``options`` (``mirror="no"``, ``retry_errors=True``)
        # is not read as another value; _keyword_problem tells it from a wrong value.
        overrides = CliOverrides.model_validate(
            {
                **{key: listed[key] for key in ("agents", "cases", "tags", "conditions")},
                "repeats": repeats,
                "concurrency": concurrency,
                "timeout_sec": timeout,
                "out": str(out) if out is not None else None,
                "mode": mode,
                "model": model,
                "keep_workspace": keep_workspace,
                **options,
            },
            strict=True,
        )
    except ValidationError as exc:  # a keyword of the wrong type or out of range
        raise _keyword_problem(exc) from exc
    _check_executor(executor, ray_address)
    from proctor.agents.credentials import register_user_keys

    # As `proctor run` does: every key of the environment and ./.env is masked in the run's
    # records and reports, whether or not a trial is lent it.
    register_user_keys()
    request = RunRequest(
        source=folder,
        config=given,
        overrides=overrides,
        reporters=tuple(reporter_names(listed["reporters"])),
        executor=executor,
        executor_address=ray_address,
        argv=("proctor.run",),
    )
    # A stopped run leaves Ctrl-C and SIGTERM ignored, as the CLI exits after it; the caller
    # gets its own handlers back, so that its next Ctrl-C still stops it.
    # A subscriber's SystemExit stops the run as Ctrl-C does and is raised again once it is
    # written: a script that exits from a subscriber leaves a whole run, never one half-written.
    with stop_handlers_kept(), subscriber_exits():
        return run_session(request, callables)


_SUBSCRIBER = "callable taking one event (not an async or generator function)"


def _plain_callable(value: object) -> bool:
    """Whether a subscriber is one the run can call: an async function or a generator function
    called returns a coroutine or a generator that nothing runs, so it would see no event."""
    import inspect

    if not callable(value):
        return False
    # The value itself (a function, or a functools.partial of one, which inspect sees
    # through) and, for an object, its __call__.
    calls = (value, getattr(value, "__call__", value))  # noqa: B004
    return not any(
        inspect.iscoroutinefunction(call)
        or inspect.isgeneratorfunction(call)
        or inspect.isasyncgenfunction(call)
        for call in calls
    )


def _check_executor(executor: object, ray_address: str | None) -> None:
    """As ``proctor run`` checks ``--executor`` and ``--ray-address``, before a run folder is
    made: a ConfigError with a sentence, never a KeyError from the executors' table."""
    from proctor.execute.executor import EXECUTORS

    if not isinstance(executor, str) or executor not in EXECUTORS:
        known = ", ".join(repr(name) for name in EXECUTORS)
        raise ConfigError(f"proctor.run(): executor={executor!r}: expected one of {known}")
    if ray_address is not None and executor != "ray":
        raise ConfigError("proctor.run(): ray_address names a Ray cluster: give executor='ray' too")
    if executor == "ray":
        from proctor.execute.ray_cluster import import_ray
        from proctor.execute.ray_executor import check_reachable

        import_ray()
        check_reachable(ray_address)


def load_run(path: str | Path) -> StoredRun:
    """Read a results folder (``run-…``): its manifest, resolved configuration, every trial
    and the aggregate written at the end, upgrading records of older schema versions. Of a run
    that has not finished, ``state`` says whether it is still running (``running_pid`` runs
    it) or stopped, and a note says so as ``proctor report`` does."""
    run = _load_run(_run_folder(path, "proctor.load_run()"))
    run.notes += stopped_short_notes(run)
    return run


def recompute_run(path: str | Path, config: str | Path | None = None) -> SuiteRecord:
    """A stored run's aggregate recomputed from its trials (with the gate of ``config`` when
    given), as ``proctor report`` computes it: of a run still running, the figures of the
    trials so far with exit code 75 (``ExitCode.STILL_RUNNING``, no verdict yet). Without
    ``config``, a ConfigError for a run whose own A/B gate names a condition it neither ran
    nor planned, as ``proctor report`` refuses it (the gate could only fail)."""
    given = _path(config, "proctor.recompute_run()", "config") if config is not None else None
    folder = _run_folder(path, "proctor.recompute_run()")
    run, suite = recompute(folder, given)
    if given is None:  # (a config's gate is checked as its file is read)
        check_own_gate(suite, run.records, run.cells)
    return as_of_now(run, suite)


def parse_transcript(path: str | Path, agent: str | None = None) -> Trajectory:
    """The normalised trajectory of a Claude Code, Codex or Gemini CLI transcript file or
    session folder (of several sessions, the newest, as ``proctor parse`` shows it);
    ``agent`` (an agent id such as ``codex``) forces the format."""
    from proctor.session.transcript import session_in
    from proctor.transcripts.detect import PARSERS

    where = "proctor.parse_transcript()"
    given = _path(path, where, "path").expanduser()
    if agent is not None and not isinstance(agent, str):
        raise argtypes.wrong_type(where, "agent", "an agent id (a string) or None", agent)
    file, fmt, _ = session_in(given, agent)
    return PARSERS[fmt](file, None, None)


def _path(value: object, where: str, keyword: str) -> Path:
    """``value`` as a path, or a TypeError naming the argument (pathlib's own names none)."""
    if isinstance(value, str | os.PathLike):
        try:
            return Path(value)
        except TypeError:  # an os.PathLike of bytes
            pass
    raise argtypes.wrong_type(where, keyword, "a path (str or Path)", value)


def _run_folder(path: object, where: str) -> Path:
    """The run folder ``path`` names (``~`` expanded, as :func:`parse_transcript` does); a
    ConfigError for one that is missing or a file."""
    folder = _path(path, where, "path").expanduser()
    if not folder.exists():
        raise ConfigError(f"{where}: {folder}: no such run folder")
    if not folder.is_dir():
        raise ConfigError(f"{where}: {folder}: a file, not a run folder")
    return folder


_KEYWORD_OF = {"timeout_sec": "timeout"}
"""Fields of :class:`CliOverrides` that :func:`run` takes under another name."""


def _keyword_problem(exc: ValidationError) -> Exception:
    """The error of the keyword argument of :func:`run` at fault, named by its Python name: a
    TypeError for a value of the wrong Python type, else a ConfigError."""
    import difflib
    import inspect

    error = exc.errors()[0]
    name = str(error["loc"][0]) if error["loc"] else ""
    keyword = _KEYWORD_OF.get(name, name)
    if error["type"] == "extra_forbidden":
        known = {p for p in inspect.signature(run).parameters if p != "options"}
        known |= {_KEYWORD_OF.get(f, f) for f in CliOverrides.model_fields}
        near = difflib.get_close_matches(name, sorted(known), n=1)
        hint = f"; did you mean '{near[0]}'?" if near else ""
        return ConfigError(f"proctor.run(): unknown keyword argument '{name}'{hint}")
    if error["type"] in _PYTHON_TYPE or (
        error["type"] == "literal_error" and not isinstance(error.get("input"), str)
    ):
        place = keyword + "".join(f"[{part!r}]" for part in error["loc"][1:])
        expected = _PYTHON_TYPE.get(error["type"], "a string")
        return argtypes.wrong_type("proctor.run()", place, expected, error.get("input"))
    sentence = describe_validation_error("proctor.run()", exc, CliOverrides)
    return ConfigError(sentence.replace(f"field '{name}", f"argument '{keyword}", 1))


_PYTHON_TYPE = {
    "int_type": "an int",
    "float_type": "a number",
    "bool_type": "True or False",
    "string_type": "a string",
    "list_type": "a list",
    "dict_type": "a dict",
}
"""The strict validation errors of a value of the wrong Python type, and what it expects."""
