"""Secrets held in memory and masked in everything proctor writes.

Provider keys and forwarded credentials are registered once; :func:`mask` replaces each with
``***`` in a text, :mod:`proctor.util.terminal_masking` in a terminal's bytes (a key split
with escapes too), :func:`scrub_tree` in the files of a folder, and
:class:`MaskingFilter` in log records. Nothing here reads a key: :mod:`proctor.llm.secrets`
finds them.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import re
import shutil
import stat
from pathlib import Path
from typing import Any

from proctor.util.encoded import (
    ROW_MARK,
    base64_forms,
    stream_forms,
    wrapped_masked,
    wrapped_masked_bytes,
)

MASK = "***"
MIN_SECRET_CHARS = 6
"""Shorter values are not secrets worth masking (and masking them would garble ordinary text)."""
MIN_NAMED_CHARS = 4
"""The fewest characters of a value the user named a secret that is masked."""
_SECRETS: set[str] = set()


def register_secret(value: str, *, named: bool = False) -> None:
    """Remember ``value`` as a secret of this process (its forked workers inherit it).

    A value of lowercase letters only is a placeholder, never a key (a local server's
    ``OPENAI_API_KEY=ollama``): masked, it would turn an ordinary word into ``***`` in every
    record, page and link. Every provider's key holds digits, capitals or punctuation. A value
    the user ``named`` a secret (``--env NAME``) is one whatever its letters, from
    :data:`MIN_NAMED_CHARS` characters (a shorter one would hide figures and words)."""
    if named:
        if len(value) >= MIN_NAMED_CHARS:
            _SECRETS.add(value)
            _add_encoded(value)
    elif len(value) >= MIN_SECRET_CHARS and not (value.isalpha() and value.islower()):
        _SECRETS.add(value)
        _add_encoded(value)


_ENCODED: set[str] = set()
"""The base64 forms registered: masked wherever they are, however short (a piece of one)."""
_STREAMS: set[str] = set()
"""The whole base64 forms registered (see :func:`~proctor.util.encoded.stream_forms`): masked
also where line breaks split them (``base64`` wraps at 76 columns wherever a secret begins)."""


def _add_encoded(value: str) -> None:
    forms = base64_forms(value) - _SECRETS
    _SECRETS.update(forms)
    _ENCODED.update(forms)
    _STREAMS.update(stream_forms(value) & forms)


def longest_secret() -> int:
    """The length of the longest registered secret (0 with none)."""
    return max((len(s) for s in _SECRETS), default=0)


def mask(text: str) -> str:
    """``text`` with every registered secret replaced by ``***``, the longest first (a secret
    that is part of another, such as the tail of a key Claude Code approves by, never leaves
    the rest of the longer one in the clear). A secret's base64 is masked also where line
    breaks split it, and a secret (or its base64) where the end of a screen row a transcript
    keeps as JSON splits it (see :func:`~proctor.util.encoded.wrapped_masked`)."""
    secrets = _by_length()
    for secret in secrets:
        if secret in text:
            text = (
                bounded(secret).sub(MASK, text)
                if stands_alone(secret)
                else text.replace(secret, MASK)
            )
    if ROW_MARK in text or (_STREAMS and ("\n" in text or "\\n" in text)):
        streams = [s for s in secrets if s in _STREAMS]
        text = wrapped_masked(text, streams, MASK, _whole(secrets) if ROW_MARK in text else ())
    return text


def mask_bytes(data: bytes, secrets: list[str] | None = None) -> bytes:
    """:func:`mask` of a file's bytes (``secrets``: :func:`registered_secrets`, when known)."""
    secrets = _by_length() if secrets is None else secrets
    for secret in secrets:
        needle = secret.encode()
        if needle in data:
            if stands_alone(secret):
                data = _bounded_bytes(needle).sub(MASK.encode(), data)
            else:
                data = data.replace(needle, MASK.encode())
    rows = ROW_MARK.encode() in data
    if rows or (_STREAMS and (b"\n" in data or b"\\n" in data)):
        streams = [s for s in secrets if s in _STREAMS]
        data = wrapped_masked_bytes(data, streams, MASK.encode(), _whole(secrets) if rows else ())
    return data


def _whole(secrets: list[str]) -> list[str]:
    """The secrets as they were registered (no base64 form), bar those masked only where they
    stand alone: those a screen row's end splits are masked too (see
    :func:`~proctor.util.encoded.wrapped_masked`)."""
    return [s for s in secrets if s not in _ENCODED and not stands_alone(s)]


