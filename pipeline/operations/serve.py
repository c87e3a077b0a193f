"""Starting the Streamlit dashboard on the given database, and stopping it cleanly.

`paisai dashboard` runs Streamlit as a child process, and beside it the phones' process
(`dashboard.phones`, on the phones' port: the phones' pages from memory). Stopping `paisai dashboard` the way a
service manager does (SIGTERM, SIGINT, SIGHUP) stops the server too and waits for it, so the
port is free again within seconds; and the child is told to stop if `paisai` itself dies
(Linux's parent-death signal), so no server is ever left running orphaned.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pipeline.operations.phones import phones_command, phones_port_for, trusting_loopback

STOP_SECONDS = 5


def app_path() -> Path:
    """The dashboard's script, found without importing the dashboard: operations start it
    as a child process, they never run its code (the dashboard is the stage above)."""
    from importlib.util import find_spec

    return Path(find_spec("dashboard").origin).parent / "app.py"


def dashboard_command(host: str, port: int, forwarded_allow_ips: str = "") -> list[str]:
    """The hall's server (`dashboard.server`: uvicorn serving `dashboard.asgi:app`, with
    header and keep-alive timeouts and a connection limit): the Streamlit pages and the
    phones' routes in one process on one port (Streamlit's own settings:
    `streamlit_options`, set by `dashboard.asgi`). X-Forwarded-For is believed only from
    `forwarded_allow_ips` (a proxy's addresses; none by default)."""
    command = [sys.executable, "-m", "dashboard.server", "--host", host, "--port", str(port)]
    return command + (["--forwarded-allow-ips", forwarded_allow_ips]
                      if forwarded_allow_ips else [])


def streamlit_options() -> dict[str, object]:
    """Streamlit's settings for paisai's dashboard. Under uvicorn Streamlit reads no
    STREAMLIT_* variables (only `streamlit run` does), so `dashboard.asgi` sets these itself
    before the app is made."""
    from pipeline.intake.ingest import max_upload_bytes

    return {
        "server.headless": True,
        "browser.gatherUsageStats": False,
        "client.toolbarMode": "minimal",
        "theme.base": "light",
        # the uploader states and applies paisai's own size limit, before any reading
        "server.maxUploadSize": max(1, max_upload_bytes() // 1024 // 1024),
        # no full garbage collection after every run of a page: the clock's and the
        # projector's fragments run every few seconds, and a full collection of a server
        # holding a hall's pages took a third of a core (Python's own collector still runs)
        "runner.postScriptGC": False,
        # no watching of the source files: after every run of a page or a fragment (the
        # projector's every second, the console's timer) Streamlit walked every imported
        # module's path on the server's event loop — the thread that answers the phones —
        # to watch it for edits (issue 53: half the server's CPU of the console's first view)
        "server.fileWatcherType": "none",
        # a failing page shows no traceback to the hall (install and database paths): the
        # failure is in paisai log, and a busy database is a note and a retry (dashboard.app)
        "client.showErrorDetails": "none",
    }


def dashboard_env() -> dict[str, str]:
    """The same settings as environment variables (what `streamlit run` would read)."""
    from streamlit.string_util import to_snake_case

    return {"STREAMLIT_" + to_snake_case(key.replace(".", "_")).upper():
            str(value).lower() if isinstance(value, bool) else str(value)
            for key, value in streamlit_options().items()}


def _die_with_parent() -> None:  # runs in the child before Streamlit starts
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback (what phones in the hall can reach
    when they share its network), read from the interfaces; [] when there is none.

    >>> all(not a.startswith("127.") for a in lan_addresses())
    True
    """
    import socket

    found: list[str] = []
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
        found += [info[4][0] for info in infos]
    except OSError:
        pass
    try:
        done = subprocess.run(["ip", "-o", "-4", "addr", "show", "scope", "global"],
                              capture_output=True, text=True, timeout=5)
        found += [part.split()[3].split("/")[0] for part in done.stdout.splitlines()
                  if len(part.split()) > 3]
    except (OSError, subprocess.SubprocessError):
        pass
    return list(dict.fromkeys(a for a in found if not a.startswith(("127.", "0."))))


def is_loopback(url: str) -> bool:
    """True for an address only this machine can open (phones cannot).

    >>> [is_loopback(u) for u in ("http://127.0.0.1:8501", "http://localhost", "http://192.168.1.5:8501")]
    [True, True, False]
    """
    from urllib.parse import urlsplit

    host = (urlsplit(url).hostname or "").lower()
    return host in ("localhost", "::1", "0.0.0.0", "") or host.startswith("127.")


def hall_greeting(port: int, phones_port: int | None = None) -> str:
    """What `paisai dashboard --hall` prints: the address phones in the hall open (this
    machine's LAN address, on the phones' port when the phones' process runs) as text and
    as a QR code for the terminal, or a warning when the machine has no network address."""
    import io

    import segno

    addresses = lan_addresses()
    if not addresses:
        return ("注意 warning: 本机没有局域网地址，手机连不上 this machine has no network address: "
                "phones cannot reach it\n")
    phones = phones_port or port
    url = f"http://{addresses[0]}:{phones}/m/"
    picture = io.StringIO()
    segno.make(url, error="m").terminal(out=picture, compact=True)
    others = "".join(f"  或 or http://{a}:{phones}/m/\n" for a in addresses[1:])
    return (f"手机请打开 phones open: {url}\n{others}"
            f"控制台 console: http://{addresses[0]}:{port}/admin · "
            f"大屏 projector: http://{addresses[0]}:{port}/live?projector=1\n"
            f"{picture.getvalue()}")


def checked_base_url(url: str) -> str:
    """`url` if it is an absolute http(s) address with a host and nothing a link could be
    abused with (no query, fragment, credentials, spaces or control characters); else a
    UsageError that says what to give. Links and QR codes are built on it.

    >>> checked_base_url("http://192.168.1.5:8501/")
    'http://192.168.1.5:8501/'
    >>> checked_base_url("javascript:alert(1)")
    Traceback (most recent call last):
    ...
    pipeline.base.errors.UsageError: --base-url 应是 http:// 或 https:// 开头的完整地址，如 http://192.168.1.5:8501 give an absolute http(s) address with a host, such as http://192.168.1.5:8501: 'javascript:alert(1)'
    """
    from urllib.parse import urlsplit

    from pipeline.base.errors import UsageError

    refused = UsageError("--base-url 应是 http:// 或 https:// 开头的完整地址，如 "
                         "http://192.168.1.5:8501 give an absolute http(s) address with a "
                         f"host, such as http://192.168.1.5:8501: {url!r}")
    if any(ord(c) < 33 or ord(c) == 127 for c in url) or len(url) > 200:
        raise refused
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  a port that is not a number raises here
    except ValueError:
        raise refused from None
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query \
            or parts.fragment or "?" in url or "#" in url or "@" in parts.netloc \
            or any(c in url for c in "\\<>\"'`"):
        raise refused
    return url


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on now (for a server a test or benchmark starts)."""
    import socket

    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def wait_until_up(port: int, seconds: float = 60, host: str = "127.0.0.1") -> bool:
    """True once the dashboard answers its health check (Streamlit's /_stcore/health)."""
    import urllib.request

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://{host}:{port}/_stcore/health", timeout=1)
            return True
        except OSError:
            time.sleep(0.3)
    return False


def wait_until_listening(port: int, seconds: float = 30, host: str = "127.0.0.1") -> bool:
    """True once something accepts connections on `port` (the phones' process)."""
    import socket

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=1):
                return True
        except OSError:
            time.sleep(0.1)
    return False


def stop(child: subprocess.Popen, seconds: float = STOP_SECONDS) -> int:
    """Ask the server to stop, wait for it, and end it if it does not."""
    if child.poll() is None:
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(seconds)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
    return child.returncode or 0


def hall_file(database: Path) -> Path:
    """Where a running dashboard says which port it serves (beside the database): links and
    cards printed without --base-url follow it (issue 51: they pointed at 8501 while the
    hall ran on another port)."""
    return database.resolve().with_name(database.name + ".hall.json")


@contextmanager
def serving(database: Path, host: str, port: int,
            phones_port: int | None = None) -> Iterator[None]:
    """The dashboard's port (and the phones' port) written down while it runs (this
    process's id with it), and removed when it stops."""
    import json

    mark = hall_file(database)
    said = {"pid": os.getpid(), "host": host, "port": port}
    if phones_port:
        said["phones_port"] = phones_port
    try:
        mark.write_text(json.dumps(said), encoding="utf-8")
    except OSError:  # a read-only folder: the links fall back to the default port
        pass
    try:
        yield
    finally:
        mark.unlink(missing_ok=True)


def running_hall(database: Path) -> tuple[str, int] | None:
    """The address and port the dashboard running on `database` listens on, else None (none
    running, or the one that wrote it down is gone)."""
    import json

    try:
        said = json.loads(hall_file(database).read_text(encoding="utf-8"))
        os.kill(int(said["pid"]), 0)  # still running (signal 0 only asks)
        return str(said.get("host", "")), int(said["port"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def running_phones_port(database: Path) -> int | None:
    """The port the phones open on the dashboard running on `database` (its phones'
    process's, else the hall's own), else None when none runs."""
    import json

    if running_hall(database) is None:
        return None
    try:
        said = json.loads(hall_file(database).read_text(encoding="utf-8"))
        return int(said.get("phones_port") or said["port"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def running_port(database: Path) -> int | None:
    """The port of the dashboard running on `database`, else None."""
    found = running_hall(database)
    return found[1] if found else None


def loopback_only(host: str) -> bool:
    """A server listening on `host` is reachable from this machine only (the default
    `paisai dashboard`, 127.0.0.1; not --hall's 0.0.0.0)."""
    return bool(host) and host not in ("0.0.0.0", "::") and is_loopback(f"http://{host}")


def run_dashboard(database: Path, host: str, port: int, forwarded_allow_ips: str = "",
                  phones_port: int | None = None) -> int:
    """The hall's server on `port` and, when `phones_port` is given, the phones' process
    on it (`dashboard.phones`), both stopped together."""
    phones = phones_port_for(host, port, phones_port)
    with serving(database, host, port, phones):
        return _run_dashboard(database, host, port, forwarded_allow_ips, phones)


def _start_phones(host: str, port: int, phones: int, forwarded_allow_ips: str,
                  env: dict) -> subprocess.Popen:
    return subprocess.Popen(phones_command(host, phones, port, forwarded_allow_ips), env=env,
                            preexec_fn=_die_with_parent, start_new_session=True)


def _run_dashboard(database: Path, host: str, port: int, forwarded_allow_ips: str = "",
                   phones: int | None = None) -> int:
    env = {**os.environ, **dashboard_env(), "PAISAI_DB": str(database.resolve()),
           "PAISAI_LISTEN_HOST": host}  # the console warns when QR codes point elsewhere
    print(f"看板 dashboard: http://{host}:{port}/live  (数据库 database {database})", flush=True)
    hall_trusts = forwarded_allow_ips
    if phones:
        # the phones' addresses the hall makes (QR codes, a phone sent from /live)
        env.update(PAISAI_PHONES_PORT=str(phones), PAISAI_HALL_PORT=str(port))
        hall_trusts = trusting_loopback(forwarded_allow_ips)
        print(f"手机页 phones: http://{host}:{phones}/m/", flush=True)
    # its own session: Ctrl-C in a terminal reaches paisai alone, which asks the server to
    # stop once (a second signal in the middle of Streamlit's shutdown aborts it)
    child = subprocess.Popen(dashboard_command(host, port, hall_trusts), env=env,
                             preexec_fn=_die_with_parent, start_new_session=True)
    helper = _start_phones(host, port, phones, forwarded_allow_ips, env) if phones else None
    stopping: list[float] = []
    restarted = time.monotonic()

    def forward(signum, frame) -> None:  # only signals here: waiting is the loop's job
        for process in (child, helper):
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGTERM)
        stopping.append(time.monotonic())

    previous = {s: signal.signal(s, forward) for s in (signal.SIGTERM, signal.SIGINT,
                                                        signal.SIGHUP)}
    try:
        while True:
            try:
                code = child.wait(timeout=0.2)
                break
            except subprocess.TimeoutExpired:
                if stopping and time.monotonic() - stopping[0] > STOP_SECONDS:
                    child.kill()
                elif not stopping and helper is not None and helper.poll() is not None \
                        and time.monotonic() - restarted > STOP_SECONDS:
                    # the phones' process ended by itself: started again (the phones'
                    # addresses are printed on the tables)
                    restarted = time.monotonic()
                    helper = _start_phones(host, port, phones, forwarded_allow_ips, env)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        for process in (helper, child):
            if process is not None and process.poll() is None:
                stop(process)
    return 0 if stopping else code
