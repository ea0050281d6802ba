"""Running the viewer: which folder to index, a listening socket, uvicorn."""

from __future__ import annotations

import errno
import ipaddress
import signal
import socket
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from proctor.errors import ConfigError
from proctor.paths import RUN_NAME, no_run_in, proctor_run_folder


def open_results(path: Path) -> tuple[Path, str | None]:
    """(results directory, single run folder or None) for ``proctor view PATH``."""
    if not path.exists():
        raise ConfigError(
            f"{path}: no such results directory (give a results directory or a run folder)"
        )
    if not path.is_dir():
        raise ConfigError(f"{path}: expected a results directory or a run folder, not a file")
    path = path.resolve()
    if _is_run(path):
        return path.parent, path.name
    # A folder inside a run (its trials/, a trial's) is no results directory: viewing it
    # would list no run and write the viewer's index into the run.
    run = next((parent for parent in path.parents if proctor_run_folder(parent)), None)
    if run is not None:
        raise ConfigError(
            f"{path}: a folder inside the run folder {run}, not a results directory; give "
            f"that run folder (proctor view {run}) or its results directory"
        )
    # A run folder of a run stopped before any trial: viewed as a results directory, it would
    # list no run, and the viewer's index would be written into it.
    if RUN_NAME.fullmatch(path.name) and (said := no_run_in(path)) is not None:
        raise ConfigError(f"{path}: {said}")
    return path, None


def _is_run(path: Path) -> bool:
    return proctor_run_folder(path) or (path / "trials").is_dir()


