"""The providers' TLS context loads httpx's CA certificates when a connection first needs them:
never for plain HTTP, always (and verifying) for HTTPS."""

from __future__ import annotations

import socket
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import certifi
import httpx
import pytest

from amicus_mcp.providers import tls
from amicus_mcp.providers.openai_compat import OpenAICompatibleProvider, make_client
from amicus_mcp.providers.tls import DeferredTLSContext
from fakeprovider import FakeProvider, ask, chat


def wrapped(context: ssl.SSLContext) -> None:
    context.wrap_bio(ssl.MemoryBIO(), ssl.MemoryBIO(), server_hostname="example.com")


def test_certificates_load_at_the_first_wrap_and_verification_is_the_client_default() -> None:
    context = DeferredTLSContext()
    assert context.cert_store_stats()["x509_ca"] == 0
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    wrapped(context)
    reference = httpx.create_ssl_context()  # what httpx itself would have loaded here
    assert context.cert_store_stats()["x509_ca"] == reference.cert_store_stats()["x509_ca"] > 0
    wrapped(context)  # loaded once
    assert context.cert_store_stats() == reference.cert_store_stats()


def test_without_the_variables_it_is_certifis_bundle(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    context = DeferredTLSContext()
    wrapped(context)
    assert context.cert_store_stats() == ssl.create_default_context(cafile=certifi.where()).cert_store_stats()


def test_ssl_cert_file_is_honoured_as_httpx_honours_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bundle = Path(certifi.where()).read_text(encoding="ascii")
    first = bundle[bundle.index("-----BEGIN CERTIFICATE-----"):bundle.index("-----END CERTIFICATE-----") + 25]
    one = tmp_path / "one.pem"
    one.write_text(first + "\n", encoding="ascii")
    monkeypatch.setenv("SSL_CERT_FILE", str(one))
    context = DeferredTLSContext()
    wrapped(context)
    assert context.cert_store_stats()["x509_ca"] == 1


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = tls.DeferredTLSContext.load

    def counted(self: DeferredTLSContext) -> None:
        calls.append(1)
        real(self)

    monkeypatch.setattr(tls.DeferredTLSContext, "load", counted)
    return calls


@pytest.fixture
def not_tls() -> Iterator[int]:
    """A TCP port that accepts and hangs up: a client starting TLS there gets as far as the wrap."""
    server = socket.create_server(("127.0.0.1", 0))
    done = threading.Event()

    def serve() -> None:
        while not done.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                return
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    done.set()
    server.close()


@pytest.mark.anyio
async def test_plain_http_never_loads_them(fake: FakeProvider, loads: list[int]) -> None:
    fake.script("m", chat("hello"))
    async with make_client() as client:
        provider = OpenAICompatibleProvider("fake", fake.base_url, None, client=client)
        assert (await provider.complete(ask("m"))).text == "hello"
    assert loads == []


@pytest.mark.anyio
async def test_https_loads_them_before_the_handshake(not_tls: int, loads: list[int]) -> None:
    async with make_client() as client:
        with pytest.raises(httpx.ConnectError):
            await client.get(f"https://127.0.0.1:{not_tls}/v1/models", timeout=5)
    assert loads == [1]
