"""``external``: score a trial with any program, given an explicit argv (never a shell).

The program reads one JSON object on stdin with the paths of the trial's material::

    {"workspace": ..., "trajectory": ..., "rawTranscript": ..., "trialDir": ..., "caseDir": ...}

and prints ``{"values": [{"name": str, "value": 0-100, "confidenceLevel": 0-100,
"perplexityLevel": 0-100}]}`` (``name`` and ``value`` required). It runs in the case folder so
that a script shipped with the case is found by a relative path. No agent output is ever placed
on its command line.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field

from proctor.evaluators.base import (
    MAX_TIMEOUT_SEC,
    CaseProblem,
    EvaluationContext,
    EvaluatorParams,
    ProgramText,
    error_result,
    register,
    run_logged,
    scored_result,
)
from proctor.models.case import EvaluatorSpec
from proctor.models.config import NonBlank, ProcessEnvVars
from proctor.models.trial import EvaluatorResult
from proctor.util.cutting import output_tail
from proctor.util.masking import mask


class ExternalParams(EvaluatorParams):
    command: ProgramText = Field(min_length=1)
    args: list[ProgramText] = []
    timeout_sec: float = Field(default=60.0, gt=0, le=MAX_TIMEOUT_SEC)
    score_metric: NonBlank | None = None
    pass_threshold: float = Field(default=60.0, ge=0, le=100)
    env: ProcessEnvVars = {}
    """Set for the program only: names without ``=`` or NUL, values without NUL."""

    def case_problem(self, case_dir: Path) -> CaseProblem | None:
        local = case_dir / self.command
        on_path = shutil.which(self.command)
        if not (on_path or local.exists()):
            return CaseProblem(
                "command",
                f"program '{self.command}' is neither on PATH nor in the case folder {case_dir}",
            )
        if not on_path and local.is_dir():
            return CaseProblem(
                "command", f"program '{self.command}' in the case folder {case_dir} is a folder"
            )
        if not on_path and not os.access(local, os.X_OK):
            # (A forgotten chmod +x: every trial would be an eval-error.)
            return CaseProblem(
                "command",
                f"program '{self.command}' in the case folder {case_dir} is not executable: "
                f"make it so (chmod +x {self.command}), or give its interpreter as the command "
                f'("command": "bash", "args": ["{self.command}"])',
            )
        script = _script_of(self.command, self.args)
        if script is not None and not (case_dir / script).exists():
            return CaseProblem(
                f"args[{self.args.index(script)}]",
                f"script '{script}' (run by '{self.command}', in the case folder) is not in "
                f"the case folder {case_dir}",
            )
        return None


_INTERPRETER = re.compile(
    r"(python|pypy)[0-9.]*|node|nodejs|deno|bun|tsx|ts-node|bash|sh|zsh|ruby|perl"
)
_SCRIPT = re.compile(r".+\.(py|js|mjs|cjs|ts|sh|bash|rb|pl)")
_INLINE_CODE = frozenset({"--eval", "--print", "--command", "eval", "run", "x"})
"""An interpreter's long options and subcommands after which no script file follows."""
_INLINE_FLAGS = frozenset("cemprs")
"""Short options (alone or in a cluster: ``-lc``, ``-ec``) that give code, a module, or read
the program from elsewhere: no script file follows."""


def _script_of(command: str, args: list[str]) -> str | None:
    """The script a known interpreter is given to run (``python3 score.py``: ``score.py``), as
    a relative path with a script's extension; None for anything else (``python3 -m pkg``, an
    absolute path, a program that is no interpreter)."""
    if not _INTERPRETER.fullmatch(Path(command).name):
        return None
    for arg in args:
        if arg in _INLINE_CODE:
            return None
        if arg.startswith("-"):
            if not arg.startswith("--") and _INLINE_FLAGS & set(arg[1:]):
                return None
            continue
        script = _SCRIPT.fullmatch(arg) and not any(c.isspace() for c in arg)
        return arg if script and not Path(arg).is_absolute() else None
    return None


