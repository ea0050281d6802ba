"""Provider keys: resolved once at start-up, held in memory, masked everywhere.

Lookup order per provider: ``PROCTOR_<PROVIDER>_KEY``, then the provider's standard variable
(``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY``), first in the environment, then in ``.env`` in the
current directory (a resume's: the folder the run was started in). Keys never reach a file:
forked workers inherit them in memory, and every key found is registered with
:mod:`proctor.util.masking`, which masks what proctor writes.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path

from proctor.errors import ConfigError
from proctor.paths import current_folder
from proctor.util.logs import say
from proctor.util.masking import register_secret

STANDARD_KEY_VARS = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}


def key_variables(provider: str) -> list[str]:
    names = [f"PROCTOR_{provider.upper().replace('-', '_')}_KEY"]
    if provider in STANDARD_KEY_VARS:
        names.append(STANDARD_KEY_VARS[provider])
    return names


_WARNED: set[Path] = set()
"""The ``.env`` files whose unreadable lines were said already (once per file and process: the
keys are looked up several times before a run, and workers inherit this)."""


def read_dotenv(path: Path, *, quiet: bool = False) -> dict[str, str]:
    """``KEY=value`` lines of a ``.env`` file, read by python-dotenv without interpolation
    (UTF-8, or UTF-16 with its byte order mark); empty when there is none or it cannot be read
    (a folder, a link to nothing, bytes of another encoding: said once as a warning, as a
    ``.env`` that is there but serves no key is a key the user thinks is given). Lines it
    cannot read are skipped, said once
    as a warning naming the file and the lines (not python-dotenv's own log line, which
    names neither the file nor proctor, once per lookup); ``quiet``: not said (a file read only
    to mask its keys, such as the current folder's in a resume, which reads another)."""
    if not path.is_file():
        if not quiet and (path.is_symlink() or path.exists()):  # a folder, a dangling link
            what = "a link to nothing" if not path.exists() else "not a file"
            _said_once(path, f"{_named(path)} is {what}: no key is read from it")
        return {}
    import io

    from dotenv import dotenv_values  # here: most runs have no .env, and it costs ~3 ms
    from dotenv.parser import parse_stream

    try:
        text = _dotenv_text(path.read_bytes())
    except OSError as exc:
        if not quiet:
            reason = exc.strerror or type(exc).__name__
            _said_once(path, f"{_named(path)} could not be read ({reason}): no key is read from it")
        return {}
    except UnicodeDecodeError as exc:
        if not quiet:
            kind = "UTF-16" if exc.encoding.startswith("utf-16") else "UTF-8"
            _said_once(
                path,
                f"{_named(path)} is not {kind} text (byte {exc.start + 1} is not): no key is "
                "read from it; save it as UTF-8",
            )
        return {}
    muted = logging.getLogger("dotenv.main")
    was_disabled, muted.disabled = muted.disabled, True
    try:
        values = dotenv_values(stream=io.StringIO(text), interpolate=False)
    finally:
        muted.disabled = was_disabled
    bad = [str(b.original.line) for b in parse_stream(io.StringIO(text)) if b.error]
    if bad and not quiet:
        lines = f"line {bad[0]} is" if len(bad) == 1 else f"lines {', '.join(bad)} are"
        _said_once(
            path,
            f"{_named(path)}: {lines} not NAME=VALUE and skipped "
            "(the keys of its other lines are read)",
        )
    return {name: value for name, value in values.items() if value is not None}


def _dotenv_text(data: bytes) -> str:
    """A ``.env`` file's text: UTF-8, its byte order mark left out (a Windows editor writes
    one, which would make the first line's name another), or UTF-16 with its mark (another
    editor's "Unicode"). UnicodeDecodeError for any other bytes."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16")
    return data.decode("utf-8-sig")


def _named(path: Path) -> str:
    return dotenv_name(DotEnv({}, path))


def _said_once(path: Path, message: str) -> None:
    """A warning about a ``.env`` file, said once per file and process."""
    if path.absolute() in _WARNED:
        return
    _WARNED.add(path.absolute())
    say("warning", message)


def resolve_key(
    provider: str, env: Mapping[str, str], dotenv: Mapping[str, str]
) -> tuple[str | None, list[str]]:
    """(the key or None, the variables looked at, in order)."""
    names = key_variables(provider)
    for source, where in ((env, "in the environment"), (dotenv, f"in {dotenv_name(dotenv)}")):
        for name in names:
            value = source.get(name)
            if value:
                register_secret(value)
                if any(ch.isspace() or not ch.isprintable() for ch in value):
                    # Sent as it is, it fails every call as a "network error" (an illegal
                    # header) or a refused key, after the run has started.
                    raise ConfigError(
                        f"{name} ({where}): the key has whitespace or control characters in "
                        "it (a line break or a space at its end?); remove them"
                    )
                return value, names
    return None, names


PUBLIC_PREFIXES = ("sk-",)
"""How every key of Anthropic and of OpenAI begins: shown in a message about a key, as it tells
nothing of the key."""


def key_source(provider: str, env: Mapping[str, str], dotenv: Mapping[str, str]) -> str:
    """Where ``provider``'s key was found, for a message about it: the variable, where it is
    and the value masked (the public prefix its maker gives every key, if it has one, and its
    length): ``ANTHROPIC_API_KEY (in ./.env: sk-…, 48 characters)``; never the key, nor any
    character of a key without such a prefix (a gateway's own key, say): the message may be
    kept in a trial's record."""
    for source, where in ((env, "in the environment"), (dotenv, f"in {dotenv_name(dotenv)}")):
        for name in key_variables(provider):
            value = source.get(name)
            if value:
                prefix = next((p for p in PUBLIC_PREFIXES if value.startswith(p)), None)
                shown = f"{prefix}…, " if prefix and len(value) >= 16 else ""
                return f"{name} ({where}: {shown}{len(value)} characters)"
    return " or ".join(key_variables(provider))


class DotEnv(dict[str, str]):
    """The variables of a ``.env`` file, and the file (named in messages about its keys)."""

    def __init__(self, values: Mapping[str, str], path: Path) -> None:
        super().__init__(values)
        self.path = path


def dotenv_name(dotenv: Mapping[str, str]) -> str:
    """How a message names the ``.env`` file the keys came from: ``./.env`` when it is the
    current folder's, else its path (a resume reads the one where its run was started)."""
    path = getattr(dotenv, "path", None)
    if not isinstance(path, Path):
        return "./.env"
    try:
        here = path.parent.resolve() == Path.cwd().resolve()
    except OSError:  # (the current folder is gone)
        here = False
    return "./.env" if here else str(path)


def load_dotenv(cwd: Path | None = None, *, quiet: bool = False) -> DotEnv:
    """The ``.env`` of ``cwd`` (None: of the current folder; none, empty, when that folder
    is gone)."""
    folder = cwd if cwd is not None else current_folder()
    if folder is None:
        return DotEnv({}, Path(".env"))
    path = folder / ".env"
    return DotEnv(read_dotenv(path, quiet=quiet), path)


def environment() -> dict[str, str]:
    return dict(os.environ)
