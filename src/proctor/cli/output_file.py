"""An ``--output FILE`` option's file, as a shell's ``> FILE`` takes it.

``proctor report --output`` and ``proctor plan-repeats --output`` write one file each: a path
that names a folder is refused, a link is written through (the file it links to, the link
kept), and a descriptor (``/dev/stdout``, ``/dev/fd/63``), a named pipe or a character device
(a terminal, ``/dev/null``) is written to as it is, never read, emptied nor replaced by a file.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
from pathlib import Path


def check_file_path(output: str, what: str) -> None:
    """A ConfigError (exit 2) for an ``--output`` that names no file: blank, ``.`` or ``..``, or
    a path ending in ``/`` or ``/.`` (``Path("newdir/")`` is ``newdir``, and a file of that
    name would be written). ``what``: what the file holds, as a sentence names it ("the
    report")."""
    from proctor.errors import ConfigError
    from proctor.util.json_shown import WHOLE, json_text

    if not output.strip() or Path(output).name in ("", ".", ".."):
        raise ConfigError(f"--output {json_text(output, WHOLE)}: give the path of a file to write")
    if output.endswith(("/", "/.")):
        raise ConfigError(
            f"--output {output}: a path ending in {output[output.rindex('/') :]} names a folder, "
            f"not a file: give the name of the file to write {what} to"
        )


def followed(output: str) -> Path:
    """The file ``--output`` names: a link followed to the file it links to (even one not there
    yet), as ``> FILE`` writes through it; a ConfigError (exit 2) for a link in a loop or to a
    folder that does not exist. Not for a stream (:func:`is_stream`): ``/dev/stdout`` is a link
    that is written to where it stands."""
    from proctor.errors import ConfigError

    path = Path(output)
    if not path.is_symlink():
        return path
    try:
        path = Path(os.path.realpath(path, strict=True))
    except FileNotFoundError:
        path = Path(os.path.realpath(path))
    except OSError as exc:  # a link in a loop
        raise ConfigError(
            f"--output {output}: a link that cannot be followed ({exc.strerror or exc})"
        ) from exc
    if not path.parent.is_dir():
        raise ConfigError(
            f"--output {output}: a link to {path}, whose folder {path.parent} does not exist"
        )
    return path


_DESCRIPTOR = re.compile(r"/dev/(?:std(out)|std(err)|fd/(\d+))|/proc/self/fd/(\d+)")
"""The paths that name a descriptor of proctor's own, as bash's redirections take them."""

READER_WAIT = 5.0
"""How long a writer waits for a reader of the named pipe it is to write to."""


def descriptor(output: str) -> int | None:
    """The descriptor ``--output`` names (``-`` and ``/dev/stdout`` are 1, ``/dev/fd/63``
    63), or None. It is written to itself, where it stands, as bash writes ``> /dev/stdout``:
    stdout sent to a file, a socket or a pipe is written to, not opened again from its start
    (or not at all)."""
    if output == "-":  # as `--manifest -` reads standard input, `--output -` writes stdout
        return 1
    match = _DESCRIPTOR.fullmatch(output)
    if match is None:
        return None
    out, err, fd, proc = match.groups()
    return 1 if out else 2 if err else int(fd or proc)


def is_stream(output: str, what: str) -> bool:
    """Whether ``--output`` is written to as it is, never replaced: a descriptor that is open, a
    named pipe (a process substitution's too), a character device (a terminal, ``/dev/null``).
    A ConfigError (exit 2) for a descriptor not open, and for what is none of these nor a file
    or a folder (a socket, a disk). ``what``: what is written, as a sentence names it ("a
    report")."""
    from proctor.errors import ConfigError

    number = descriptor(output)
    if number is not None:
        try:
            os.fstat(number)
        except OSError as exc:
            raise ConfigError(f"--output {output}: descriptor {number} is not open") from exc
        return True
    try:  # a link followed by the system (/dev/stdout's /proc/self/fd/1 to a pipe too)
        mode = os.stat(output).st_mode
    except OSError:
        return False  # nothing there yet (or a link that cannot be followed): a file
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        return True
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return False
    kind = "a socket" if stat.S_ISSOCK(mode) else "a block device" if stat.S_ISBLK(mode) else ""
    raise ConfigError(
        f"--output {output}: {kind or 'not a regular file'}, not a file, a pipe or a terminal "
        f"to write {what} to"
    )


def write_output_file(output: Path, text: str, what: str) -> bool:
    """``text`` written to ``--output`` ``output``: a file atomically (a reader never sees half
    of it), a descriptor, pipe or device as it is (see :func:`is_stream`; a pipe no process
    reads is waited for :data:`READER_WAIT` seconds). False when the reader of a pipe or
    descriptor went away (stopped, quietly, as printing to it would be); a ConfigError (exit 2)
    when it cannot be written."""
    from proctor.cli.signals import drop_output
    from proctor.errors import ConfigError
    from proctor.models.io import escape_surrogates, masked_text, write_text_atomic
    from proctor.util.files import open_stream, write_all

    fd = None
    number = None
    try:
        number = descriptor(str(output))
        if number is not None:
            sys.stdout.flush()  # what was printed before comes before
            sys.stderr.flush()
            fd = os.dup(number)
        elif is_stream(str(output), what):
            fd = open_stream(output, wait=READER_WAIT)
        if fd is None:
            write_text_atomic(output, text)
        else:
            write_all(fd, escape_surrogates(masked_text(text, output.suffix)).encode("utf-8"))
    except OSError as exc:
        if fd is not None and exc.errno in (errno.EPIPE, errno.EIO):  # its reader went away
            if number in (1, 2):
                drop_output(sys.stdout if number == 1 else sys.stderr)
            return False
        if exc.errno == errno.ENXIO and stat.S_ISCHR(_mode(output)):
            raise ConfigError(
                f"--output {output}: a terminal that is not there (proctor runs with no "
                "controlling terminal, as under CI or setsid): give a file"
            ) from exc
        if exc.errno == errno.ENXIO:
            raise ConfigError(
                f"--output {output}: a named pipe that no process reads from (proctor waited "
                f"{READER_WAIT:g} seconds for one): start its reader first"
            ) from exc
        raise ConfigError(f"--output {output}: cannot be written ({exc.strerror or exc})") from exc
    finally:
        if fd is not None:
            os.close(fd)
    return True


def written_where(output: Path, given: str | None) -> str:
    """``--output`` as a line on stderr names it: as given, and of a link the file it links
    to."""
    if given == "-":
        return "- (standard output)"
    linked = given not in (None, str(output)) and Path(str(given)).is_symlink()
    return f"{given} (the file it links to, {output})" if linked else given or str(output)


def _mode(path: Path) -> int:
    """The mode of what ``path`` names, links followed; 0 when it cannot be told."""
    try:
        return os.stat(path).st_mode
    except OSError:
        return 0
