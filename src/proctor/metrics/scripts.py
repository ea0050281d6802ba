"""Python scripts that only write files: ``python3 - <<'PY'`` as an agent's editor.

Where its patch tool cannot take an edit, an agent often edits with a short Python script
fed to the interpreter::

    python3 - <<'PY'
    from pathlib import Path
    path = Path("src/app.py")
    text = path.read_text()
    path.write_text(text.replace("old", "new"))
    PY

Such a script is an edit of the files it writes, as an edit tool's call is, when writing
them is all it does and each file is named where it is written. :func:`script_writes` reads
the script's syntax, never runs it, and answers only for a script that:

- imports nothing but modules that change nothing by themselves (``pathlib``, ``re``,
  ``json``, ``textwrap``…, and of ``os`` only its paths, ``makedirs`` and ``getcwd``),
  reaches no other module through them (``glob.os``, ``sys.modules``) and no
  double-underscore name, and uses no ``exec``, ``eval``, ``compile``, ``getattr`` or
  ``__import__``, nor hands an opener or a mover on uncalled (``o = open``);
- writes each file by ``open(PATH, "w")`` (any mode that writes), ``PATH.open("w")``,
  ``PATH.write_text(…)``, ``PATH.write_bytes(…)`` or ``PATH.touch()``, where ``PATH`` is
  text, pathlib's ``Path(…)``, ``os.path.join(…)``, a join with ``/`` or ``+`` of such, or a
  name given one such value once (or a ``for`` over a written list no method changes);
- moves, renames and deletes no path (``unlink``, ``rename``, ``replace``, ``rmdir`` on a
  path).

Any other script (one that runs a program, deletes, or writes where a name computed at run
time points) is no edit: the call stays a shell command. A file the script also reads, or
appends to, is changed in place; one it only writes is written whole.
"""

from __future__ import annotations

import ast
import posixpath
import re

from proctor.metrics.pynames import bound_names, followed_bindings, parameter_values

_MODULES = frozenset(
    {
        "pathlib",
        "re",
        "json",
        "textwrap",
        "io",
        "codecs",
        "string",
        "collections",
        "itertools",
        "functools",
        "difflib",
        "typing",
        "sys",
        "math",
        "fnmatch",
        "glob",
        "__future__",
    }
)
"""Modules a script that only writes files may use: none of them changes anything itself."""
_OS = frozenset({"path", "getcwd", "makedirs", "sep", "linesep", "environ", "getenv", "listdir"})
"""What of ``os`` such a script may use (``os.system``, ``os.remove``… are more than writing)."""
_FORBIDDEN = frozenset(
    {"exec", "eval", "compile", "globals", "locals", "vars", "getattr", "setattr", "delattr"}
    | {"get_type_hints", "FileIO", "open_code", "fdopen", "import_module", "breakpoint"}
    | {"attrgetter", "methodcaller", "Formatter", "ForwardRef", "help", "type", "super"}
)
"""Names that run or reach code the script's text does not name, or open files past
``open``: a script using one, as a name or an attribute, is no quick edit."""
_REACHES = frozenset(
    {"os", "sys", "modules", "builtins", "subprocess", "shutil", "system", "io", "codecs"}
    | {"pathlib", "operator", "importlib", "typing", "string", "functools"}
)
"""Attributes that reach another module through an allowed one (``glob.os``, ``sys.modules``)."""
_DUNDERS = frozenset({"__name__", "__file__", "__doc__"})
"""The double-underscore names such a script may read; any other reaches past its text."""
_PATHS = frozenset({"Path", "PurePath", "PosixPath", "PurePosixPath"})
_OPENERS = frozenset({"open", "io.open", "codecs.open"})
_MOVES = frozenset({"unlink", "rename", "replace", "rmdir", "symlink_to", "hardlink_to"})
"""Methods of a path that move or delete it: a script calling them does more than write."""
_READS = frozenset({"read_text", "read_bytes"})
_PATH_METHODS = frozenset(
    {"with_name", "with_suffix", "with_stem", "resolve", "absolute", "expanduser", "joinpath"}
)
"""Methods of a path that give a path."""
_WRITES = frozenset({"write_text", "write_bytes", "touch"})
_MOST = 64
"""The most values a name may stand for (a ``for`` over a written list)."""
_DEEPEST = 16
"""The most names followed to the text they stand for (``a = b``, ``b = c``…)."""
_LONGEST = 200_000
"""The longest script read: a longer one is no quick edit."""
_LONGEST_PATH = 4096
"""The longest path followed (joins of joins grow fast)."""


