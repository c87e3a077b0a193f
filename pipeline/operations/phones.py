"""The phones' process beside the hall's server (issue 53, `dashboard.phones`): its command,
its port, the phones' address the hall makes, the hall trusting it for each phone's own
address. Started and stopped by `pipeline.operations.serve.run_dashboard`."""

from __future__ import annotations

import os
import sys


def phones_command(
    host: str, port: int, hall_port: int, forwarded_allow_ips: str = ""
) -> list[str]:
    """The phones' process (`dashboard.phones`): the event's phone pages from memory on
    `port`, everything else passed to the hall's server on `hall_port` (loopback)."""
    command = [
        sys.executable,
        "-m",
        "dashboard.phones.server",
        "--host",
        host,
        "--port",
        str(port),
        "--hall-port",
        str(hall_port),
    ]
    return command + (["--forwarded-allow-ips", forwarded_allow_ips] if forwarded_allow_ips else [])


def phones_port_for(host: str, port: int, wanted: int | None) -> int | None:
    """The phones' port: `wanted`, or None (no phones' process: the phones on the hall's
    port) when none or 0 is given. Measured on 2 cores with 1,000 phones (bench/hall.py,
    issue 53), the phones' process cost the console more than it spared it (upload → preview
    4.3–6.8 s against 1.5–2.6 s with the phones on the hall's port, quiet machine): it is
    there for a hall with cores to spare, asked for by --phones-port."""
    return wanted or None


def phones_base(base: str, env: dict | None = None) -> str:
    """The phones' address for a browser that reached the hall at `base` (http://host:port):
    the same host on the phones' port when the phones' process runs and `base` is the hall's
    own port (a proxy's address in front of the hall is kept as it is).

    >>> env = {"PAISAI_HALL_PORT": "8501", "PAISAI_PHONES_PORT": "8502"}
    >>> phones_base("http://192.168.1.5:8501", env), phones_base("http://hall.lan", env)
    ('http://192.168.1.5:8502', 'http://hall.lan')
    >>> phones_base("http://192.168.1.5:8501", {})
    'http://192.168.1.5:8501'
    """
    from urllib.parse import urlsplit, urlunsplit

    env = os.environ if env is None else env
    phones, hall = env.get("PAISAI_PHONES_PORT", ""), env.get("PAISAI_HALL_PORT", "")
    try:
        parts = urlsplit(base)
        if not phones or not hall or parts.port != int(hall):
            return base
    except ValueError:
        return base
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    return urlunsplit((parts.scheme, f"{host}:{int(phones)}", parts.path, "", ""))


def trusting_loopback(forwarded_allow_ips: str) -> str:
    """The hall's trusted proxies with loopback added: the phones' process passes each
    phone's own address (X-Forwarded-For) from 127.0.0.1.

    >>> trusting_loopback(""), trusting_loopback("10.0.0.2"), trusting_loopback("127.0.0.1")
    ('127.0.0.1', '10.0.0.2,127.0.0.1', '127.0.0.1')
    """
    given = [a.strip() for a in forwarded_allow_ips.split(",") if a.strip()]
    return ",".join(given if "127.0.0.1" in given or "*" in given else [*given, "127.0.0.1"])
