"""Where the agent works: the workspace directory named in the request, and paths inside it.

Claude Code's system prompt says ``Working directory: /abs`` (or ``Primary working directory``),
Codex's ``<environment_context>`` has ``<cwd>/abs</cwd>`` and Gemini CLI's opening context says
``I'm currently working in the directory: /abs``. The first match wins; without one, plan paths
stay relative.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

CWD_PATTERNS = (
    re.compile(r"<cwd>\s*([^<\n]+?)\s*</cwd>"),
    re.compile(r"working directory:[ \t]*(/[^\n]*)", re.IGNORECASE),
    re.compile(r"working in the directory:?[ \t]*(/[^\n]*)", re.IGNORECASE),
)


def workspace_cwd(texts: Iterable[str]) -> str | None:
    """The absolute workspace directory a request mentions, or None."""
    corpus = list(texts)
    for pattern in CWD_PATTERNS:
        for text in corpus:
            match = pattern.search(text)
            if match:
                path = match.group(1).strip().strip("`'\"").rstrip()
                if path.startswith("/"):
                    return path
    return None


def resolve(cwd: str | None, path: str) -> str:
    """``path`` made absolute against ``cwd`` when the workspace is known."""
    if cwd is None or path.startswith("/"):
        return path
    return posixpath.normpath(posixpath.join(cwd, path))
