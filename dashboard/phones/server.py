"""`python -m dashboard.phones.server --host H --port P --hall-port N`: the phones' process
(`dashboard.phones`), started and stopped beside the hall's server by `paisai dashboard`
(`pipeline.operations.serve`). Its connections are guarded as the hall's are
(`dashboard.server`: each request's headers within a deadline, idle connections closed, a
bounded number at once, X-Forwarded-For believed only from the given proxies)."""

from __future__ import annotations

import argparse
import logging

from dashboard.server import (
    KEEP_ALIVE_SECONDS,
    LIMIT_CONCURRENCY,
    RedactLinks,
    fast_parts,
    open_files,
)


def config(argv: list[str] | None = None):
    import uvicorn

    from dashboard.phones.app import Phones

    parser = argparse.ArgumentParser(prog="python -m dashboard.phones.server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--hall-port", type=int, required=True)
    parser.add_argument("--forwarded-allow-ips", default="")
    given = parser.parse_args(argv)
    trusted = given.forwarded_allow_ips.strip()
    return uvicorn.Config(
        Phones(f"http://127.0.0.1:{given.hall_port}"),
        host=given.host,
        port=given.port,
        **fast_parts(fast=True),
        lifespan="on",
        access_log=False,
        timeout_graceful_shutdown=3,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        limit_concurrency=open_files(LIMIT_CONCURRENCY),
        proxy_headers=bool(trusted),
        forwarded_allow_ips=trusted or None,
        log_level="warning",
    )


def main(argv: list[str] | None = None) -> None:
    import uvicorn

    settings = config(argv)
    access = logging.getLogger("uvicorn.access")
    access.handlers, access.propagate, access.disabled = [], False, True
    for handler in logging.getLogger().handlers + [
        h for name in ("uvicorn", "uvicorn.error") for h in logging.getLogger(name).handlers
    ]:
        handler.addFilter(RedactLinks())
    uvicorn.Server(settings).run()


if __name__ == "__main__":
    main()
