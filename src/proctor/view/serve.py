"""Running the viewer: which folder to index, a listening socket, uvicorn."""

from __future__ import annotations

import signal
import socket
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType

from proctor.errors import ConfigError


def open_results(path: Path) -> tuple[Path, str | None]:
    """(results directory, single run folder or None) for ``proctor view PATH``."""
    if not path.exists():
        raise ConfigError(
            f"{path}: no such results directory (give a results directory or a run folder)"
        )
    if not path.is_dir():
        raise ConfigError(f"{path}: expected a results directory or a run folder, not a file")
    path = path.resolve()
    if (path / "run.json").is_file() or (path / "trials").is_dir():
        return path.parent, path.name
    return path, None


def listen(host: str, port: int, fallback: bool) -> socket.socket:
    """A bound, listening socket; a busy ``port`` is a ConfigError unless ``fallback``."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        if not fallback:
            sock.close()
            raise ConfigError(
                f"--port {port}: cannot listen on {host}:{port} ({exc.strerror or exc})"
            ) from exc
        sock.bind((host, 0))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


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
) -> int:
    import uvicorn

    from proctor.view.app import build_app
    from proctor.view.index import ResultsIndex
    from proctor.view.settings import ViewSettings

    sock = listen(host, port, fallback)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    base = f"http://{shown}:{bound}"
    loopback = host in ("127.0.0.1", "localhost", "::1")
    wildcard = host in ("0.0.0.0", "::", "")
    # Bound to one address, only that address is served and may change state; bound to every
    # address, the names people use are unknown, so pages are served to any Host but the
    # playground runs nothing (a page from any origin could otherwise read the token).
    if loopback:
        origins: tuple[str, ...] = (base, f"http://localhost:{bound}", f"http://127.0.0.1:{bound}")
    else:
        origins = () if wildcard else (base,)
    settings = ViewSettings(
        results=root,
        only=only,
        source=source,
        max_batches=max_batches,
        origins=origins,
        allow_changes=not wildcard,
    )
    try:
        index = ResultsIndex(root, only=only)
    except (sqlite3.Error, OSError) as exc:  # OSError: a folder where the index goes
        raise ConfigError(f"{root}: cannot keep the viewer's index there ({exc})") from exc
    app = build_app(settings, index)
    url = f"{base}/runs/{only}" if only else f"{base}/"
    say(f"proctor: viewing {root} at {url} (Ctrl-C to stop)")
    if open_browser:
        import webbrowser

        threading.Timer(0.5, webbrowser.open, args=(url,)).start()
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    # uvicorn stops gracefully on SIGINT and SIGTERM, then raises the signal again with the
    # handler it found: this one turns SIGTERM into the same clean stop as Ctrl-C.
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        server.run(sockets=[sock])
    except (KeyboardInterrupt, _Stopped):
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        sock.close()
        playground = app.state.playground
        if playground.active():
            say("proctor: stopping the playground's batch (its run records what it finished)")
        playground.close()
        index.close()
    return 0
