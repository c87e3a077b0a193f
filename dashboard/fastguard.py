"""uvicorn's httptools protocol (a C parser: a fraction of h11's CPU a request) with the
guards of `dashboard.server.GuardedH11Protocol`: each request's headers within
HEADER_SECONDS of its first byte (or of the connection), else the connection is closed; its
own 400 answers carry the security headers. Used by the phones' process
(`dashboard.phones.server`), which answers a hall's phones directly."""

from __future__ import annotations

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from dashboard.guards import SECURITY_HEADERS, HeaderDeadline


class GuardedHttpToolsProtocol(HeaderDeadline, HttpToolsProtocol):
    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._deadline = None
        self._arm()

    def on_message_begin(self) -> None:  # a request's first byte: its headers are timed
        super().on_message_begin()
        self._arm()

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def _too_slow(self) -> None:
        self._deadline = None
        if not self.transport.is_closing() and self.transport.get_protocol() is self:
            self.transport.close()  # no whole request's headers within HEADER_SECONDS

    def send_400_response(self, msg: str) -> None:
        body = msg.encode("ascii", "replace")
        content = [
            b"HTTP/1.1 400 Bad Request\r\n",
            b"content-type: text/plain; charset=utf-8\r\n",
            b"content-length: " + str(len(body)).encode() + b"\r\n",
            b"connection: close\r\n",
            *(name + b": " + value + b"\r\n" for name, value in SECURITY_HEADERS),
            b"\r\n",
            body,
        ]
        self.transport.write(b"".join(content))
        self.transport.close()