def _last_line(text: str) -> str:
    """The last line of a program's output that says something, cut to 200 characters after
    every registered secret in the output is masked (a key the cut would split shows no
    part)."""
    lines = [line.strip() for line in mask(text).splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""


def _level(value: Any) -> float | None:
    """A 0-100 number, or None when the value is not one."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value) or not 0 <= value <= 100:
        return None
    return float(value)


def parse_values(stdout: str) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """Validate the program's output; raise ValueError with a sentence when it is wrong."""
    try:
        data = json.loads(stdout)
    except json.JSONDecodeError as exc:
        raise ValueError(f"output is not JSON ({exc.msg} at line {exc.lineno})") from exc
    if not isinstance(data, dict) or not isinstance(data.get("values"), list):
        raise ValueError('output must be an object with a "values" list')
    metrics: dict[str, float] = {}
    levels: dict[str, dict[str, float]] = {}
    for i, item in enumerate(data["values"]):
        if not isinstance(item, dict):
            raise ValueError(f"values[{i}] is not an object")
        name = item.get("name")
        if not isinstance(name, str) or not name:
            raise ValueError(f"values[{i}].name is missing or not a string")
        if "value" not in item:
            raise ValueError(f"values[{i}] ('{name}') has no value")
        value = _level(item["value"])
        if value is None:
            raise ValueError(
                f"values[{i}].value ('{name}') must be a number from 0 to 100, "
                f"got {item['value']!r}"
            )
        metrics[name] = value
        extra: dict[str, float] = {}
        for key in ("confidenceLevel", "perplexityLevel"):
            if key in item:
                level = _level(item[key])
                if level is None:
                    raise ValueError(
                        f"values[{i}].{key} ('{name}') must be a number from 0 to 100, "
                        f"got {item[key]!r}"
                    )
                extra[key] = level
        if extra:
            levels[name] = extra
    if not metrics:
        raise ValueError('"values" is empty')
    return metrics, levels


@register
class External:
    name: ClassVar[str] = "external"
    Params: ClassVar[type[EvaluatorParams]] = ExternalParams

    def evaluate(self, spec: EvaluatorSpec, ctx: EvaluationContext) -> EvaluatorResult:
        params = ExternalParams.of(spec)
        # Absolute: the program runs in the case folder, where a relative path would be wrong.
        case_dir = ctx.case_dir.resolve()
        program = shutil.which(params.command, path=ctx.env.get("PATH")) or (
            str(case_dir / params.command) if (case_dir / params.command).exists() else None
        )
        if program is None:
            return error_result(spec, f"program '{params.command}' not found on PATH")
        payload = {
            "workspace": str(ctx.workspace),
            "trajectory": str(ctx.trial.trajectory),
            "rawTranscript": str(ctx.raw_transcript) if ctx.raw_transcript else None,
            "trialDir": str(ctx.trial.root),
            "caseDir": str(case_dir),
            "agent": ctx.agent,
        }
        log = ctx.trial.evaluator_log(spec.index, spec.use)
        rel = log.relative_to(ctx.trial.root).as_posix()
        try:
            outcome = run_logged(
                [program, *params.args],
                cwd=case_dir,
                env={**ctx.env, **params.env},
                timeout=params.timeout_sec,
                log=log,
                stdin=json.dumps(payload),
            )
        except OSError as exc:
            return error_result(spec, f"could not start '{params.command}': {exc}")
        flooded = outcome.stopped_for_output()
        if flooded:
            return error_result(
                spec,
                f"'{params.command}' {flooded} (its log keeps the first and last 4 MiB)",
                log=rel,
                outputTail=output_tail(outcome),
            )
        if outcome.timed_out:
            return error_result(spec, f"timed out after {params.timeout_sec:g}s", log=rel)
        if outcome.returncode != 0:
            # Its last line of error output in the reason (python3's "can't open file …"):
            # the whole tail is in the details and the log.
            said = _last_line(outcome.stderr) or _last_line(outcome.stdout)
            return error_result(
                spec,
                f"'{params.command}' exited {outcome.returncode}" + (f": {said}" if said else ""),
                log=rel,
                outputTail=output_tail(outcome),
            )
        try:
            metrics, levels = parse_values(outcome.stdout)
        except ValueError as exc:
            return error_result(spec, f"'{params.command}': {exc}", log=rel)
        if params.score_metric is None:
            # Values without a scoreMetric are measurements: recorded and rolled up by name,
            # never part of the trial's verdict.
            named = ", ".join(f"{k} {v:g}" for k, v in metrics.items())
            result = scored_result(
                spec,
                passed=True,
                message=f"metrics: {named} (not scored: no scoreMetric)",
                metrics=metrics,
                levels=levels,
                log=rel,
            )
            return result.model_copy(update={"counted": False})
        if params.score_metric not in metrics:
            return error_result(
                spec,
                f"scoreMetric '{params.score_metric}' is not among the values "
                f"({', '.join(metrics)})",
                log=rel,
            )
        score = metrics[params.score_metric]
        passed = score >= params.pass_threshold
        return scored_result(
            spec,
            passed=passed,
            score=score,
            message=f"score {score:.1f} (pass at >= {params.pass_threshold:g})",
            metrics=metrics,
            levels=levels,
            log=rel,
        )
