"""Finding evals: every ``*.eval.py`` under ``DIR/evals/`` (hidden folders, ``node_modules`` and
the like aside: :func:`eval_files`) defines one eval; its path is its id
(``evals/builds/api.eval.py`` → ``builds/api``; ``index.eval.py`` → its folder). A file with
``cases=[...]`` gives ``<fileId>/<caseId>`` for each; ``iterations`` n > 1 expands an id into
``…/1`` … ``…/n``. ``evals/evals.config.py`` holds the project's settings."""

from __future__ import annotations

import ast
import contextlib
import hashlib
import os
import re
import shlex
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from proctor.discover.eval_files import NOT_LOOKED_IN as NOT_LOOKED_IN
from proctor.discover.eval_files import SUFFIX as SUFFIX
from proctor.discover.eval_files import eval_files as eval_files
from proctor.discover.eval_files import folders_looked_in as _folders
from proctor.discover.folders import is_case_folder
from proctor.errors import ConfigError
from proctor.evals.define import EvalConfig, EvalDefinition, TestFn
from proctor.evals.importing import FileProblems, import_file, origin_line
from proctor.evals.loaders import set_project_root
from proctor.models.io import escape_surrogates
from proctor.util.text import did_you_mean

CONFIG_FILE = "evals.config.py"
DEFAULT_TIMEOUT_MS = 180_000


@dataclass(frozen=True)
class EvalPoint:
    """One runnable eval case (before iterations): the file's settings with the case's over
    them."""

    id: str
    file: Path
    test: TestFn
    description: str | None
    tags: tuple[str, ...]
    timeout_ms: int | None
    iterations: int
    agent: str | None
    plan: dict[str, Any] | str | None
    judge: str | None
    qna: str | None = None
    """The answering policy (a ``qna.md``'s text) for the agent's questions and permission
    requests; unset, nothing is answered and a turn that asks parks."""
    line: int | None = None
    """The line of ``file`` that defines it (its ``case(...)``, else its ``define_eval(...)``),
    when known."""
    plan_line: int | None = None
    """The line of ``file`` that gives its ``plan`` (the ``case(...)`` or the
    ``define_eval(...)`` it comes from), when known."""

    @property
    def where(self) -> str:
        """``file:line`` (or the file alone) for messages that name the eval."""
        return f"{self.file}:{self.line}" if self.line else str(self.file)

    @property
    def plan_where(self) -> str:
        """``file:line`` of its ``plan=`` (or the file alone) for messages about the plan."""
        line = self.plan_line or self.line
        return f"{self.file}:{line}" if line else str(self.file)

    def ids(self) -> list[str]:
        """The runnable ids: the id itself, or one per iteration."""
        if self.iterations == 1:
            return [self.id]
        return [f"{self.id}/{i}" for i in range(1, self.iterations + 1)]

    @property
    def case_name(self) -> str:
        """The results folder of its trials (``builds/api`` → ``builds.api``). An id with
        characters a folder name here cannot hold (``日本``, ``a b``) has them as ``-`` and a
        short digest of the id after them, so two such ids never share a folder."""
        dotted = self.id.replace("/", ".")
        safe = re.sub(r"[^A-Za-z0-9._-]", "-", dotted)
        if safe != dotted:
            safe += "-" + hashlib.sha256(self.id.encode("utf-8", "surrogateescape")).hexdigest()[:8]
        return safe


