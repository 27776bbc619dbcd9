"""The providers' TLS context: httpx's own choice of CA certificates, loaded on first use.

httpx builds its TLS context when a client is made, and loading the CA bundle is most of
that (~50-80 ms of a process on these machines). A run that speaks only plain HTTP — a model
server on this machine or the LAN, the loopback fake provider in tests — never needs it, so
the context here loads its certificates when it first wraps a connection instead. What it
loads is what httpx would (`httpx._config.create_ssl_context` with `verify=True`):
`$SSL_CERT_FILE`, else `$SSL_CERT_DIR`, else certifi's bundle. Verification is the
standard client default throughout: the certificate is required and the host name checked.
"""

from __future__ import annotations

import os
import ssl
from typing import Any


class DeferredTLSContext(ssl.SSLContext):
    """A client TLS context whose CA certificates are loaded when it first wraps a connection."""

    def __new__(cls) -> DeferredTLSContext:
        return super().__new__(cls, ssl.PROTOCOL_TLS_CLIENT)  # CERT_REQUIRED and check_hostname by default

    def __init__(self) -> None:
        self.loaded = False

    def wrap_bio(self, *args: Any, **kwargs: Any) -> ssl.SSLObject:  # anyio's TLS streams (httpcore's async path)
        self.load()
        return super().wrap_bio(*args, **kwargs)

    def wrap_socket(self, *args: Any, **kwargs: Any) -> ssl.SSLSocket:  # a blocking socket
        self.load()
        return super().wrap_socket(*args, **kwargs)

    def load(self) -> None:
        if self.loaded:
            return
        if os.environ.get("SSL_CERT_FILE"):
            self.load_verify_locations(cafile=os.environ["SSL_CERT_FILE"])
        elif os.environ.get("SSL_CERT_DIR"):
            self.load_verify_locations(capath=os.environ["SSL_CERT_DIR"])
        else:
            import certifi  # httpx's own dependency, and its default bundle

            self.load_verify_locations(cafile=certifi.where())
        self.loaded = True
