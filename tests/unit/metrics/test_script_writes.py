"""Python scripts fed to the interpreter that only write files are edits of those files
(``proctor.metrics.scripts``, through ``proctor.metrics.writes``)."""

from __future__ import annotations

from typing import Any

import pytest
from metrics_fixtures import call, result, shell

from proctor.metrics import scripts
from proctor.metrics.figures import step_figures
from proctor.metrics.process import compute_process_metrics
from proctor.metrics.trace import build_steps
from proctor.metrics.writes import written_files


def py(body: str, head: str = "python3 -") -> str:
    return f"{head} <<'PY'\n{body}\nPY"


REPLACE = py(
    "from pathlib import Path\n"
    'path = Path("src/app.py")\n'
    "text = path.read_text()\n"
    'text = text.replace("return a - b", "return a + b")\n'
    "path.write_text(text)"
)
"""The commonest shape: a file read, its text changed, written back (an edit in place)."""

CASES: list[tuple[Any, tuple[tuple[str, ...], bool] | None]] = [
    (REPLACE, (("src/app.py",), True)),
    (py("open('notes.md', 'w').write('hi')", "python -"), (("notes.md",), False)),
    (py("open('new.py', 'x').write('')"), (("new.py",), False)),
    (py("open('log.txt', mode='a').write('x')"), (("log.txt",), True)),
    (
        py(
            "with open('a.py') as f:\n    s = f.read()\nwith open('a.py', 'w') as f:\n    f.write(s)"
        ),
        (("a.py",), True),
    ),
    (
        py("import re\np = 'a.py'\ns = re.sub('x', 'y', open(p).read())\nopen(p, 'w').write(s)"),
        (("a.py",), True),
    ),
    (py("open('a.py', 'r+').write('x')"), (("a.py",), True)),
    (py("import json\njson.dump({}, open('cfg.json', 'w'))"), (("cfg.json",), False)),
    (py("from pathlib import Path\nPath('a.py').touch()"), (("a.py",), False)),
    (py("from pathlib import Path\nPath('a.py').open('w').write('x')"), (("a.py",), False)),
    # Paths joined with / and +, Path(a, b), os.path.join, .parent, a for over a list.
    (
        py(
            "from pathlib import Path\nroot = Path('src')\n(root / 'pkg' / '__init__.py').write_text('')"
        ),
        (("src/pkg/__init__.py",), False),
    ),
    (py("from pathlib import Path\nPath('src', 'b.py').write_bytes(b'')"), (("src/b.py",), False)),
    (py("d = 'src/'\nopen(d + 'c.py', 'w').write('')"), (("src/c.py",), False)),
    (
        py(
            "import os\nfor n in ['a.py', 'b.py']:\n    open(os.path.join('src', n), 'a').write('x')"
        ),
        (("src/a.py", "src/b.py"), True),
    ),
    (
        py(
            "from pathlib import Path\nfiles = ('a.py', 'b.py')\nfor f in files:\n    Path(f).write_text('')"
        ),
        (("a.py", "b.py"), False),
    ),
    (
        py("import os\nos.makedirs('pkg', exist_ok=True)\nopen('pkg/m.py', 'w').write('')"),
        (("pkg/m.py",), False),
    ),
    (
        py(
            "from pathlib import Path\np = Path('pkg/m.py')\np.parent.mkdir(parents=True)\np.write_text('')"
        ),
        (("pkg/m.py",), False),
    ),
    (
        py("from pathlib import Path\ns = 'abc'.replace('a', 'b')\nPath('a.py').write_text(s)"),
        (("a.py",), False),
    ),
    # How the script reaches the interpreter.
    (py("open('a.py', 'w')", "python3"), (("a.py",), False)),  # its standard input
    (py("open('a.py', 'w').write('$HOME')"), (("a.py",), False)),  # quoted: no expansion
    (py("open('a.py', 'w')", "python3 -u -"), (("a.py",), False)),
    (py("open('a.py', 'w')", "/usr/bin/python3.12 -"), (("a.py",), False)),
    (py("open('a.py', 'w')", "cd app && python3 -"), (("app/a.py",), False)),
    ("python3 -c \"open('x.txt', 'w').write('1')\"", (("x.txt",), False)),
    (["bash", "-lc", REPLACE], (("src/app.py",), True)),
    (py("open('a.py', 'w')") + "\necho done", (("a.py",), False)),
    # More than writing, or writing where the text does not say: a shell command.
    (py("import subprocess\nsubprocess.run(['pytest'])\nopen('a.py', 'w')"), None),
    (py("import os\nos.system('make')\nopen('a.py', 'w')"), None),
    (py("import os as o\no.remove('x')\nopen('a.py', 'w')"), None),
    (py("from os import remove\nremove('x')\nopen('a.py', 'w')"), None),
    (py("import shutil\nshutil.copy('a', 'b')"), None),
    (py("from . import x\nopen('a.py', 'w')"), None),
    (py("import sys\np = sys.argv[1]\nopen(p, 'w').write('1')"), None),
    (py("n = 'a'\nopen(f'{n}.py', 'w')"), (("a.py",), False)),  # an f-string of known names
    (py("import sys\nopen(f'{sys.argv[1]}.py', 'w')"), None),
    (py("p = 'a.py'\np = 'b.py'\nopen(p, 'w')"), (("b.py",), False)),  # the last given before
    (py("p = 'a.py'\nif x:\n    p = 'b.py'\nopen(p, 'w')"), None),  # given where it may not run
    (py("def w(p):\n    open(p, 'w')\nw('a.py')"), (("a.py",), False)),  # a helper's parameter
    (
        py(
            "from pathlib import Path\ndef patch(path, old, new):\n    p = Path(path)\n    p.write_text(p.read_text().replace(old, new))\npatch('a.py', 'x', 'y')\npatch(new='v', old='u', path='b.py')"
        ),
        (("a.py", "b.py"), True),
    ),  # by place or by name, every call's
    (py("import sys\ndef w(p):\n    open(p, 'w')\nw('a.py')\nw(sys.argv[1])"), None),
    (py("def w(p):\n    open(p, 'w')\nw('a.py')\nf = w\nf('b')"), None),  # handed on
    (py("def w(p):\n    open(p, 'w')\nw(*['a.py'])"), None),
    (py("def w(p='a.py'):\n    open(p, 'w')\nw()"), (("a.py",), False)),  # a default
    (py("def w(p, mode='w'):\n    open(p, mode)\nw('a.py')"), None),  # a mode where it opens
    (
        py("def w(p, text=''):\n    open(p, 'w').write(text)\nw('a.py')\nw('b.py', text='x')"),
        (("a.py", "b.py"), False),
    ),
    (
        py("def fix(p='a.py'):\n    s = open(p).read()\n    open(p, 'w').write(s)\nfix()"),
        (("a.py",), True),
    ),
    (py("q = 'a.py'\ndef w(p=q):\n    open(p, 'w')\nw()"), None),  # a default not a constant
    (
        py("def w(p, e=None):\n    open(p, 'w')\nw('a.py')\nw('b.py', e=1)"),
        (("a.py", "b.py"), False),
    ),
    (py("def w(p='a.py'):\n    open(p, 'w')\nw()\nw(p=q)"), None),  # one call's unknown value
    (py("p = 'a.py'\ndef w(p):\n    open(p, 'w')\nw('b.py')"), None),
    (py("from pathlib import Path\nPath('old.py').rename('new.py')"), None),
    (py("from pathlib import Path\nPath('a.py').write_text('')\nPath('b.py').unlink()"), None),
    (py("from pathlib import Path\np = Path('a.py')\np.write_text('')\np.replace('b.py')"), None),
    (py("from pathlib import Path\ngetattr(Path('a.py'), 'unlink')()\nopen('b', 'w')"), None),
    (py("exec('import os')\nopen('a.py', 'w')"), None),
    (py("__import__('os').remove('a')\nopen('a.py', 'w')"), None),
    (py("m = 'w'\nopen('a.py', m)"), None),  # a mode not written where it opens
    (py("import glob\nfor f in glob.glob('*.py'):\n    open(f, 'a').write('')"), None),
    # Reaching past the text (from a review: each of these ran a program, wrote elsewhere,
    # or moved a file, while also writing a.py).
    (py("import glob\nglob.os.system('make')\nopen('a.py', 'w')"), None),
    (py("import os\nos.path.os.system('make')\nopen('a.py', 'w')"), None),
    (py("from fnmatch import os as o\no.remove('b')\nopen('a.py', 'w')"), None),
    (py("import sys\nsys.modules['os'].system('make')\nopen('a.py', 'w')"), None),
    (py("__builtins__.exec('1')\nopen('a.py', 'w')"), None),
    (py("().__class__.__base__.__subclasses__()\nopen('a.py', 'w')"), None),
    (py("import typing\ntyping.get_type_hints(int)\nopen('a.py', 'w')"), None),
    (py("import sys\no = open\no(sys.argv[0], 'w')\nopen('a.py', 'w')"), None),
    (py("import sys\nopen(sys.argv[0], **{'mode': 'w'})\nopen('a.py', 'w')"), None),
    (
        py(
            "import sys\nfiles = ['a.py']\nfiles.append(sys.argv[0])\nfor f in files:\n    open(f, 'w')"
        ),
        None,
    ),
    (py("import sys\np = 'a.py'\nmatch sys.argv[0]:\n    case p: pass\nopen(p, 'w')"), None),
    (py("from pathlib import Path\nlist(map(Path.unlink, []))\nPath('a.py').write_text('')"), None),
    (
        py(
            "from pathlib import Path\nPath('a').with_name('a').replace('b')\nPath('c').write_text('')"
        ),
        None,
    ),
    (
        py(
            "from pathlib import Path\nfor p in [Path('a')]:\n    p.replace('b')\nPath('c').write_text('')"
        ),
        None,
    ),
    (py("from pathlib import Path\nPath.replace(Path('a'), 'b')\nPath('c').write_text('')"), None),
    (py("import io, sys\nio.FileIO(sys.argv[0], 'w')\nopen('a.py', 'w')"), None),
    (py("for xs in ['ab']:\n    for f in xs:\n        open(f, 'w')"), None),  # f is 'a', then 'b'
    (
        py(
            "import sys\nfrom pathlib import Path as P\ndef Path(_):\n    return P(sys.argv[0])\nPath('a.py').write_text('')"
        ),
        None,
    ),
    ("bash -lc \"python3 - <<'PY'\nopen('$T', 'w')\nPY\"", None),  # the outer shell expands $T
    (
        py(
            "import os\n"
            + "".join(
                f"a{i + 1} = os.path.join({', '.join([f'a{i}'] * 10)})\n" for i in range(7)
            ).replace("a0", "'x'")
            + "open(a7, 'w')"
        ),
        None,
    ),  # a path past reading
    (py("t = open('./a.py').read()\nopen('a.py', 'w').write(t)"), (("a.py",), True)),  # one file
    (["python3", "-c", "open('a.py', 'w').write('x')"], (("a.py",), False)),  # an argv
    # Ordinary edit scripts (from a second review): a name given again, tuples, loops over
    # rows, an annotation, import os.path, a path's methods, an f-string.
    (
        py(
            "from pathlib import Path\np = Path('a.py')\np.write_text(p.read_text())\np = Path('b.py')\np.write_text(p.read_text())"
        ),
        (("a.py", "b.py"), True),
    ),
    (py("src, dst = 'a.py', 'b.py'\nopen(dst, 'w').write(open(src).read())"), (("b.py",), False)),
    (
        py(
            "from pathlib import Path\nfor path, old, new in [('a.py', 'x', 'y'), ('b.py', 'u', 'v')]:\n    p = Path(path)\n    p.write_text(p.read_text().replace(old, new))"
        ),
        (("a.py", "b.py"), True),
    ),  # p takes each row's path
    (
        py(
            "for path, old, new in [('a.py', 'x', 'y'), ('b.py', 'u', 'v')]:\n    open(path, 'a').write(new)"
        ),
        (("a.py", "b.py"), True),
    ),
    (
        py("for name, (old, new) in {'a.py': ('x', 'y')}.items():\n    open(name, 'w').write(new)"),
        (("a.py",), False),
    ),
    (py("from pathlib import Path\np: Path = Path('a.py')\np.write_text('')"), (("a.py",), False)),
    (py("import os.path\nopen(os.path.join('src', 'app.py'), 'w')"), (("src/app.py",), False)),
    (
        py("from pathlib import Path\nroot = Path('src')\nroot.joinpath('b.py').write_text('')"),
        (("src/b.py",), False),
    ),
    (
        py("from pathlib import Path\np = Path('src/a.py')\np.with_suffix('.pyi').write_text('')"),
        (("src/a.pyi",), False),
    ),
    (
        py("from pathlib import Path\np = Path('src/a.py')\np.with_name('b.py').write_text('')"),
        (("src/b.py",), False),
    ),
    (
        py(
            "edits = {'a.py': ('x', 'y'), 'b.py': ('u', 'v')}\nfor name, (old, new) in edits.items():\n    open(name, 'a').write(new)"
        ),
        (("a.py", "b.py"), True),
    ),  # a dictionary a name stands for
    (py("edits = {'a.py': 1}\nfor name in edits:\n    open(name, 'w')"), (("a.py",), False)),
    (
        py(
            "import sys\nedits = {'a.py': 1}\nedits[sys.argv[1]] = 2\nfor name in edits.keys():\n    open(name, 'w')"
        ),
        None,
    ),
    # Reaching past the text (a second review).
    (py("(i for i in ()).gi_frame.f_builtins['exec']('1')\nopen('a.py', 'w')"), None),
    (py("import sys\nsys._getframe()\nopen('a.py', 'w')"), None),
    (py("import typing\ntyping.operator.attrgetter('os')(typing)\nopen('a.py', 'w')"), None),
    (py("import pathlib\npathlib.io.open('/etc/x', 'w')\nopen('a.py', 'w')"), None),
    (py("from io import open as o\no('x', 'w')\nopen('a.py', 'w')"), None),
    (py("import io as i\ni.open('x', 'w')\nopen('a.py', 'w')"), None),
    (py("type(open('a.py', 'w').buffer.raw)('x', 'w')"), None),
    (py("p = 'a.py'\ntry:\n    pass\nexcept Exception as p:\n    pass\nopen(p, 'w')"), None),
    (
        py(
            "import sys\nfiles = ['a.py']\ng = files\ng.append(sys.argv[1])\nfor f in files:\n    open(f, 'w')"
        ),
        None,
    ),
    (py("import os\n'{0.__init__.__globals__}'.format(os.path)\nopen('a.py', 'w')"), None),
    (py("import sys\nsys.path.insert(0, '/x')\nopen('a.py', 'w')"), None),
    (py("print(open('a.py').read())"), None),  # writes nothing
    (py("open('a.py', 'w'"), None),  # not Python
    ("python3 - <<PY\nopen('$HOME/x', 'w')\nPY", None),  # the shell expands it
    ("python3 - <<PY\nopen('a.py', 'w').write(`date`)\nPY", None),
    ("python3 -c \"open('a.py', 'w')\" extra", None),
    ("python3 script.py", None),
    ("python3 -m pytest -q", None),
    ("python3 -W error - <<'PY'\nopen('a.py', 'w')\nPY", None),  # an option it does not know
    (py("open('a.py', 'w')") + "\npytest -q", None),
    ("python3 - <<'PY' | tail\nopen('a.py', 'w')\nPY", None),
    (py("open('a.py', 'w')", "python3 - > out.txt"), (("a.py", "out.txt"), False)),
    ("python3 - <<'PY'\n" + "(" * 500 + "1" + ")" * 500 + "\nPY", None),  # nested past reading
    ("python3 - <<'PY'\nx = 1\x00\nPY", None),
]