@dataclass(frozen=True)
class EvalProject:
    root: Path
    """The folder that holds ``evals/``: fixture paths resolve against it."""
    points: list[EvalPoint]
    config: EvalConfig | None
    config_file: Path | None
    config_line: int | None = None
    """The line of ``config_file`` that calls ``define_eval_config(...)``, when known."""
    misnamed: tuple[tuple[Path, int], ...] = ()
    """The files of ``evals/`` that look like eval files but are not run, their names not
    ending ``.eval.py`` (:func:`misnamed_files`), each with the line of its
    ``define_eval(...)``."""
    misnamed_config: tuple[Path, ...] = ()
    """The files of ``evals/`` named much as ``evals.config.py`` is but not read
    (``eval.config.py``, ``evals_config.py``, ``evals.config.ts``: :func:`misnamed_configs`),
    when there is no ``evals.config.py``."""

    @property
    def config_where(self) -> str:
        """``evals.config.py:N`` (the file alone when the line is unknown, or there is no
        such file) for messages about one of its settings."""
        path = self.config_file or self.root / "evals" / CONFIG_FILE
        return f"{path}:{self.config_line}" if self.config_line else str(path)


def file_id(evals_dir: Path, path: Path) -> str:
    rel = path.relative_to(evals_dir).as_posix()[: -len(SUFFIX)]
    parts = rel.split("/")
    if parts[-1] == "index":
        parts = parts[:-1]
    if not parts:
        raise ConfigError(f"{path}: an index.eval.py directly in evals/ has no folder to name it")
    return "/".join(parts)


def _line_of(definition: object, path: Path) -> str:
    """`` at line N``: where in ``path`` the definition was made, when it was made there."""
    origin = getattr(definition, "origin", None)
    if origin is None or Path(origin[0]) != path:
        return ""
    return f" at line {origin[1]}"


def _one(module: ModuleType, kind: type, path: Path, what: str) -> Any:
    named: dict[int, list[str]] = {}  # one definition under two names is still one
    values: dict[int, Any] = {}
    for name, value in vars(module).items():
        if isinstance(value, kind) and not name.startswith("__"):
            named.setdefault(id(value), []).append(name)
            values[id(value)] = value
    if not values:
        function = what.removesuffix("(...)")
        line = _unassigned_call(path, function)
        if line is not None:  # `define_eval(test=test)` alone: its value is thrown away
            name = "config" if kind is EvalConfig else "eval"
            raise ConfigError(
                f"{path}:{line}: {what} is called but its value is not assigned; write "
                f"{name} = {what}"
            )
        raise ConfigError(f"{path}: no {what} assigned at module level")
    if len(values) > 1:
        names = ", ".join(" = ".join(n) + _line_of(values[key], path) for key, n in named.items())
        raise ConfigError(
            f"{path}: {len(values)} {what} found ({names}); a file defines exactly one"
        )
    return next(iter(values.values()))


def _unassigned_call(path: Path, function: str) -> int | None:
    """The line of the first module-level statement of ``path`` that is a call of
    ``function`` alone (``define_eval(test=test)``, not assigned), if any."""
    return _module_level_call(path, function, (ast.Expr,))


def _module_level_call(
    path: Path,
    function: str,
    kinds: tuple[type[ast.stmt], ...] = (ast.Expr, ast.Assign, ast.AnnAssign),
    source: bytes | None = None,
) -> int | None:
    """The line of the first module-level statement of ``path`` (its ``source``, when read
    already) of one of ``kinds`` whose value is a call of ``function``
    (``define_eval(test=test)`` alone, an ``Expr``; ``eval = define_eval(...)``, an
    ``Assign``); None when none is, or ``path`` is no Python Python can parse (an expression
    too long or too deep for its parser, ``1+1+…`` a hundred thousand times, is none)."""
    try:
        tree = ast.parse(path.read_bytes() if source is None else source, str(path))
    except (SyntaxError, ValueError, OSError, RecursionError, MemoryError):
        return None
    lines = []
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        value = getattr(node, "value", None)
        if isinstance(node, kinds) and isinstance(value, ast.Call):
            called = value.func
            name = called.id if isinstance(called, ast.Name) else getattr(called, "attr", None)
            if name == function:
                lines.append(node.lineno)
        # What a function or class holds does not run at module level; an `if`, `try` or
        # `with` there does.
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            todo += [
                n for n in ast.iter_child_nodes(node) if isinstance(n, ast.stmt | ast.excepthandler)
            ]
    return min(lines, default=None)


