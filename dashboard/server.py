"""The hall's server process: uvicorn serving `dashboard.asgi:app`, with the guards a hall
needs when its server faces phones directly or sits behind the shipped nginx.

- A connection must send a whole request's headers within HEADER_SECONDS, or it is closed
  (uvicorn alone keeps a connection that never finishes its headers for ever: a few hundred
  of those and the process runs out of file descriptors, and the console, the projector and
  the phones are all down). Idle kept-alive connections close after KEEP_ALIVE_SECONDS.
- At most LIMIT_CONCURRENCY connections and requests at once; more are answered 503. A
  full hall is 1,000 phones keeping their connections alive and 150 tables' two sheets
  besides (issue 42: at 1,000 the tables' entries were refused now and then), so the limit
  is 2,500, and the process raises its own open-files limit to fit when the system allows
  (`open_files`); where it cannot, the limit follows the files it may open.
- Forwarded addresses (X-Forwarded-For) are believed only from `--forwarded-allow-ips`
  (none by default): behind nginx, pass the proxy's address (the shipped unit does), so
  limits and logs see each phone's own address, never one a phone made up.
- Nothing it logs carries a table's signed link or a side's code (RedactLinks).

`python -m dashboard.server --host H --port P [--forwarded-allow-ips IPS]`: what
`paisai dashboard` starts (`pipeline.operations.serve.dashboard_command`).
"""

from __future__ import annotations

import argparse
import logging
import re

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from dashboard.guards import SECURITY_HEADERS, HeaderDeadline

KEEP_ALIVE_SECONDS = 30  # a phone refreshes every 20 s: its connection is still open then
LIMIT_CONCURRENCY = 2500
FILES_PER_CONNECTION_SPARE = 500  # files the process needs besides its connections


class GuardedH11Protocol(HeaderDeadline, H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request's headers, and its own
    400 answers (a malformed request line) carrying the security headers."""

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._seen = None  # the request cycle whose headers arrived last
        self._deadline = None
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.cycle is not self._seen:  # a request's headers arrived: it is served
            self._seen = self.cycle
            self._disarm()
        elif self.conn.their_state is h11.IDLE:  # part of the next request's headers
            self._arm()

    def _too_slow(self) -> None:
        self._deadline = None
        if self.transport.is_closing() or self.transport.get_protocol() is not self:
            return  # closed already, or a websocket now (its own protocol)
        if self.cycle is self._seen and self.conn.their_state is h11.IDLE:
            self.transport.close()  # no whole request within HEADER_SECONDS

    def send_400_response(self, msg: str) -> None:
        headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"connection", b"close"),
                   *SECURITY_HEADERS]
        for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
                      h11.Data(data=msg.encode("ascii", "replace")), h11.EndOfMessage()):
            self.transport.write(self.conn.send(event))
        self.transport.close()


_SECRETS = re.compile(r"((?:sig|code)=)[^&\s\"']+")


def redact(text: str) -> str:
    """A logged line without the signatures and codes of report links.

    >>> redact("GET /r?event=e&round=1&table=2&side=ew&sig=0123456789abcdef0123 HTTP/1.1")
    'GET /r?event=e&round=1&table=2&side=ew&sig=… HTTP/1.1'
    """
    return _SECRETS.sub(r"\1…", text)


class RedactLinks(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


def open_files(wanted: int) -> int:
    """Raise this process's soft limit of open files towards `wanted` (up to the hard
    limit) and return the number of connections it can then serve."""
    try:
        import resource
    except ImportError:  # not on this system: uvicorn's own limit stands
        return wanted
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted + FILES_PER_CONNECTION_SPARE
    if soft != resource.RLIM_INFINITY and soft < target:
        raised = target if hard == resource.RLIM_INFINITY else min(target, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
        except (ValueError, OSError):
            pass
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(100, min(wanted, soft - FILES_PER_CONNECTION_SPARE))


def fast_parts(fast: bool = False) -> dict:
    """httptools' parser on uvloop's loop (a fraction of h11's CPU a request: 0.17–0.24 against
    0.36 ms a kept page, issue 53), with the same guards (`dashboard.fastguard`), when `fast`
    or PAISAI_HTTP=httptools and they are installed; else h11 (`GuardedH11Protocol`; also
    PAISAI_HTTP=h11). The hall's server keeps h11 by default: with 1,000 phones on a quiet
    machine httptools gave the phones a better p95 (0.07 against 0.11 s) but the console's
    confirm → stored no better (2.3 against 1.1–1.8 s, bench/findings.md); the phones'
    process uses it."""
    import os

    wanted = os.environ.get("PAISAI_HTTP", "")
    if wanted == "httptools" or (fast and wanted != "h11"):
        try:
            import uvloop  # noqa: F401

            from dashboard.fastguard import GuardedHttpToolsProtocol

            return {"http": GuardedHttpToolsProtocol, "loop": "uvloop"}
        except ImportError:
            pass
    return {"http": GuardedH11Protocol, "loop": "asyncio"}


def config(argv: list[str] | None = None):
    """uvicorn's settings for the hall, from the command line."""
    import uvicorn

    parser = argparse.ArgumentParser(prog="python -m dashboard.server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8501)
    parser.add_argument("--forwarded-allow-ips", default="")
    given = parser.parse_args(argv)
    trusted = given.forwarded_allow_ips.strip()
    return uvicorn.Config(
        "dashboard.asgi:app", host=given.host, port=given.port, **fast_parts(),
        access_log=False, timeout_graceful_shutdown=3, timeout_keep_alive=KEEP_ALIVE_SECONDS,
        limit_concurrency=open_files(LIMIT_CONCURRENCY), proxy_headers=bool(trusted),
        forwarded_allow_ips=trusted or None)


def main(argv: list[str] | None = None) -> None:
    import uvicorn

    settings = config(argv)
    # no access log at all: Streamlit's handler on the root logger would otherwise print
    # every request line (each table's signed link in systemd's journal and docker logs)
    access = logging.getLogger("uvicorn.access")
    access.handlers, access.propagate, access.disabled = [], False, True
    for handler in logging.getLogger().handlers + [  # configured by Config: filtered after
            h for name in ("uvicorn", "uvicorn.error", "uvicorn.access")
            for h in logging.getLogger(name).handlers]:
        handler.addFilter(RedactLinks())
    uvicorn.Server(settings).run()


if __name__ == "__main__":
    main()