ALONE_UNDER = 8
"""A secret of letters and digits shorter than this is masked only where it stands alone."""
_WORD_CHARS = "A-Za-z0-9"


def stands_alone(secret: str) -> bool:
    """Whether ``secret`` is masked only where no letter or digit touches it: one of digits
    alone (``MAX_TOKEN=100000`` set under a credential's name would take the digits of every
    larger figure, ``2100000`` becoming ``2***``), or of letters and digits under
    :data:`ALONE_UNDER` characters (a short value named a secret, inside longer words)."""
    if not (secret.isascii() and secret.isalnum()):
        return False
    return secret.isdigit() or (len(secret) < ALONE_UNDER and secret not in _ENCODED)


def alone(pattern: str) -> str:
    """``pattern`` (a secret's, as a regular expression) where no letter or digit touches it."""
    return f"(?<![{_WORD_CHARS}])(?:{pattern})(?![{_WORD_CHARS}])"


@functools.lru_cache(maxsize=256)
def bounded(secret: str) -> re.Pattern[str]:
    """The pattern of ``secret`` where it stands alone (see :func:`stands_alone`)."""
    return re.compile(alone(re.escape(secret)))


@functools.lru_cache(maxsize=256)
def _bounded_bytes(secret: bytes) -> re.Pattern[bytes]:
    return re.compile(alone(re.escape(secret.decode())).encode())


def _by_length() -> list[str]:
    return sorted(_SECRETS, key=len, reverse=True)


def registered_secrets() -> list[str]:
    """The registered secrets, the longest first: for a reader that must not cut one in two
    before masking, or that masks one split over lines (the viewer)."""
    return _by_length()


_PARTS = r"(?:[A-Za-z0-9]+[-_.])*"  # each part without the separators: one way to split a name
_CREDENTIAL_NAMES = (
    r"api[-_]?key|access[-_]?key|secret[-_]?key|private[-_]?key|token|secret|password"
    r"|passwd|pwd|pass|passphrase|auth"
)
_SECRET_WORD = rf"{_PARTS}(?:{_CREDENTIAL_NAMES})"
"""A name whose last part says it holds a credential (``api-key``, ``GITHUB_TOKEN``,
``client_secret``, ``--auth``, ``--passphrase``; not ``keyboard``, ``tokens``, ``author``,
``oauth``, ``auth-file``, ``key-file`` or a bare ``--key``, which is as often a file)."""
_TRAILING = r"[);,]*"
"""What may close a value in a command line or code (``f(--token abc);``): kept in the clear."""


def _value(ends: str) -> str:
    """A value up to one of ``ends`` (a class's characters) with what closes it
    (:data:`_TRAILING`) left out: all of it to its last other character (read once, greedily,
    where taking it a character at a time would read the closing run again after each), or
    its first character when it is all closing ones."""
    return rf"(?:[^{ends}]*[^{ends});,]|[);,])(?={_TRAILING}(?![^{ends}]))"


_NAME_START = r"(?<![A-Za-z0-9])(?<![A-Za-z0-9][-_.])"
"""Where a name of parts begins: not inside a part, nor after a part and its separator (a
name found from there is found from its first part). A long word of many parts is then read
once, not again from each of its parts."""
_OPTION_VALUE = _value(r"\s'\"")
_CREDENTIALS = (
    # A URL's password: https://user:***@host. The scheme is looked for once in each run of
    # the letters a scheme holds (from a letter that begins a word, or one after a `+`, `.`
    # or `-` in it), never again from each of its letters: a long run is read in linear time.
    (
        re.compile(
            r"((?<![a-z0-9+.-])(?=[a-z0-9+.-]*://)(?>(?:\b[a-z]|[a-z0-9+.-]*?[+.-][a-z])"
            r"[a-z0-9+.-]*://)[^/\s:@]*:)[^@\s/]+@",
            re.IGNORECASE,
        ),
        r"\1***@",
    ),
    # A webhook URL, whose path is its credential: Slack's (every part after services/,
    # workflows/ or triggers/) and Discord's (the token after the webhook's id)
    (
        re.compile(
            r"(\bhttps?://hooks\.slack(?:-gov)?\.com/(?:services|workflows|triggers)/)"
            r"[A-Za-z0-9/_-]+",
            re.IGNORECASE,
        ),
        r"\1***",
    ),
    (
        re.compile(
            r"(\bhttps?://(?:[a-z]+\.)?discord(?:app)?\.com/api/(?:v\d+/)?webhooks/\d+/)"
            r"[A-Za-z0-9_-]+",
            re.IGNORECASE,
        ),
        r"\1***",
    ),
    # A query parameter named like a secret: ?api_key=***, and a bare ?key=*** (Google's
    # APIs take their key so; an option --key is as often a file, and stays)
    (
        re.compile(
            rf"([?&]{_PARTS}(?:{_CREDENTIAL_NAMES}|key|sig|signature)=)" + _value(r"&\s#'\""),
            re.IGNORECASE,
        ),
        r"\1***",
    ),
    # An option named like one with its value, the whole argument quoted (as shlex.join
    # quotes one with a blank or a shell character in it): '--token=***'
    (
        re.compile(rf"((?<!\S)(['\"])--?{_SECRET_WORD}=)[^'\"]+(?=\2)", re.IGNORECASE),
        r"\1***",
    ),
    # An option named like one, and its value: --token ***, --api-key=***, --auth '***' (a
    # scheme before a quoted value kept: --auth 'Bearer ***')
    (
        re.compile(
            rf"((?<![^\s'\"])--?{_SECRET_WORD}(?:=|\s+))"
            rf"(?:(['\"])((?:bearer|basic|token|bot)\s+)?[^'\"]+\2"
            rf"|(?!-){_OPTION_VALUE})",
            re.IGNORECASE,
        ),
        lambda m: f"{m[1]}{m[2] or ''}{m[3] or ''}{MASK}{m[2] or ''}",
    ),
    # A variable named like one: GITHUB_TOKEN=***
    (
        re.compile(rf"({_NAME_START}{_SECRET_WORD}=)" + _value(r"\s'\"&"), re.IGNORECASE),
        r"\1***",
    ),
)