def _points(definition: EvalDefinition, fid: str, path: Path) -> list[EvalPoint]:
    d = definition
    if d.test is not None:
        return [
            EvalPoint(
                fid,
                path,
                d.test,
                d.description,
                d.tags,
                d.timeout_ms,
                d.iterations or 1,
                d.agent,
                d.plan,
                d.judge,
                d.qna,
                origin_line(d.origin, path),
                origin_line(d.origin, path),
            )
        ]
    return [
        EvalPoint(
            f"{fid}/{c.id}",
            path,
            c.test,
            c.description if c.description is not None else d.description,
            c.tags or d.tags,
            c.timeout_ms or d.timeout_ms,
            c.iterations or d.iterations or 1,
            c.agent or d.agent,
            c.plan if c.plan is not None else d.plan,
            c.judge or d.judge,
            c.qna if c.qna is not None else d.qna,
            origin_line(c.origin, path) or origin_line(d.origin, path),
            origin_line(c.origin if c.plan is not None else d.origin, path),
        )
        for c in d.cases
    ]


def discover(root: Path) -> EvalProject:
    """Every eval under ``root/evals`` (sorted by id; its files, :func:`eval_files`, imported
    in the order of their paths), and the project's config when present."""
    evals_dir = root / "evals"
    set_project_root(root)  # fixture loaders run at import time too
    if not evals_dir.is_dir():
        where = "evals live in DIR/evals/**/*.eval.py"
        if root.name == "evals" and (
            (root / "evals.config.py").is_file() or eval_files(root)
        ):  # --dir named the evals folder itself, not the project folder that holds it
            where += f"; --dir names the folder that holds evals/: --dir {root.parent}"
        else:
            where += _case_folders_hint(root)
        raise ConfigError(f"{evals_dir}: no evals folder ({where})")
    if _kept is not None and root in _kept:  # imported once by this command already
        kept = _kept[root]
        if isinstance(kept, EvalFileProblems):
            raise kept
        return kept
    points: list[EvalPoint] = []
    problems: list[str] = []  # every file that does not load, not only the first
    for path in eval_files(evals_dir):
        try:
            module = import_file(path, root)
            definition = _one(module, EvalDefinition, path, "define_eval(...)")
            points += _points(definition, file_id(evals_dir, path), path)
        except FileProblems as exc:
            problems += exc.problems
        except ConfigError as exc:
            problems.append(str(exc))
    try:
        _refuse_repeated_ids(evals_dir, points)
        _refuse_shared_folders(evals_dir, points)
    except ConfigError as exc:
        problems.append(str(exc))
    config_file = evals_dir / CONFIG_FILE
    config = None
    if config_file.is_file():
        try:
            config = _one(
                import_file(config_file, root), EvalConfig, config_file, "define_eval_config(...)"
            )
        except FileProblems as exc:
            problems += exc.problems
        except ConfigError as exc:
            problems.append(str(exc))
    project = EvalProject(
        root,
        sorted(points, key=lambda p: p.id),
        config,
        config_file if config else None,
        origin_line(config.origin, config_file) if config else None,
        # (after the imports: a module they import is no such file, nor a config)
        misnamed_files(evals_dir),
        () if config_file.is_file() else misnamed_configs(evals_dir),
    )
    found: EvalProject | EvalFileProblems = project
    if problems:
        found = EvalFileProblems(problems, evals_dir, project)
    if _kept is not None:
        _kept[root] = found
    if isinstance(found, EvalFileProblems):
        raise found
    return project


LOOKED_AT = frozenset({".py", ".txt", ".eval", ".evals"})
"""The suffixes (in any case) of the files :func:`misnamed_files` reads: ``greet_eval.py``,
``greet.evals.py``, ``greet.eval.txt``, ``greet.eval``; not a backup (``greet.eval.py.bak``)."""
READ_AT_MOST = 1_000_000
"""A larger file is no eval file written by hand: :func:`misnamed_files` does not read it."""


