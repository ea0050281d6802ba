"""A key of ``t.send(workspace_files=…)`` is a file's path relative to the workspace: one that
names no file (``''``, ``'.'``, ``'src/'``, a folder ``workspace_dir`` seeded) is said so,
naming the key, where it was Python's ``IsADirectoryError`` naming the temporary workspace;
one that leads outside the workspace is refused as before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.integration.test_evals_cli import project, run_json

Run = Any


def test_a_workspace_files_key_that_names_no_file_is_said_so(proctor: Run, tmp_path: Path) -> None:
    keys = {"empty": "", "dot": ".", "slash": "src/", "seeded": "pkg", "outside": "../x.txt"}
    files = {
        f"{name}.eval.py": f"""
            from proctor.evals import define_eval
            async def test(t):
                await t.send("hi", workspace_dir="fixture", workspace_files={{{key!r}: "x"}})
            eval = define_eval(plan={{"turns": [{{"say": "hi"}}]}}, test=test)
        """
        for name, key in keys.items()
    }
    root = project(tmp_path, files)
    (root / "fixture" / "pkg").mkdir(parents=True)
    (root / "fixture" / "pkg" / "m.py").write_text("")
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 3, result.err
    by_id = {r["id"]: r for r in out["results"]}
    for name, key in keys.items():
        at = f" (at {root / 'evals' / name}.eval.py:4)"
        why = (
            "leads outside the workspace"
            if name == "outside"
            else "is not the path of a file (a key is a file's path relative to the workspace, "
            "such as 'src/app.py')"
        )
        assert by_id[name]["error"] == f"RuntimeError: workspace_files: {key!r} {why}{at}", by_id[
            name
        ]
