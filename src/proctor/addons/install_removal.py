"""Whether an uninstall removed what the install added: the scratch after the uninstall is
compared with the scratch as planted before the install. A file the install added and the
uninstall left is a failure, and so is a key left in one of the user's settings files (in
Claude Code's ``.claude.json``, only its MCP servers count: the rest is the CLI's bookkeeping); a
folder left empty is only a note."""

from __future__ import annotations

from pathlib import Path

from proctor.addons.install_planted import (
    claude_state_servers,
    has_key,
    leftover_keys,
    planted_files,
    pruned,
    read_document,
    value_at,
)
from proctor.addons.install_scratch import Snapshot, compare, shorten
from proctor.models.install_check import InstallCheck


def removal_checks(
    planted: Snapshot, after: Snapshot, root: Path, agents: list[str]
) -> tuple[InstallCheck, list[str]]:
    """The ``uninstall-removes`` check and the notes (empty folders left behind)."""
    changes = compare(planted, after)
    files = [p for p in changes.added if after[p].kind != "dir"]
    folders = [
        p
        for p in changes.added
        if after[p].kind == "dir" and not any(q.startswith(p + "/") for q in after)
    ]
    problems = [f"left {shorten(files)}"] if files else []
    for planted_file in planted_files(agents):
        rel = f"home/{planted_file.rel}"
        if rel not in changes.changed or isinstance(planted_file.content, str):
            continue
        doc = read_document(root / rel)
        if not isinstance(doc, dict):
            continue  # unreadable or gone: the uninstall-keeps-user check names it
        if planted_file.rel == ".claude.json":
            doc = claude_state_servers(doc)
        kept, before = pruned(doc), pruned(planted_file.content)
        # A key still there (a user's key the uninstall took away is uninstall-keeps-user's),
        # and one set to null counts as left unless the user's own key is what became null.
        left = [
            k
            for k in leftover_keys(before, doc)
            if value_at(kept, k) is not None or (has_key(kept, k) and not has_key(before, k))
        ]
        if left:
            keys = shorten([".".join(k) for k in left])
            problems.append(f"left {keys} in {rel}")
    notes = [f"the uninstall left empty folders: {shorten(folders)}"] if folders else []
    if problems:
        message = "the uninstall " + "; ".join(problems)
        return InstallCheck(name="uninstall-removes", passed=False, message=message), notes
    message = "the uninstall removed every file and setting the install added"
    return InstallCheck(name="uninstall-removes", passed=True, message=message), notes