def misnamed_files(evals_dir: Path) -> tuple[tuple[Path, int], ...]:
    """The files of ``evals_dir`` (and its folders, hidden ones and :data:`NOT_LOOKED_IN`
    aside) that would define an eval but are never run, their names not ending ``.eval.py``
    (``greet_eval.py``, ``greet.evals.py``, ``eval_greet.py``, ``greet.eval.txt``), each with
    the line of its ``define_eval(...)``: a Python file that calls ``define_eval(...)`` at
    module level, as an eval file does. A helper module (``helpers.py``, ``conftest.py``, one
    that builds ``case(...)`` entries or wraps ``define_eval`` in a function) calls none there;
    one an eval file imported (a module imported already, to share an eval) is no such file.
    Only a file whose text holds ``define_eval`` is parsed, so a folder of many fixtures costs
    a read of each."""
    imported = {
        Path(file)
        for module in list(sys.modules.values())
        if isinstance(file := getattr(module, "__file__", None), str)
    }
    found = []
    for folder, entries in _folders(evals_dir):
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            try:
                if not entry.is_file():  # (a FIFO, a device, a broken link: none is read)
                    continue
            except OSError:
                continue
            if name.endswith(SUFFIX) or os.path.splitext(name)[1].lower() not in LOOKED_AT:
                continue
            if name == CONFIG_FILE and folder == evals_dir:
                continue
            path = Path(entry.path)
            if path in imported:
                continue
            try:
                with path.open("rb") as file:
                    source = file.read(READ_AT_MOST + 1)
            except OSError:
                continue
            if len(source) > READ_AT_MOST or b"define_eval" not in source:
                continue
            line = _module_level_call(path, "define_eval", source=source)
            if line is not None:
                found.append((path, line))
    return tuple(sorted(found))


def misnamed_said(path: Path, line: int) -> str:
    """The sentence for a file :func:`misnamed_files` found: what it is, that it is not run,
    and the name to give it."""
    stem = path.name
    stem = re.sub(r"\.(py|txt)$", "", stem, flags=re.IGNORECASE)
    stem = re.sub(r"(^evals?[._-])|([._-]evals?$)", "", stem, flags=re.IGNORECASE) or stem
    return (
        f"{path} calls define_eval(...) at line {line} but is not run: only a file whose name "
        f"ends .eval.py is an eval file; rename it {stem}{SUFFIX}"
    )


_CONFIG_LIKE = re.compile(r"evals?[._ -]?conf(ig(uration)?s?)?\.(py|pyw|ts|mts|cts|js|mjs|cjs)")
"""A name (casefolded) much as ``evals.config.py``'s, of a file of code: ``eval.config.py``,
``evals_config.py``, ``evals.conf.py``, ``evals-config.py``, ``evals.config.ts`` (as JavaScript
eval tools name theirs), ``Evals.Config.py``; not a backup (``evals.config.py.bak``), a compiled
file, nor a file of data (``eval_config.json``, which eval files may read for values)."""


def misnamed_configs(evals_dir: Path) -> tuple[Path, ...]:
    """The files directly in ``evals_dir`` (sorted) named much as ``evals.config.py`` is
    (:data:`_CONFIG_LIKE`), and not it: proctor never reads one, so the settings it holds
    (``max_concurrency``, ``timeout_ms``, ``agent``) would be left out without a word. A module
    an eval file imported, or names (``evals_config.py`` of shared values, imported by a
    test), is the eval files' own, no such file."""
    imported = {
        Path(file)
        for module in list(sys.modules.values())
        if isinstance(file := getattr(module, "__file__", None), str)
    }
    try:
        with os.scandir(evals_dir) as scanned:
            entries = list(scanned)
    except OSError:
        return ()
    found = []
    for entry in entries:
        if entry.name == CONFIG_FILE or not _CONFIG_LIKE.fullmatch(entry.name.casefold()):
            continue
        try:
            if not entry.is_file():
                continue
        except OSError:
            continue
        if Path(entry.path) not in imported:
            found.append(Path(entry.path))
    if found:  # one an eval file imports in a test (not when it loads) is its own too
        named = _words_of(eval_files(evals_dir))
        found = [p for p in found if not (p.stem.isidentifier() and p.stem in named)]
    return tuple(sorted(found))