class _Unsure(Exception):
    """The script does more than write files, or writes where its text does not say."""


def script_writes(source: str) -> tuple[list[str], list[str]] | None:
    """The files a Python script writes whole and those it changes in place, each as the
    script names it, when writing them is all it does (see the module's docstring); None
    for any other script, and one that writes nothing."""
    if len(source) > _LONGEST or "\x00" in source:
        return None
    try:
        tree = ast.parse(source)
        return _Script(tree).writes()
    except (SyntaxError, ValueError, RecursionError, MemoryError, _Unsure):
        return None


class _Script:
    def __init__(self, tree: ast.Module) -> None:
        self.nodes = list(ast.walk(tree))
        # Each name's value where one is followed: ("one", value) for ``name = value``,
        # ("each", values) for ``for name in values``; and how often each name is given one.
        self.values: dict[str, tuple[str, ast.expr]] = {}
        self.bound: dict[str, int] = {}
        followed: set[int] = set()  # the targets of those, not counted again as names
        # Every value each name is given where it is followed, with the statement giving it.
        self.bindings: dict[str, list[tuple[str, ast.expr, ast.stmt]]] = {}
        for node in self.nodes:
            if not isinstance(node, ast.Assign | ast.AnnAssign | ast.For):
                continue
            for target, how, value in followed_bindings(node):
                followed.add(id(target))
                self.values[target.id] = (how, value)
                self.bindings.setdefault(target.id, []).append((how, value, node))
                self.bound[target.id] = self.bound.get(target.id, 0) + 1
        # A helper's parameters (``def patch(path, old, new)``), where every call of it says
        # each one: each stands for the values its calls give it.
        for argument, given in parameter_values(self.nodes):
            followed.add(id(argument))
            self.values[argument.arg] = ("each", given)
            self.bound[argument.arg] = self.bound.get(argument.arg, 0) + 1
        # Statements run once, in order (the module's own), and what runs later, if ever (a
        # function's or a class's body, a lambda's).
        self.top = {id(statement) for statement in tree.body}
        self.deferred: set[int] = set()
        for node in self.nodes:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                self.deferred.update(id(inner) for part in node.body for inner in ast.walk(part))
            elif isinstance(node, ast.Lambda):
                self.deferred.update(id(inner) for inner in ast.walk(node.body))
        iterated = {id(node.iter) for node in self.nodes if isinstance(node, ast.For)}
        for node in self.nodes:  # a dictionary walked by its keys: for name in edits.items()
            if isinstance(node, ast.For) and isinstance(node.iter, ast.Call):
                method = node.iter.func
                if isinstance(method, ast.Attribute) and method.attr in ("items", "keys"):
                    iterated.add(id(method.value))
        for node in self.nodes:
            if id(node) not in followed:
                for name in bound_names(node):
                    self.bound[name] = self.bound.get(name, 0) + 1
        # The module each imported name stands for (``from pathlib import Path``: pathlib);
        # the names whose value a method may change (``files.append(…)``); what is called.
        self.imported: dict[str, str] = {}
        self.used: set[str] = set()  # names read other than as a for's list
        self.called: set[int] = set()
        for node in self.nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    self.imported[alias.asname or alias.name.partition(".")[0]] = alias.name
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    self.imported[alias.asname or alias.name] = node.module or ""
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                if id(node) not in iterated:  # (a list handed on, g = files, may change)
                    self.used.add(node.id)
            elif isinstance(node, ast.Call):
                self.called.add(id(node.func))
        self.memo: dict[int, tuple[str, ...] | None] = {}

    def writes(self) -> tuple[list[str], list[str]] | None:
        whole: dict[str, None] = {}
        changed: dict[str, None] = {}
        read: set[str] = set()
        if self.bound.get("open") != (1 if "open" in self.imported else None):
            raise _Unsure  # open given another value: what it opens is not known
        for node in self.nodes:
            if isinstance(node, ast.Import | ast.ImportFrom):
                _check_import(node)
            elif isinstance(node, ast.Attribute):
                self._check_attribute(node)
            elif isinstance(node, ast.Name):
                reaches = node.id.startswith("__") and node.id not in _DUNDERS
                if node.id in _FORBIDDEN or reaches:
                    raise _Unsure
                if node.id == "open" and id(node) not in self.called:
                    raise _Unsure  # open handed on (o = open): its calls are not seen
            elif isinstance(node, ast.Call):
                if isinstance(node.func, ast.Call | ast.Subscript):
                    raise _Unsure  # a callable made or looked up while it runs
                found = self._call(node)
                if found is not None:
                    files, mode = found
                    target = {"w": whole, "a": changed, "r": None}[mode]
                    if target is None:
                        read.update(files)
                    else:
                        target.update(dict.fromkeys(files))
        whole = {posixpath.normpath(file): None for file in whole}
        changed = {posixpath.normpath(file): None for file in changed}
        read = {posixpath.normpath(file) for file in read}
        if not whole and not changed:
            return None
        in_place = {**changed, **{file: None for file in whole if file in read}}
        return [file for file in whole if file not in in_place], list(in_place)

    def _check_attribute(self, node: ast.Attribute) -> None:
        """Refuse an attribute that reaches past the script's text: one of ``os`` but its
        paths (``os.system``), a module through another (``glob.os``, ``sys.modules``), a
        double-underscore one, or a method that opens, writes or moves handed on uncalled
        (``map(Path.unlink, …)``)."""
        if _dotted(node.value) == "os" and node.attr not in _OS:
            raise _Unsure
        if node.attr in _REACHES | _FORBIDDEN and _dotted(node) not in ("os.path", "os.sep"):
            raise _Unsure
        if node.attr.startswith("_") and node.attr not in _DUNDERS:
            raise _Unsure  # a private or double-underscore one (sys._getframe, __class__)
        if node.attr.startswith(("gi_", "cr_", "ag_", "f_", "tb_", "co_")):
            raise _Unsure  # a frame's or a generator's insides (their builtins, globals)
        if _dotted(node) in ("sys.path", "sys.meta_path", "sys.path_hooks"):
            raise _Unsure  # where imports are looked for
        if node.attr in ("format", "format_map") and not _plain_format(node.value):
            raise _Unsure  # a format that reaches attributes ("{0.__init__}".format(x))
        if node.attr in _WRITES | _MOVES | {"open"} and id(node) not in self.called:
            raise _Unsure

    def _call(self, node: ast.Call) -> tuple[tuple[str, ...], str] | None:
        """The files a call opens and how ("w" written whole, "a" changed in place, "r"
        read); None for a call that opens none."""
        name = _dotted(node.func)
        unpacked = any(isinstance(arg, ast.Starred) for arg in node.args) or any(
            keyword.arg is None for keyword in node.keywords
        )
        if name in _OPENERS:
            if not node.args or unpacked:
                raise _Unsure
            mode = _mode(node.args[1] if len(node.args) > 1 else _keyword(node, "mode"))
            if mode == "r":
                paths = self._maybe_paths(node.args[0])
                return (paths, mode) if paths is not None else None
            return self._paths(node.args[0]), mode
        if not isinstance(node.func, ast.Attribute):
            return None
        method, receiver = node.func.attr, node.func.value
        if unpacked and method in _WRITES | _MOVES | {"open"}:
            raise _Unsure
        if method == "open":
            paths = self._maybe_paths(receiver)
            mode = _mode(node.args[0] if node.args else _keyword(node, "mode"))
            if paths is None:
                if mode != "r":
                    raise _Unsure  # a write through something it cannot name
                return None
            return paths, mode
        if method in _WRITES:
            return self._paths(receiver), "w"
        if method in _READS:
            paths = self._maybe_paths(receiver)
            return (paths, "r") if paths is not None else None
        if method == "replace":  # text's replace (two or three arguments) changes no file
            if len(node.args) < 2 or self._is_path(receiver) or self._path_class(receiver):
                raise _Unsure
        elif method in _MOVES:
            raise _Unsure
        return None

    def _paths(self, node: ast.expr) -> tuple[str, ...]:
        paths = self._maybe_paths(node)
        if paths is None:
            raise _Unsure
        return paths

    def _maybe_paths(self, node: ast.expr, depth: int = 0) -> tuple[str, ...] | None:
        """The paths an expression stands for, when its text says; None when it does not."""
        if depth > _DEEPEST:
            return None
        key = id(node)
        if key not in self.memo:
            paths = self._paths_of(node, depth)
            too_long = paths is not None and any(len(path) > _LONGEST_PATH for path in paths)
            self.memo[key] = None if too_long else paths
        return self.memo[key]

    def _paths_of(self, node: ast.expr, depth: int) -> tuple[str, ...] | None:
        if isinstance(node, ast.Constant):
            return (node.value,) if isinstance(node.value, str) and node.value else None
        if isinstance(node, ast.Name):
            return self._named(node, depth)
        if isinstance(node, ast.JoinedStr):  # f"src/{name}.py", its names' values known
            joined: tuple[str, ...] = ("",)
            for part in node.values:
                if isinstance(part, ast.FormattedValue):
                    if part.conversion != -1 or part.format_spec is not None:
                        return None
                    paths = self._maybe_paths(part.value, depth + 1)
                else:
                    paths = self._maybe_paths(part, depth + 1)
                if paths is None or len(joined) * len(paths) > _MOST:
                    return None
                joined = tuple(a + b for a in joined for b in paths)
            return joined
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div | ast.Add):
            left = self._maybe_paths(node.left, depth + 1)
            right = self._maybe_paths(node.right, depth + 1)
            if left is None or right is None or len(left) * len(right) > _MOST:
                return None
            if isinstance(node.op, ast.Add):
                return tuple(a + b for a in left for b in right)
            return tuple(posixpath.join(a, b) for a in left for b in right)
        if isinstance(node, ast.Call) and not node.keywords:
            if self._path_class(node.func):
                return self._joined(node.args, depth) if node.args else (".",)
            if _dotted(node.func) == "os.path.join" and self._module("os") and node.args:
                return self._joined(node.args, depth)
            if isinstance(node.func, ast.Attribute) and node.func.attr in _PATH_METHODS:
                return self._path_method(node.func.attr, node.func.value, node.args, depth)
        if isinstance(node, ast.Attribute) and node.attr == "parent":
            paths = self._maybe_paths(node.value, depth + 1)
            return tuple(posixpath.dirname(p) or "." for p in paths) if paths else None
        return None

    def _path_method(
        self, method: str, receiver: ast.expr, args: list[ast.expr], depth: int
    ) -> tuple[str, ...] | None:
        """The paths a path's method gives (``root.joinpath("a.py")``, ``p.with_suffix(".py")``)."""
        if not self._is_path(receiver):
            return None
        paths = self._maybe_paths(receiver, depth + 1)
        if paths is None or method in ("resolve", "absolute", "expanduser"):
            return None  # (a folder the script runs in, or a home: not in its text)
        if method == "joinpath":
            return self._joined([receiver, *args], depth) if args else paths
        if len(args) != 1:
            return None
        given = self._maybe_paths(args[0], depth + 1)
        if given is None or len(given) != 1:
            return None
        part = given[0]
        named: list[str] = []
        for path in paths:
            folder, (stem, suffix) = posixpath.split(path)[0], posixpath.splitext(path)
            stem = posixpath.basename(stem)
            if method == "with_name":
                named.append(posixpath.join(folder, part))
            elif method == "with_suffix":
                named.append(posixpath.join(folder, stem + part))
            else:  # with_stem
                named.append(posixpath.join(folder, part + suffix))
        return tuple(named)

    def _named(self, node: ast.Name, depth: int) -> tuple[str, ...] | None:
        """The paths a name stands for: its one value's, or with a ``for``, each value's of
        the written list it walks (or of the list a name given once stands for). A name the
        module's own statements give several values stands, where it is read, for the last
        one given before (``p = Path("a.py")`` … ``p = Path("b.py")``)."""
        name = node.id
        if self.bound.get(name) != 1 or name not in self.values:
            return self._last_given(node, depth)
        how, value = self.values[name]
        if how == "one":
            return self._maybe_paths(value, depth + 1)
        if isinstance(value, ast.Name):  # a list given once, never changed nor handed on
            listed = self.values.get(value.id)
            if self.bound.get(value.id) != 1 or listed is None or listed[0] != "one":
                return None
            if value.id in self.used:
                return None
            value = listed[1]
        if isinstance(value, ast.Dict) and all(key is not None for key in value.keys):
            value = ast.List(elts=[key for key in value.keys if key is not None], ctx=ast.Load())
        if not isinstance(value, ast.List | ast.Tuple):
            return None
        found: list[str] = []
        for element in value.elts:
            paths = self._maybe_paths(element, depth + 1)
            if paths is None:
                return None
            found += paths
        return tuple(found) if 0 < len(found) <= _MOST else None

    def _last_given(self, node: ast.Name, depth: int) -> tuple[str, ...] | None:
        """The paths of the value a name was last given before it is read, where the module's
        own statements give it every value it has and it is read where they run."""
        given = self.bindings.get(node.id, [])
        if len(given) != self.bound.get(node.id) or id(node) in self.deferred:
            return None
        if not all(how == "one" and id(statement) in self.top for how, _, statement in given):
            return None
        at = (node.lineno, node.col_offset)
        before = [
            (statement.end_lineno or 0, statement.end_col_offset or 0, value)
            for _, value, statement in given
            if (statement.end_lineno or 0, statement.end_col_offset or 0) <= at
        ]
        if not before:
            return None
        return self._maybe_paths(max(before, key=lambda found: found[:2])[2], depth + 1)

    def _joined(self, parts: list[ast.expr], depth: int) -> tuple[str, ...] | None:
        """The paths of parts joined (``Path("a", "b")``, ``os.path.join("a", "b")``)."""
        joined: tuple[str, ...] = ("",)
        for part in parts:
            paths = self._maybe_paths(part, depth + 1)
            if paths is None or len(joined) * len(paths) > _MOST:
                return None
            joined = tuple(posixpath.join(a, b) for a in joined for b in paths)
        return joined

    def _is_path(self, node: ast.expr, depth: int = 0) -> bool:
        """Whether an expression is a path object (``Path(…)``, a join with ``/``, a name
        given one once), rather than text, whose ``replace`` is text's."""
        if depth > _DEEPEST:
            return False
        if isinstance(node, ast.Call):
            if self._path_class(node.func):
                return True
            method = node.func  # a path's method that gives a path (with_name, resolve…)
            return (
                isinstance(method, ast.Attribute)
                and method.attr in _PATH_METHODS
                and self._is_path(method.value, depth + 1)
            )
        if isinstance(node, ast.BinOp):
            return isinstance(node.op, ast.Div)
        if isinstance(node, ast.Attribute):
            return node.attr == "parent"
        if isinstance(node, ast.Name) and self.bound.get(node.id) == 1:
            how, value = self.values.get(node.id, ("", node))
            if how == "each":  # any element a path
                return not isinstance(value, ast.List | ast.Tuple) or any(
                    self._is_path(element, depth + 1) for element in value.elts
                )
            return how == "one" and self._is_path(value, depth + 1)
        return False

    def _module(self, name: str) -> bool:
        """Whether a name is the module of that name (``import os``, ``import os.path``),
        imported once and given no other value."""
        imported = self.imported.get(name, "")
        return imported.partition(".")[0] == name and self.bound.get(name) == 1

    def _path_class(self, node: ast.expr) -> bool:
        """Whether an expression is pathlib's ``Path`` (or a pure or POSIX one): imported from
        pathlib and given no other value, or named through the module (``pathlib.Path``)."""
        name = _dotted(node)
        if name is None:
            return False
        module, _, last = name.rpartition(".")
        if last not in _PATHS:
            return False
        if not module:
            return self.imported.get(name) == "pathlib" and self.bound.get(name) == 1
        return module == "pathlib" and self._module("pathlib")


