"""File changes spelled for tools that have no file-writing tool of their own.

``apply_patch`` (Codex's freeform tool) gets a ``*** Begin Patch`` envelope; a shell gets a
heredoc (or ``printf`` when the content has no final newline) and a ``python3`` replace.
"""

from __future__ import annotations

import posixpath
import shlex

EOF_MARK = "PROCTOR_EOF"


def _lines(text: str) -> list[str]:
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


def patchable_write(content: str) -> bool:
    """apply_patch rewrites the exact bytes only for non-empty content ending in a newline."""
    return content.endswith("\n")


def patchable_edit(old: str, new: str) -> bool:
    """apply_patch matches whole lines, so ``old`` (and ``new``) must be whole lines."""
    return old.endswith("\n") and (new == "" or new.endswith("\n"))


def add_file_patch(path: str, content: str) -> str:
    body = "".join(f"+{line}\n" for line in _lines(content))
    return f"*** Begin Patch\n*** Add File: {path}\n{body}*** End Patch"


def update_file_patch(path: str, old: str, new: str) -> str:
    minus = "".join(f"-{line}\n" for line in _lines(old))
    plus = "".join(f"+{line}\n" for line in _lines(new)) if new else ""
    return f"*** Begin Patch\n*** Update File: {path}\n@@\n{minus}{plus}*** End Patch"


def write_command(path: str, content: str) -> str:
    """A shell command that writes ``content`` to ``path`` byte for byte."""
    parent = posixpath.dirname(path)
    mkdir = f"mkdir -p {shlex.quote(parent)} && " if parent else ""
    target = shlex.quote(path)
    if content.endswith("\n") and f"\n{EOF_MARK}\n" not in f"\n{content}":
        return f"{mkdir}cat > {target} <<'{EOF_MARK}'\n{content}{EOF_MARK}"
    return f"{mkdir}printf %s {shlex.quote(content)} > {target}"


def edit_command(path: str, old: str, new: str, replace_all: bool) -> str:
    """A shell command replacing ``old`` by ``new`` in ``path``; it fails when ``old`` is absent."""
    script = (
        "import pathlib, sys\n"
        f"p = pathlib.Path({path!r})\n"
        "s = p.read_text()\n"
        f"old, new = {old!r}, {new!r}\n"
        "if old not in s:\n"
        "    sys.exit(f'old string not found in {p}')\n"
        f"p.write_text(s.replace(old, new, {-1 if replace_all else 1}))\n"
    )
    return f"python3 - <<'{EOF_MARK}'\n{script}{EOF_MARK}"