def _words_of(files: list[Path]) -> set[str]:
    """The identifiers the ``files`` name anywhere (a file that does not read names none)."""
    words: set[str] = set()
    for file in files:
        try:
            words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", file.read_text(errors="replace")))
        except OSError:
            continue
    return words


def misnamed_config_said(path: Path) -> str:
    """The sentence for a file :func:`misnamed_configs` found: that it is not read, and the
    name proctor reads the project's settings from."""
    python = path.suffix.casefold() in (".py", ".pyw")
    what = "" if python else ", a Python file that calls define_eval_config(...)"
    return (
        f"{path} is not read: proctor reads the project's settings from "
        f"{path.parent / CONFIG_FILE} alone, and there is none (did you mean "
        f"'{CONFIG_FILE}'{what}?)"
    )


class EvalFileProblems(ConfigError):
    """Every problem of the files of an evals folder (an eval file that does not import or
    defines no one eval, ids two evals share, ``evals.config.py``), one sentence each: one
    run runs none of the evals while one of its files is broken, as ``proctor run`` runs no
    case while a case folder's configuration is broken, and the user mends them all at once.
    ``project`` holds the evals of the files that loaded."""

    def __init__(self, problems: list[str], evals_dir: Path, project: EvalProject) -> None:
        if len(problems) == 1:
            said = problems[0]
        else:
            said = f"{evals_dir}: {len(problems)} problems: " + "; ".join(problems)
        super().__init__(said)
        self.problems = problems
        self.project = project


_kept: dict[Path, EvalProject | EvalFileProblems] | None = None


@contextlib.contextmanager
def imported_once() -> Iterator[None]:
    """Within it, :func:`discover` imports an evals folder's files once: a later call for the
    same folder gives what the first found (its evals, or its problems), so a command that
    checks the evals first and then runs them runs no file's module code twice."""
    global _kept
    before = _kept
    _kept = {}
    try:
        yield
    finally:
        _kept = before


def _refuse_shared_folders(evals_dir: Path, points: Sequence[EvalPoint]) -> None:
    """A ConfigError when two ids would share one results folder (``a.b/c`` next to
    ``a/b.c``), naming the evals and their files, not only the folder."""
    names = [p.case_name for p in points]
    clash = sorted({n for n in names if names.count(n) > 1})
    if clash:
        both = [f"{p.id} ({p.where})" for p in points if p.case_name == clash[0]]
        raise ConfigError(
            f"{evals_dir}: {' and '.join(both)} would share the results folder {clash[0]!r}; "
            "rename one of them"
        )


def _case_folders_hint(root: Path) -> str:
    """``; …/cases holds case folders (fix-a-bug, …): proctor run --source …/cases runs them``
    when ``root`` holds case folders (or is one), as ``proctor run --source`` finds them; else
    nothing."""
    command = f"proctor run --source {shlex.quote(str(root))}"
    if is_case_folder(root):
        return f"; {root} is a case folder: {command} runs it"
    try:
        cases = sorted(
            p.name
            for p in root.iterdir()
            if not p.name.startswith(".") and p.is_dir() and is_case_folder(p)
        )
    except OSError:
        return ""
    if not cases:
        return ""
    shown = ", ".join(cases[:3]) + (f" and {len(cases) - 3} more" if len(cases) > 3 else "")
    return f"; {root} holds case folders ({shown}): {command} runs them"