def listen(host: str, port: int, fallback: bool) -> socket.socket:
    """A bound, listening socket; an address this machine does not have is a ConfigError
    naming ``--host``, a busy ``port`` one naming ``--port`` (unless ``fallback``)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        sock = socket.socket(family, socket.SOCK_STREAM)
    except OSError as exc:  # IPv6 turned off on this machine
        raise _bad_host(host, exc) from exc
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        _bind(sock, host, port, fallback)
    except BaseException:
        sock.close()
        raise
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def _bind(sock: socket.socket, host: str, port: int, fallback: bool) -> None:
    try:
        sock.bind((host, port))
        return
    except OSError as exc:
        if not _port_problem(exc):
            raise _bad_host(host, exc) from exc
        if not fallback:
            raise ConfigError(
                f"--port {port}: cannot listen on {host}:{port} ({exc.strerror or exc})"
            ) from exc
    except (UnicodeError, ValueError) as exc:  # a name no resolver takes (too long a label)
        raise _bad_host(host, exc) from exc
    try:
        sock.bind((host, 0))
    except OSError as exc:
        raise _bad_host(host, exc) from exc


def _port_problem(exc: OSError) -> bool:
    """Whether binding failed because of the port (taken, or reserved), not the address."""
    return not isinstance(exc, socket.gaierror) and exc.errno in (errno.EADDRINUSE, errno.EACCES)


def _bad_host(host: str, exc: Exception) -> ConfigError:
    why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return ConfigError(
        f"--host {host}: cannot listen on that address ({why}); give an address of this "
        "machine, such as 127.0.0.1 (the default)"
    )


@dataclass(frozen=True)
class Bound:
    """What the address a socket is bound to means for who may use the viewer."""

    loopback: bool
    """Bound to 127.0.0.1 or ::1: reachable from this machine only."""
    wildcard: bool
    """Bound to every address (0.0.0.0, ::, or a name for them such as 0 or ::0)."""


def bound_address(sock: socket.socket) -> Bound:
    """Decided from the address the socket is bound to, never from what ``--host`` said
    (``0``, ``::0`` and ``0x0`` all bind every address)."""
    address = str(sock.getsockname()[0]).split("%", 1)[0]
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:  # not an IP address: assume the widest, which changes nothing
        return Bound(loopback=False, wildcard=True)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return Bound(loopback=ip in _LOOPBACK, wildcard=ip.is_unspecified)


def _loopback_of(sock: socket.socket) -> str:
    """The address of this machine that reaches a socket bound to every address, as a URL
    writes it: a wildcard (``0``, ``0.0.0.0``, ``::``) is no address a browser can open."""
    if sock.family != socket.AF_INET6:
        return "127.0.0.1"
    address = str(sock.getsockname()[0]).split("%", 1)[0]
    if ipaddress.IPv6Address(address).ipv4_mapped is not None:  # ``::ffff:0.0.0.0``: IPv4 only
        return "127.0.0.1"
    return "[::1]"


_LOOPBACK = (ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1"))
"""The addresses ``localhost`` names; other loopback addresses (127.0.0.2) are served under
their own address only."""


class _Stopped(Exception):
    """SIGTERM reached the viewer."""


def _stop(signum: int, frame: FrameType | None) -> None:
    raise _Stopped()


def serve(
    root: Path,
    *,
    only: str | None,
    host: str,
    port: int,
    fallback: bool,
    open_browser: bool,
    source: Path | None,
    max_batches: int,
    say: Callable[[str], None],
    warn: Callable[[str], None],
) -> int:
    import uvicorn

    from proctor.view.app import build_app
    from proctor.view.index import ResultsIndex
    from proctor.view.settings import ViewSettings

    sock = listen(host, port, fallback)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    base = f"http://{shown}:{bound}"
    where = bound_address(sock)
    listening = ""
    if where.wildcard:
        base = f"http://{_loopback_of(sock)}:{bound}"
        listening = "listening on every interface; "
    if not where.loopback:
        warn(
            f"proctor: warning: serving on {host}: anyone who can reach this address can read "
            "these results; the playground only runs batches for pages served under that exact "
            "address (never on a wildcard address such as 0.0.0.0)"
        )
    # Bound to one address, only that address is served and may change state; bound to every
    # address, the names people use are unknown, so pages are served to any Host but the
    # playground runs nothing (a page from any origin could otherwise read the token).
    if where.wildcard:
        origins: tuple[str, ...] = ()
    elif where.loopback:
        origins = (base, f"http://localhost:{bound}", f"http://127.0.0.1:{bound}")
    else:
        origins = (base,)
    settings = ViewSettings(
        results=root,
        only=only,
        source=source,
        max_batches=max_batches,
        origins=origins,
        allow_changes=not where.wildcard,
    )
    try:
        index = ResultsIndex(root, only=only)
    except (sqlite3.Error, OSError) as exc:  # OSError: a folder where the index goes
        raise ConfigError(f"{root}: cannot keep the viewer's index there ({exc})") from exc
    app = build_app(settings, index)
    url = f"{base}/runs/{only}" if only else f"{base}/"
    # A run folder given is named as given, not by the results directory that holds it.
    what = f"the run {root / only} (in {root})" if only else str(root)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    # uvicorn stops gracefully on SIGINT and SIGTERM, then raises the signal again with the
    # handler it found: this one turns SIGTERM into the same clean stop as Ctrl-C.
    previous = signal.signal(signal.SIGTERM, _stop)
    # SIGHUP (the terminal closed), which uvicorn leaves alone, stops it as SIGTERM does.
    hangup = signal.getsignal(signal.SIGHUP)
    if hangup is not signal.SIG_IGN:  # under nohup it stays ignored
        signal.signal(signal.SIGHUP, lambda _n, frame: server.handle_exit(signal.SIGTERM, frame))
    try:
        # Said once a stop is handled: one that comes as soon as the URL is read ends the
        # viewer as one that comes later does (exit 0), not as an interrupted command (130).
        say(f"proctor: viewing {what} at {url} ({listening}Ctrl-C to stop)")
        if open_browser:
            import webbrowser

            threading.Timer(0.5, webbrowser.open, args=(url,)).start()
        server.run(sockets=[sock])
    except (KeyboardInterrupt, _Stopped):
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        if hangup is not None:
            signal.signal(signal.SIGHUP, hangup)
        sock.close()
        playground = app.state.playground
        if playground.active():
            say("proctor: stopping the playground's batch (its run records what it finished)")
        playground.close()
        index.close()
    return 0