@pytest.mark.parametrize(("command", "want"), CASES)
def test_the_files_a_python_script_only_writes(command: Any, want: Any) -> None:
    assert written_files(command) == want


def _session(line: str) -> list[Any]:
    """A read, ``line`` run through Codex's shell, then a passing test run."""
    return [
        call("r", "read", files=["src/app.py"]),
        result("r"),
        call("w", "shell", input={"command": ["bash", "-lc", line], "workdir": "/ws"}),
        result("w"),
        shell("t", "python3 -m pytest -q"),
        result("t"),
    ]


def test_a_python_script_writing_outside_the_workspace_stays_a_shell_step() -> None:
    (step,) = build_steps([shell("w", py("open('/tmp/scratch.py', 'w')")), result("w")], "/ws")
    assert (step.kind, step.files) == ("shell", ())


def test_a_python_script_that_runs_a_program_is_no_edit() -> None:
    line = py("import subprocess\nsubprocess.run(['pytest'])\nopen('src/app.py', 'w')")
    metrics = compute_process_metrics(_session(line), workspace="/ws")
    assert not metrics.is_task and metrics.steps.by_kind == {"read": 1, "shell": 2}


def test_control_without_script_writes_the_session_is_no_task(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import proctor.metrics.writes as writes

    writes._written_line.cache_clear()
    monkeypatch.setattr(writes, "script_writes", lambda source: None)
    try:
        assert not step_figures(build_steps(_session(REPLACE), "/ws"), None).is_task
    finally:
        writes._written_line.cache_clear()
    assert scripts.script_writes("open('a.py', 'w')") == (["a.py"], [])


def test_the_scripted_models_shell_edits_are_edits() -> None:
    """The scripted model's Codex edits that its patch tool cannot take run through the shell
    (see docs/scripted-model.md): they are edits of their file as the patch would be."""
    from proctor.scripted.server.patches import edit_command, write_command

    old, new = "return a - b", 'return f"{a}" + "$b"'  # a replacement the shell never expands
    assert written_files(edit_command("src/calc.py", old, new, False)) == (("src/calc.py",), True)
    assert written_files(write_command("pkg/new.py", "x = 1")) == (("pkg/new.py",), False)
