"""Provider keys: resolved once at start-up, held in memory, masked everywhere.

Lookup order per provider: ``PROCTOR_<PROVIDER>_KEY``, then the provider's standard variable
(``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY``), first in the environment, then in ``.env`` in the
current directory. Keys never reach a file: forked workers inherit them in memory, every text
proctor writes passes through :func:`mask`, and a logging filter masks log records.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping
from pathlib import Path

STANDARD_KEY_VARS = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
MASK = "***"
_SECRETS: set[str] = set()
_DOTENV_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$")


def key_variables(provider: str) -> list[str]:
    names = [f"PROCTOR_{provider.upper().replace('-', '_')}_KEY"]
    if provider in STANDARD_KEY_VARS:
        names.append(STANDARD_KEY_VARS[provider])
    return names


def read_dotenv(path: Path) -> dict[str, str]:
    """``KEY=value`` lines of a ``.env`` file (quotes stripped); empty when there is none."""
    values: dict[str, str] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return values
    for line in lines:
        if line.lstrip().startswith("#"):
            continue
        match = _DOTENV_LINE.match(line)
        if match:
            value = match.group(2)
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            values[match.group(1)] = value
    return values


def resolve_key(
    provider: str, env: Mapping[str, str], dotenv: Mapping[str, str]
) -> tuple[str | None, list[str]]:
    """(the key or None, the variables looked at, in order)."""
    names = key_variables(provider)
    for source in (env, dotenv):
        for name in names:
            value = source.get(name)
            if value:
                register_secret(value)
                return value, names
    return None, names


def register_secret(value: str) -> None:
    if len(value) >= 6:
        _SECRETS.add(value)


def mask(text: str) -> str:
    """``text`` with every registered secret replaced by ``***``."""
    for secret in _SECRETS:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


class MaskingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = mask(str(record.getMessage()))
        record.args = ()
        return True


def install_log_masking() -> None:
    logger = logging.getLogger("proctor")
    if not any(isinstance(f, MaskingFilter) for f in logger.filters):
        logger.addFilter(MaskingFilter())


def load_dotenv(cwd: Path | None = None) -> dict[str, str]:
    return read_dotenv((cwd or Path.cwd()) / ".env")


def environment() -> dict[str, str]:
    return dict(os.environ)


def scrub_tree(root: Path) -> list[str]:
    """Replace every registered secret in the files under ``root`` (relative paths returned).

    Byte-for-byte copies (a raw transcript, the terminal stream) lose their exactness only when
    they held a secret: keys never stay on disk.
    """
    if not _SECRETS or not root.is_dir():
        return []
    needles = [s.encode() for s in _SECRETS]
    touched = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if any(n in data for n in needles):
            for needle in needles:
                data = data.replace(needle, MASK.encode())
            path.write_bytes(data)
            touched.append(path.relative_to(root).as_posix())
    return touched
