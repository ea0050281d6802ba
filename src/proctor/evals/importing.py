"""Importing one file of ``evals/`` (an eval file, or ``evals.config.py``) by its path: its
module, or a ConfigError naming the file and line of every problem found (each bad argument of
its definitions, and what stopped its import)."""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

from proctor.errors import ConfigError
from proctor.evals.arguments import argument_error
from proctor.evals.define import (
    EvalConfig,
    EvalDefinition,
    EvalDefinitionError,
    EvalDefinitionProblems,
    Origin,
    Problem,
    problems_collected,
)
from proctor.evals.frames import installed
from proctor.evals.names import near_names
from proctor.evals.stops import Stops, stops_noted


def import_file(path: Path, root: Path) -> ModuleType:
    """The module of ``path``, imported; a ConfigError (:class:`FileProblems` for several)
    naming the file and line of every problem found: each bad argument of its definitions,
    and what stopped its import."""
    collected: list[Problem] = []  # every bad argument of define_eval, case, …
    dropped: list[Problem] = []  # … but those of a call the file caught the refusal of
    try:
        module = _exec(path, root, collected, dropped)
    except FileProblems:
        raise
    except ConfigError as exc:
        if not collected:
            raise
        # (a case(...) given a bad value, then a line that stops the import)
        cause = exc.__cause__
        problems = _said(collected, path, cause)
        raise FileProblems([*problems, str(exc)]) from exc
    if collected:  # a case(...) with a bad argument that no define_eval(...) was given
        raise FileProblems(_said(collected, path, None))
    if dropped and not any(
        isinstance(v, EvalDefinition | EvalConfig) for v in vars(module).values()
    ):
        # A refusal caught and no definition made instead: its problems are why there is none.
        raise FileProblems(_said(dropped, path, None))
    return module


def _exec(path: Path, root: Path, collected: list[Problem], dropped: list[Problem]) -> ModuleType:
    rel = path.relative_to(root).as_posix()
    # The digest keeps apart the files the readable part alone would merge (a-b, a_b, a/b).
    digest = hashlib.sha256(rel.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    name = "proctor_eval_" + re.sub(r"\W", "_", rel) + "_" + digest
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ConfigError(f"{path}: cannot be loaded as a Python file")
    module = importlib.util.module_from_spec(spec)
    # The project's root stays importable for the run: a test may import a project module
    # when it runs, not only when its file loads.
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    stops: Stops | None = None
    try:
        sys.modules[name] = module
        # What an eval file prints goes to stderr: stdout is proctor's (its --json).
        with (
            contextlib.redirect_stdout(sys.stderr),
            stops_noted() as stops,
            problems_collected(collected, dropped),
        ):
            spec.loader.exec_module(module)
    except EvalDefinitionProblems as exc:  # every bad argument, each at its call's line
        # (none collected here: a helper module shared with an earlier file was imported as
        # that file was, its problems collected then: they are the refusal's own)
        listed = (
            _said(collected, path, exc)
            or _said(exc.owned, path, exc)
            or [f"{path}{_line_in(exc, path)}: {exc}"]
        )
        raise FileProblems(listed) from exc
    except EvalDefinitionError as exc:
        raise ConfigError(f"{path}{_line_in(exc, path)}: {exc}") from exc
    except SystemExit as exc:
        # An eval file that exits while it is imported must not decide proctor's exit code.
        line = _line_in(exc, path)
        raise ConfigError(
            f"{path}{line}: exited while it was imported (SystemExit: {exc.code!r}); an eval "
            "file defines evals, it does not run them"
        ) from exc
    except KeyboardInterrupt as exc:
        if stops is None or not stops.raised_by_code():
            raise  # Ctrl-C (or SIGTERM, SIGHUP) while the file was imported: proctor stops
        # `raise KeyboardInterrupt` of the file's own is its error, not the user's Ctrl-C.
        said = f": {exc}" if str(exc) else ""
        raise ConfigError(
            f"{path}{_line_in(exc, path)}: cannot be imported (KeyboardInterrupt{said}, raised "
            "by the file itself: no Ctrl-C or stop signal came)"
        ) from exc
    except BaseException as exc:  # pytest.importorskip's Skipped is no Exception, say
        line = _line_in(exc, path)
        # define_eval(descripton=...): the near ones named; define_eval("x"): keywords only
        misspelt = argument_error(exc)
        if misspelt is not None:
            raise ConfigError(f"{path}{line}: {misspelt}") from exc
        raised = "" if isinstance(exc, SyntaxError) else _raised_in(exc, path, root)
        if not raised and str(exc) == "attempted relative import with no known parent package":
            # `from .shared import x` in the eval file: it is imported by its path, alone
            package = ".".join(path.parent.relative_to(root).parts)
            raised = (
                "; an eval file is no module of a package: import a module beside it by its "
                f"path from the project's folder, from {package}.NAME import …"
            )
        raise ConfigError(
            f"{path}{line}: cannot be imported ({type(exc).__name__}: {exc}"
            f"{near_names(exc) or ''}{raised})"
        ) from exc
    return module


class FileProblems(ConfigError):
    """Every problem of one eval file (``problems``, each a sentence naming the file and
    line); its message is the first."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(problems[0])
        self.problems = problems


def _said(collected: list[Problem], path: Path, exc: BaseException | None) -> list[str]:
    """Each bad argument as a sentence naming the file and the line of its call (when the
    call was made in a helper module, the line of the file that led to it), in the order of
    the lines."""
    said = []
    for problem, origin in collected:
        line = origin_line(origin, path)
        at = f":{line}" if line else (_line_in(exc, path) if exc is not None else "")
        said.append((line or 0, f"{path}{at}: {problem}"))
    return [sentence for _, sentence in sorted(said, key=lambda pair: pair[0])]


def _line_in(exc: BaseException, path: Path) -> str:
    """``:N``, the line of ``path`` the exception was raised at or passed through (a
    module's ``import`` that raised it); "" when it never did."""
    # (a SyntaxError of a module the file imports is that module's line, not the file's)
    if isinstance(exc, SyntaxError) and exc.lineno and _same_file(exc.filename, path):
        return f":{exc.lineno}"
    tb = exc.__traceback__
    line = ""
    while tb is not None:
        if Path(tb.tb_frame.f_code.co_filename) == path:
            line = f":{tb.tb_lineno}"
        tb = tb.tb_next
    return line


def _same_file(filename: str | None, path: Path) -> bool:
    return filename is not None and Path(filename) == path


def _raised_in(exc: BaseException, path: Path, root: Path) -> str:
    """``, at FILE:N``: where a module of the project that ``path`` imports raised ``exc``
    (a helper module's line, which the line of its ``import`` in ``path`` does not tell);
    "" when ``path`` raised it, or the project's own code never did."""
    where = None
    passed = False  # through path: a frame after it is of code path called
    tb = exc.__traceback__
    while tb is not None:
        filename = Path(tb.tb_frame.f_code.co_filename)
        if filename == path:
            passed, where = True, None
        elif passed and filename.is_relative_to(root) and not installed(filename):
            where = f"{filename}:{tb.tb_lineno}"
        tb = tb.tb_next
    return f", at {where}" if where else ""


def origin_line(origin: Origin | None, path: Path) -> int | None:
    """The line of ``origin`` when it is in ``path`` (a definition made by a helper module
    has its line there, not in the eval file)."""
    if origin is None or Path(origin[0]) != path:
        return None
    return origin[1]