_SECRET_FLAG = re.compile(rf"--?{_SECRET_WORD}", re.IGNORECASE)

_USER_TOOL = re.compile(r"(?<![^\s'\"/\\(`])(?i:curl|curlie|wget2?)(?i:\.exe)?(?![^\s'\"`)])")
"""A command that takes a login as ``user:password`` after ``-u``/``--user`` (curl's,
``-U``/``--proxy-user`` a proxy's): not docker's, podman's or sudo's ``-u``, a user or a
``uid:gid``."""
_REST_OF_COMMAND = re.compile(r"""(?:[^;&|\n'"]+|'[^']*'|"[^"]*"|['"])*""")
"""A command's words up to the next one of a shell line (``;``, ``&&``, ``|``, a line break;
one inside quotes is part of a word)."""
_USER_OPTION = r"(?:-[0-46aBfGgIijJkLlMNnOpqRSsvZ#]*[uU]|--(?:proxy-)?user)"
"""``-u``, ``-U``, ``--user``, ``--proxy-user`` and ``-u`` last of a group of curl's options
that take no value (``-sSLu``)."""
_USER_PASSWORD = re.compile(
    r"(?<![^\s'\"])(?:"
    # the option and the login quoted as one argument: '-uuser:p w'
    rf"(?P<whole>['\"])(?P<a1>{_USER_OPTION}=?[^\s'\":]*:)(?P<p1>[^'\"]+)(?=(?P=whole))"
    # the login quoted: -u 'user:p w'
    rf"|(?P<a2>{_USER_OPTION}\s+(?P<quote>['\"])[^'\":]*:)(?P<p2>[^'\"]+)(?=(?P=quote))"
    # -u user:pw, -uuser:pw, --user=user:pw
    rf"|(?P<a3>{_USER_OPTION}(?:\s+|=)?[^\s'\":]*:)(?P<p3>{_OPTION_VALUE})"
    r")"
)


def _logins_masked(text: str) -> str:
    """``text`` with the password of a login curl or wget is given (``-u user:***``,
    ``--user user:***``, ``-uuser:***``, ``--proxy-user``) masked: only in the words after
    such a command, up to the end of its command in a shell line."""
    if "-" not in text:
        return text
    parts: list[str] = []
    done = 0
    for tool in _USER_TOOL.finditer(text):
        if tool.start() < done:
            continue  # in the command of one before
        end = _REST_OF_COMMAND.match(text, tool.end()).end()  # type: ignore[union-attr]
        parts.append(text[done : tool.end()])
        parts.append(_USER_PASSWORD.sub(_login_masked, text[tool.end() : end]))
        done = end
    return "".join(parts) + text[done:] if parts else text


def _login_masked(found: re.Match[str]) -> str:
    return (found["whole"] or "") + (found["a1"] or found["a2"] or found["a3"]) + MASK