def _check_import(node: ast.Import | ast.ImportFrom) -> None:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name not in _MODULES and alias.name not in ("os", "os.path"):
                raise _Unsure
            if alias.asname:
                raise _Unsure  # a module under another name: its uses are not seen as its
        return
    module = node.module or ""
    if node.level or (module not in _MODULES and module not in ("os", "os.path")):
        raise _Unsure
    if module == "os" and any(alias.name not in _OS for alias in node.names):
        raise _Unsure
    if any(alias.name in _REACHES | _FORBIDDEN | {"*", "open"} for alias in node.names):
        raise _Unsure  # a module through another (from glob import os), all its names, an opener


def _dotted(node: ast.expr) -> str | None:
    """A name as written (``os.path.join``); None for an expression that is not one."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _plain_format(node: ast.expr) -> bool:
    """Whether a format string's fields name no attribute or item (``"{0.x}"``, ``"{0[k]}"``)."""
    if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
        return False
    return not re.search(r"\{[^{}]*[.\[]", node.value)


def _keyword(node: ast.Call, name: str) -> ast.expr | None:
    return next((kw.value for kw in node.keywords if kw.arg == name), None)


def _mode(node: ast.expr | None) -> str:
    """How a mode opens its file: "w" written whole, "a" changed in place, "r" read."""
    if node is None:
        return "r"
    if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
        raise _Unsure
    mode = node.value
    if "w" in mode or "x" in mode:
        return "w"
    if "a" in mode or "+" in mode:
        return "a"
    return "r"
