"""The connections of one provider client, kept so that a call cut off by its deadline ends.

Closing an HTTP client does not wake a read blocked in another thread: a call that
:func:`proctor.llm.client.within` cut off ran on, its thread and its connection (and maybe
the provider's billing) alive until the server's next byte or the read's own timeout (as long
as the call's, up to 120 s), and calls cut off in a row piled up threads. So
each SDK client is given the SDK's own default HTTP client (its limits, keep-alive and
proxies from the environment) whose connections are opened through a :class:`Connections`
of its own, which keeps them: :func:`cut` shuts their sockets down (a ``shutdown`` wakes a
``recv`` blocked in another thread), and the call's thread ends at once, with an error
nobody reads (its caller already had its network error).

httpx2's transport takes no network backend of its own: it is handed to the connection pool
of each of the client's transports (the default one and the proxies' mounts)."""

from __future__ import annotations

import socket
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import httpcore2
import httpx2


class Connections(httpcore2.NetworkBackend):
    """httpcore2's own network backend, keeping every stream it opens (until it is closed)."""

    def __init__(self) -> None:
        self._backend = httpcore2.SyncBackend()
        self._streams: weakref.WeakSet[_Stream] = weakref.WeakSet()
        self._lock = threading.Lock()
        self._cut = False

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.NetworkStream:
        stream = self._backend.connect_tcp(host, port, timeout, local_address, socket_options)
        return self._kept(stream)

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.NetworkStream:
        return self._kept(self._backend.connect_unix_socket(path, timeout, socket_options))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)

    def cut(self) -> None:
        """Shut down the socket of every connection open, and of any opened after."""
        with self._lock:
            self._cut = True
            streams = list(self._streams)
        for stream in streams:
            stream.shut()

    def _kept(self, stream: httpcore2.NetworkStream) -> _Stream:
        kept = _Stream(stream, self)
        with self._lock:
            self._streams.add(kept)
            cut = self._cut
        if cut:  # (a connection that was being made when its client was cut off)
            kept.shut()
        return kept

    def _forget(self, stream: _Stream) -> None:
        with self._lock:
            self._streams.discard(stream)


class _Stream(httpcore2.NetworkStream):
    """A stream of httpcore2's backend, kept by its :class:`Connections`; after a TLS
    handshake, the encrypted stream's."""

    def __init__(self, stream: httpcore2.NetworkStream, owner: Connections) -> None:
        self._stream = stream
        self._owner = owner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, timeout)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, timeout)

    def close(self) -> None:
        self._owner._forget(self)
        self._stream.close()

    def start_tls(
        self,
        ssl_context: Any,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore2.NetworkStream:
        self._stream = self._stream.start_tls(ssl_context, server_hostname, timeout)
        return self

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)

    def shut(self) -> None:
        """Shut the socket down both ways: a read blocked on it in another thread returns."""
        sock = self._stream.get_extra_info("socket")
        if isinstance(sock, socket.socket):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:  # already closed, or never connected
                pass


def http_client(default: Callable[..., httpx2.Client]) -> httpx2.Client:
    """``default()`` (an SDK's ``DefaultHttpxClient``), its connections opened through a
    :class:`Connections` of its own."""
    client = default()
    connections = Connections()
    pools = list(_pools(client))
    for pool in pools:
        pool._network_backend = connections
    # Its connections are closed when it is collected unclosed, as the SDK's own client's are.
    weakref.finalize(client, _close, pools)
    return client


def cut(client: httpx2.Client) -> None:
    """End the calls ``client`` is making: shut down its connections' sockets, then close it."""
    for pool in _pools(client):
        backend = pool._network_backend
        if isinstance(backend, Connections):
            backend.cut()
    client.close()


def _close(pools: list[httpcore2.ConnectionPool]) -> None:
    for pool in pools:
        try:
            pool.close()
        except Exception:
            pass


def _pools(client: httpx2.Client) -> Iterator[httpcore2.ConnectionPool]:
    """The connection pools of ``client``'s transports (its own and its mounts')."""
    mounts: dict[Any, Any] = getattr(client, "_mounts", None) or {}
    for transport in (getattr(client, "_transport", None), *mounts.values()):
        pool = getattr(transport, "_pool", None)
        if isinstance(pool, httpcore2.ConnectionPool):
            yield pool