def _password_masked(login: str) -> str:
    """``user:password`` as ``user:***``; a value with no password as it is."""
    user, colon, password = login.partition(":")
    return f"{user}:{MASK}" if colon and password else login


def arguments_masked(args: list[Any], command: Any = None) -> list[Any]:
    """A command's arguments with what looks like a credential masked (see
    :func:`credentials_masked`), the value after an option named like one (``--token``,
    ``--api-key``) too, and the password of a login given to curl or wget (``-u user:***``),
    when ``command`` or an argument before is one."""
    out: list[Any] = []
    after_flag = after_user = False
    user_tool = isinstance(command, str) and _is_user_tool(command)
    for arg in args:
        if not isinstance(arg, str):
            out.append(arg)
        elif after_flag and not arg.startswith("-"):
            out.append(MASK)
        elif after_user:
            out.append(_password_masked(credentials_masked(arg)))
        elif user_tool and (attached := re.fullmatch(rf"({_USER_OPTION}=?)(.+)", arg, re.S)):
            out.append(attached[1] + _password_masked(credentials_masked(attached[2])))
        else:
            out.append(credentials_masked(arg))
        after_flag = isinstance(arg, str) and bool(_SECRET_FLAG.fullmatch(arg))
        after_user = user_tool and isinstance(arg, str) and bool(re.fullmatch(_USER_OPTION, arg))
        user_tool = user_tool or (isinstance(arg, str) and _is_user_tool(arg))
    return out


def _is_user_tool(word: str) -> bool:
    return _USER_TOOL.fullmatch(re.split(r"[/\\]", word)[-1]) is not None


def credentials_masked(text: str) -> str:
    """``text`` (a command line, a URL) with what looks like a credential in it masked: a
    URL's password, a query parameter, an option or a variable whose name ends in an API key,
    a token, a secret or a password, the password of a login given to curl or wget
    (``curl -u user:***``); and every registered secret (see :func:`mask`). For what
    proctor shows and records of a user's configuration, whose secrets it was never told."""
    for pattern, replacement in _CREDENTIALS:
        text = pattern.sub(replacement, text)
    return mask(_logins_masked(text))


class MaskingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = mask(str(record.getMessage()))
        record.args = ()
        return True


def install_log_masking() -> None:
    logger = logging.getLogger("proctor")
    if not any(isinstance(f, MaskingFilter) for f in logger.filters):
        logger.addFilter(MaskingFilter())


def scrub_tree(root: Path) -> list[str]:
    """Replace every registered secret in the files under ``root`` (relative paths returned).

    Byte-for-byte copies (a raw transcript, the terminal stream) lose their exactness only when
    they held a secret: keys never stay on disk. Folders are opened one name at a time (see
    :class:`_Folders`), never by a whole path, so a tree nested past the system's path limit
    (which an agent can make in its workspace) is read like any other; symlinks are never
    followed. A file whose secret could be neither masked nor removed is logged, not listed.
    """
    if not _SECRETS or not root.is_dir():
        return []
    secrets = _by_length()
    touched: list[str] = []
    pending: list[tuple[str, ...]] = [()]
    with _Folders(root) as folders:
        while pending:  # depth first, iterative: no nesting is too deep for it
            parts = pending.pop()
            try:
                fd = folders.open(parts)
                with os.scandir(fd) as listing:
                    entries = [
                        (e.name, e.is_dir(follow_symlinks=False), e.is_symlink()) for e in listing
                    ]
            except OSError:
                continue  # gone, or not a folder any more
            for found, is_dir, is_link in sorted(entries, reverse=True):
                name = _masked_name(fd, found)
                if name != found:
                    touched.append("/".join((*parts, name)))
                if is_dir:
                    pending.append((*parts, name))
                elif _masked_link(fd, name) if is_link else _scrub_file(fd, name, secrets):
                    touched.append("/".join((*parts, name)))
    return sorted(set(touched))


def _masked_name(folder: int, name: str) -> str:
    """``name`` in the open folder renamed with every registered secret masked (a file the
    agent named after a key); the name it has now. One whose masked name is taken gets a
    number; one that cannot be renamed is removed (the key must not stay on disk)."""
    masked = mask(name)
    if masked == name:
        return name
    candidate, number = masked, 1
    while _exists(folder, candidate):
        number += 1
        candidate = f"{masked}.{number}"
    try:
        os.rename(name, candidate, src_dir_fd=folder, dst_dir_fd=folder)
    except OSError:
        _remove(folder, name)
        logging.getLogger("proctor").warning("a name holding a secret was removed: %s", masked)
        return candidate
    return candidate


