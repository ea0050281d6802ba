"""``proctor eval`` with a key of the environment in an eval's own text: a gate's label that
quotes it is masked before it is shortened (it kept the key's first 26 characters), and
``--json`` and ``--list`` print an eval's description masked (it was printed whole)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

KEY = "AIzaSyTESTgemini5555EEEE6666FFFF"
PART = KEY[:8]
"""Any eight characters of the key from its start: the most of it nothing may show."""

EVAL = """
    import os
    from proctor.evals import define_eval, includes

    async def test(t):
        await t.send("go")
        t.check(t.reply, includes("nonexistent-" + os.environ["GEMINI_API_KEY"]))

    eval = define_eval(
        description="desc " + os.environ["GEMINI_API_KEY"],
        plan={"turns": [{"say": "x"}]},
        test=test,
    )
"""


def _proctor(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    root = tmp_path / "proj"
    (root / "evals").mkdir(parents=True, exist_ok=True)
    (root / "evals" / "k.eval.py").write_text(textwrap.dedent(EVAL))
    (root / "evals" / "evals.config.py").write_text(
        "from proctor.evals import define_eval_config\n"
        "config = define_eval_config(max_concurrency=1)\n"
    )
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {**os.environ, "GEMINI_API_KEY": KEY, "HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "proctor", "eval", "--dir", str(root), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )


def _written(folder: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file())


def test_a_gate_label_quoting_a_key_shows_no_part_of_it(tmp_path: Path) -> None:
    done = _proctor(tmp_path, "--out", str(tmp_path / "out"))
    assert done.returncode == 1, done.stderr
    assert "FAIL check(includes 'nonexistent-***')" in done.stdout
    for text in (done.stdout, done.stderr, _written(tmp_path / "out")):
        assert PART not in text


def test_json_and_list_print_a_description_masked(tmp_path: Path) -> None:
    done = _proctor(tmp_path, "--out", str(tmp_path / "out"), "--json", "--no-stream")
    summary = json.loads(done.stdout)
    assert summary["results"][0]["description"] == "desc ***"
    assert summary["results"][0]["assertions"][0]["name"] == "check(includes 'nonexistent-***')"
    listed = _proctor(tmp_path, "--list")
    listed_json = _proctor(tmp_path, "--list", "--json")
    assert listed.stdout.strip() == "k  desc ***", listed.stderr
    assert json.loads(listed_json.stdout)[0]["description"] == "desc ***"
    for text in (done.stdout, listed.stdout, listed_json.stdout):
        assert PART not in text