_HOW_MANY = {2: "two", 3: "three"}


def _refuse_repeated_ids(evals_dir: Path, points: Sequence[EvalPoint]) -> None:
    """A ConfigError naming every file (and line) that defines an id another eval defines
    too: ``builds.eval.py`` and ``builds/index.eval.py`` are both ``builds``; ``a`` with
    ``iterations=2`` has ``a/1``, as ``a/1.eval.py`` does."""
    claims: dict[str, list[str]] = {}
    for point in points:
        for rid in dict.fromkeys([point.id, *point.ids()]):
            how = "" if rid == point.id else f" (iteration {rid.rsplit('/', 1)[1]} of {point.id!r})"
            claims.setdefault(rid, []).append(point.where + how)
    repeated = sorted((rid, where) for rid, where in claims.items() if len(where) > 1)
    if not repeated:
        return
    told = "; ".join(
        f"{_HOW_MANY.get(len(where), str(len(where)))} evals have the same id {rid!r}: "
        + " and ".join(where)
        for rid, where in repeated
    )
    raise ConfigError(f"{evals_dir}: {told}; an id names one eval, so rename all but one")


def _under(run_id: str, wanted: str) -> bool:
    wanted = wanted.rstrip("/")  # `builds/greeting/` names `builds/greeting` too
    if run_id == wanted or run_id.startswith(wanted + "/"):
        return True
    shown = escape_surrogates(run_id)  # as --list shows it: a byte not UTF-8 as \\xff
    return shown != run_id and (shown == wanted or shown.startswith(wanted + "/"))


def select(
    points: Sequence[EvalPoint],
    ids: Sequence[str],
    tags: Sequence[str],
    evals_dir: Path | None = None,
) -> list[tuple[EvalPoint, list[int]]]:
    """The points (with the iterations chosen) that match: id filters OR together and select
    an id and everything below it; tags OR together; with both, a case must match both. An id
    filter that names no eval at all is a ConfigError naming ``evals_dir`` (a typo would
    otherwise run less than asked, and pass)."""
    known = [rid for point in points for rid in dict.fromkeys([point.id, *point.ids()])]
    for wanted in ids:
        if not any(_under(rid, wanted) for rid in known):
            where = f"{evals_dir}: " if evals_dir is not None else ""
            raise ConfigError(
                f"{where}no eval has the id '{wanted}' or one below it; "
                + _near_ids(wanted, points, known)
            )
    chosen = []
    for point in points:
        if tags and not set(tags) & set(point.tags):
            continue
        runnable = point.ids()
        picked = [
            i + 1 for i, rid in enumerate(runnable) if not ids or any(_under(rid, w) for w in ids)
        ]
        if not picked and ids and any(_under(point.id, w) for w in ids):
            picked = list(range(1, point.iterations + 1))
        if picked:
            chosen.append((point, picked))
    return chosen


def _near_ids(wanted: str, points: Sequence[EvalPoint], known: Sequence[str]) -> str:
    """``did you mean 'builds'?`` for an id close to ids or folders there are (folders are
    ids to select by too: ``bui`` is close to ``builds``); else the ids there are at the top
    (``the ids in use: asks/…, builds/…, greeting``), a folder's with ``/…`` after it."""
    near = {"/".join(rid.split("/")[:n]) for rid in known for n in range(1, rid.count("/") + 2)}
    close = did_you_mean(wanted.rstrip("/"), sorted(near), n=3).strip()
    if close:
        return close
    evals = {point.id for point in points}
    top = sorted({rid.split("/")[0] for rid in known})
    shown = [name if name in evals else f"{name}/…" for name in top]
    more = f" and {len(shown) - 12} more" if len(shown) > 12 else ""
    return f"the ids in use: {', '.join(shown[:12])}{more}"
