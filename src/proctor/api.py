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

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from proctor.agents.spec import format_for_agent
from proctor.errors import ConfigError
from proctor.execute.events import Subscriber
from proctor.models.config import CliOverrides
from proctor.models.errors_format import describe_validation_error
from proctor.models.suite import SuiteRecord
from proctor.models.trajectory import Trajectory
from proctor.report.reporters import reporter_names
from proctor.report.stored import StoredRun, recompute
from proctor.report.stored import load_run as _load_run
from proctor.session.run import RunRequest, RunResult, run_session
from proctor.transcripts.detect import parse_any


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
    with the CLI. Raises :class:`proctor.errors.ConfigError` for a configuration the user can
    fix, as the CLI reports with exit code 2."""
    try:
        overrides = CliOverrides(
            agents=_names(agents, "agents"),
            cases=_names(cases, "cases"),
            tags=_names(tags, "tags"),
            conditions=_names(conditions, "conditions"),
            repeats=repeats,
            concurrency=concurrency,
            timeout_sec=timeout,
            out=str(out) if out is not None else None,
            mode=mode,
            model=model,
            keep_workspace=keep_workspace,
            **options,
        )
    except ValidationError as exc:  # a keyword of the wrong type or out of range
        raise ConfigError(_keyword_problem(exc)) from exc
    _check_executor(executor, ray_address)
    from proctor.agents.credentials import register_user_keys

    # As `proctor run` does: every key of the environment and ./.env is masked in the run's
    # records and reports, whether or not a trial is lent it.
    register_user_keys()
    request = RunRequest(
        source=Path(source),
        config=Path(config) if config is not None else None,
        overrides=overrides,
        reporters=tuple(reporter_names(_names(reporters, "reporters"))),
        executor=executor,
        executor_address=ray_address,
        argv=("proctor.run",),
    )
    return run_session(request, list(subscribers))


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
    and the aggregate written at the end, upgrading records of older schema versions."""
    return _load_run(Path(path))


def recompute_run(path: str | Path, config: str | Path | None = None) -> SuiteRecord:
    """A stored run's aggregate recomputed from its trials (with the gate of ``config`` when
    given), as ``proctor report`` computes it."""
    return recompute(Path(path), Path(config) if config is not None else None)[1]


def parse_transcript(path: str | Path, agent: str | None = None) -> Trajectory:
    """The normalised trajectory of a Claude Code, Codex or Gemini CLI transcript file or
    session folder; ``agent`` (an agent id such as ``codex``) forces the format."""
    fmt = format_for_agent(agent) if agent is not None else None
    return parse_any(Path(path).expanduser(), fmt)


def _names(value: str | Iterable[str], keyword: str) -> list[str]:
    """The names a list argument of :func:`run` gives: a string is one name (``cases="fix"``
    is ``["fix"]``, where a string read as a list was its letters)."""
    if isinstance(value, str):
        return [value]
    try:
        return list(value)
    except TypeError:
        raise ConfigError(
            f"proctor.run(): argument '{keyword}': expected a name or a list of names, got "
            f"{value!r}"
        ) from None


_KEYWORD_OF = {"timeout_sec": "timeout"}
"""Fields of :class:`CliOverrides` that :func:`run` takes under another name."""


def _keyword_problem(exc: ValidationError) -> str:
    """One sentence naming the keyword argument of :func:`run` at fault, by its Python name."""
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
        return f"proctor.run(): unknown keyword argument '{name}'{hint}"
    sentence = describe_validation_error("proctor.run()", exc, CliOverrides)
    return sentence.replace(f"field '{name}", f"argument '{keyword}", 1)