def _exists(folder: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=folder, follow_symlinks=False)
    except OSError:
        return False
    return True


def _remove(folder: int, name: str) -> None:
    with contextlib.suppress(OSError):
        if stat.S_ISDIR(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode):
            shutil.rmtree(name, dir_fd=folder)
        else:
            os.unlink(name, dir_fd=folder)


def _masked_link(folder: int, name: str) -> bool:
    """Whether ``name`` is a symlink whose target held a secret, now pointing at the target
    masked (it is never followed)."""
    try:
        target = os.readlink(name, dir_fd=folder)
    except OSError:
        return False  # no link
    masked = mask(target)
    if masked == target:
        return False
    with contextlib.suppress(OSError):
        os.unlink(name, dir_fd=folder)
        os.symlink(masked, name, dir_fd=folder)
    return True


class _Folders:
    """Open folders of a tree by their names below its root. The folders on the path to the one
    last opened stay open (the first :attr:`STRIDE` levels, then every STRIDE-th), so a walk in
    depth-first order opens each folder from its parent, or from a near ancestor, whatever the
    depth, with at most STRIDE + depth / STRIDE descriptors open."""

    STRIDE = 64

    def __init__(self, root: Path) -> None:
        self.root = root
        self.kept: dict[tuple[str, ...], int] = {}

    def __enter__(self) -> _Folders:
        self.kept[()] = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        return self

    def __exit__(self, *exc: object) -> None:
        for fd in self.kept.values():
            os.close(fd)
        self.kept.clear()

    def _keeps(self, depth: int) -> bool:
        return depth <= self.STRIDE or depth % self.STRIDE == 0

    def open(self, parts: tuple[str, ...]) -> int:
        """The folder ``parts``, open until the next call (not the caller's to close)."""
        for other in [k for k in self.kept if k != parts[: len(k)]]:
            os.close(self.kept.pop(other))  # off the path to this folder
        # Past the first levels, of the ancestors kept only the strides and the deepest stay
        # (the folder last opened: this one's parent, when the walk goes down).
        deep = sorted((k for k in self.kept if not self._keeps(len(k))), key=len)
        for shallower in deep[:-1]:
            os.close(self.kept.pop(shallower))
        base = len(parts)
        while parts[:base] not in self.kept:
            base -= 1
        fd = self.kept[parts[:base]]
        for depth in range(base + 1, len(parts) + 1):
            flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
            try:
                inner = os.open(parts[depth - 1], flags, dir_fd=fd)
            finally:
                if parts[: depth - 1] not in self.kept:
                    os.close(fd)
            fd = inner
            if self._keeps(depth) or depth == len(parts):
                self.kept[parts[:depth]] = fd
        return fd


def _scrub_file(folder: int, name: str, secrets: list[str]) -> bool:
    """Mask the secrets in the regular file ``name`` of the open folder; whether it held one
    and no longer does."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
    except OSError:
        return False
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return False
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = fh.read()
    except OSError:
        return False
    finally:
        os.close(fd)
    masked = mask_bytes(data, secrets)
    if masked == data:
        return False
    if _replace(folder, name, masked, stat.S_IMODE(info.st_mode)):
        return True
    logging.getLogger("proctor").warning("a secret could not be masked or removed in %s", name)
    return False


def _replace(folder: int, name: str, data: bytes, mode: int) -> bool:
    """Put ``data`` in a new file that takes ``name``'s place: a file the agent hard-linked to
    one outside its workspace keeps that one untouched (writing in place would mask the
    user's own file through the link). A folder the agent made read-only is made writable for
    the moment. A file that cannot be replaced is removed: the secret it holds must not stay.
    Whether the secret is gone."""
    temp = f".proctor-mask.{os.getpid()}"  # short: a long name near the limit still fits
    try:
        folder_mode = stat.S_IMODE(os.fstat(folder).st_mode)
    except OSError:
        folder_mode = None
    opened_up = False
    try:
        for attempt in range(2):
            try:
                fd = os.open(temp, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, mode, dir_fd=folder)
                break
            except PermissionError:
                if attempt or folder_mode is None:
                    raise
                os.fchmod(folder, folder_mode | stat.S_IRWXU)
                opened_up = True
        try:
            with os.fdopen(os.dup(fd), "wb") as out:
                out.write(data)
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
        os.rename(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
        return True
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=folder)
        try:
            os.unlink(name, dir_fd=folder)
            return True
        except OSError:
            return False
    finally:
        if opened_up and folder_mode is not None:
            with contextlib.suppress(OSError):
                os.fchmod(folder, folder_mode)
