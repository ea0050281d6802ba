"""A provider call cut off by its deadline ends at once: its connection is shut down. Closing
the client alone does not wake the thread's blocked read: the thread, and its connection,
ran on until the server's next byte (or the read's own timeout, as long as the call's)."""

from __future__ import annotations

import datetime
import ipaddress
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from proctor.llm.client import ProviderError
from proctor.llm.keycheck import check_role_keys
from proctor.llm.providers.anthropic import AnthropicProvider
from proctor.llm.providers.openai import OpenAIProvider
from proctor.llm.refs import ModelRef
from proctor.models.plan import RoleModels

pytestmark = pytest.mark.usefixtures("abandoned_calls_collected")

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


TIMEOUT = 2.0
"""The calls' deadline (and each read's timeout): longer than the server's pauses."""
WITHIN = 0.6
"""How soon after its cut-off a call's thread and connection end: before the server's next
line (1 s after the cut), which woke the thread when the client was only closed."""


class Trickler:
    """A server that answers every request with a status line, then a header line every
    1.5 s for 10 s; ``closed`` is set when the client shuts its connection."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.tls = tls
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.listener.settimeout(0.1)
        self.stop = threading.Event()
        self.closed = threading.Event()
        self.threads: list[threading.Thread] = []
        self.accepting = threading.Thread(target=self._accept, daemon=True)
        self.accepting.start()

    @property
    def port(self) -> int:
        return int(self.listener.getsockname()[1])

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            thread = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            self.threads.append(thread)
            thread.start()

    def _serve(self, raw: socket.socket) -> None:
        conn = raw
        try:
            raw.settimeout(5)
            if self.tls is not None:
                conn = self.tls.wrap_socket(raw, server_side=True)
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\n")
            conn.settimeout(1.5)
            ends = time.monotonic() + 10
            while not self.stop.is_set() and time.monotonic() < ends:
                try:
                    if conn.recv(1) == b"":
                        self.closed.set()
                        return
                except TimeoutError:
                    conn.sendall(b"X-Slow: yes\r\n")
        except TimeoutError:
            return
        except OSError:  # (a reset, or a TLS connection cut without its goodbye)
            self.closed.set()
        finally:
            conn.close()
            raw.close()

    def close(self) -> None:
        self.stop.set()
        self.accepting.join(5)
        self.listener.close()
        for thread in self.threads:
            thread.join(5)


@pytest.fixture
def trickler() -> Iterator[Trickler]:
    server = Trickler()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def tls_trickler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Trickler]:
    """A trickler over TLS, its certificate (for 127.0.0.1) the clients' only authority."""
    cert, key = self_signed(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    server = Trickler(context)
    try:
        yield server
    finally:
        server.close()


def self_signed(folder: Path) -> tuple[Path, Path]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


def openai(url: str) -> Any:
    return OpenAIProvider(ModelRef("openai", "gpt-x"), "sk-local", url + "/v1", "judge")


def anthropic(url: str) -> Any:
    return AnthropicProvider(ModelRef("anthropic", "claude-x"), "sk-local", url, "judge")


def cut_off(provider: Any) -> list[threading.Thread]:
    """The threads of a call that ``provider`` makes and its deadline cuts off."""
    before = set(threading.enumerate())
    try:
        with pytest.raises(ProviderError, match=f"no reply within {TIMEOUT:g} s"):
            provider.complete("system", "user", max_tokens=8, logprobs=False, timeout=TIMEOUT)
    finally:
        provider.client.close()
    return [t for t in threading.enumerate() if t.name == "provider-call" and t not in before]


def assert_ended(threads: list[threading.Thread], server: Trickler) -> None:
    """The call's threads and its connection end within ``WITHIN`` s."""
    cut = time.monotonic()
    for thread in threads:
        thread.join(max(0.0, WITHIN - (time.monotonic() - cut)))
    assert not [t for t in threads if t.is_alive()], "the call's thread runs on"
    assert server.closed.wait(max(0.0, WITHIN - (time.monotonic() - cut))), (
        "the server still sends to the call's connection"
    )


@pytest.mark.parametrize("make", [openai, anthropic])
def test_a_call_cut_off_ends_with_its_connection(
    trickler: Trickler, make: Callable[[str], Any]
) -> None:
    assert_ended(cut_off(make(f"http://127.0.0.1:{trickler.port}")), trickler)


@pytest.mark.parametrize("make", [openai, anthropic])
def test_a_call_cut_off_over_tls_ends_with_its_connection(
    tls_trickler: Trickler, make: Callable[[str], Any]
) -> None:
    assert_ended(cut_off(make(f"https://127.0.0.1:{tls_trickler.port}")), tls_trickler)


@pytest.mark.parametrize("make", [openai, anthropic])
def test_a_call_cut_off_through_a_proxy_ends_with_its_connection(
    trickler: Trickler, make: Callable[[str], Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A proxy named by the environment (the SDK's HTTP client mounts a transport of its
    own for it): the call's connection to the proxy is shut down too."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{trickler.port}")
    assert_ended(cut_off(make("http://llm.example")), trickler)


def test_a_key_check_cut_off_ends_with_its_connection(trickler: Trickler) -> None:
    before = set(threading.enumerate())
    warnings: list[str] = []
    roles = RoleModels(
        refs={"judge": "anthropic/claude-x"},
        urls={"anthropic": f"http://127.0.0.1:{trickler.port}"},
    )
    check_role_keys(
        [roles], {"ANTHROPIC_API_KEY": "sk-ant-" + "x" * 40}, {}, warnings.append, timeout=TIMEOUT
    )
    assert len(warnings) == 1 and f"no answer within {TIMEOUT:g} s" in warnings[0], warnings
    threads = [t for t in threading.enumerate() if t.name == "provider-call" and t not in before]
    assert_ended(threads, trickler)
