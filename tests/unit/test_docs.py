"""The documentation names what exists: every Python example compiles and its imports resolve,
and the README's exit-code table is the ``ExitCode`` enum."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from proctor.exit_codes import ExitCode

ROOT = Path(__file__).parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)
FROM_IMPORT = re.compile(r"^from (proctor[\w.]*) import (?:\(([^)]*)\)|([^(\n]+)$)", re.M)


def python_blocks() -> list[tuple[str, str]]:
    return [
        (f"{page.name}#{n}", block)
        for page in PAGES
        for n, block in enumerate(BLOCK.findall(page.read_text()))
    ]


@pytest.mark.parametrize(("where", "block"), python_blocks())
def test_a_python_example_compiles_and_imports_what_exists(where: str, block: str) -> None:
    try:
        compile(block, where, "exec")
    except SyntaxError:
        compile(f"def {block.strip()}: ...", where, "exec")  # a signature, as documented
    for module_name, listed, inline in FROM_IMPORT.findall(block):
        module = importlib.import_module(module_name)
        for name in (listed or inline).replace("\n", ",").split(","):
            name = name.split("#")[0].split(" as ")[0].strip()
            if name:
                assert hasattr(module, name), f"{where}: {module_name} has no {name}"


def test_the_readme_exit_code_table_is_the_enum() -> None:
    text = (ROOT / "README.md").read_text()
    table = text[text.index("| exit code | meaning |") :].split("\n\n")[0]
    codes = [int(m) for m in re.findall(r"^\| (\d+) \|", table, re.M)]
    assert codes == [int(code) for code in ExitCode]
