"""One desktop browser's Streamlit session on /live and on /pairings, 1,000 teams (issue 53).

A real `paisai dashboard` server, one websocket session per page speaking Streamlit's
protocol as a browser does (as `bench/hall_phones.py`'s StreamlitPhone): the first run, then
RERUNS reruns that find nothing changed, then the run after the round's results are stored
from outside (the CLI) — each timed (wall), and the server's CPU (user + system) it took.
Nothing else talks to the server meanwhile: its CPU is the page's.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.agents import DESKTOP_AGENT
from bench.hall import server_cpu
from bench.turnaround import prepare

RERUNS = 10
PAGES = ("live", "pairings")


def _session(url: str):
    import websocket

    return websocket.create_connection(
        url.replace("http://", "ws://") + "/_stcore/stream",
        subprotocols=["streamlit"],
        timeout=120,
        header=[f"User-Agent: {DESKTOP_AGENT}"],
    )


def _cpu(pid: int) -> float:
    """The CPU seconds (user + system) of the server's processes so far."""
    return sum(server_cpu(pid).values())


def _run(socket, page: str, pid: int) -> tuple[float, float, int]:
    """A rerun of `page` until the script finished: (wall seconds, server CPU, bytes)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    again = BackMsg()
    again.rerun_script.query_string = "event=bench"
    again.rerun_script.page_name = page
    cpu, started, size = _cpu(pid), time.perf_counter(), 0
    socket.send_binary(again.SerializeToString())
    while True:
        raw = socket.recv()
        size += len(raw)
        message = ForwardMsg()
        message.ParseFromString(raw)
        if message.WhichOneof("type") == "script_finished":
            break
    return time.perf_counter() - started, _cpu(pid) - cpu, size


def _store(database: Path, sheet: Path) -> None:
    exe = Path(sys.executable).parent / "paisai"
    subprocess.run(
        [str(exe), "ingest", "--event", "bench", str(sheet), "--db", str(database)],
        check=True,
        capture_output=True,
        timeout=120,
    )


def run(teams: int = 1000) -> list[dict]:
    from tests.ui.conftest import Server

    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        base, sheet = prepare(Path(scratch), teams)
        for page in PAGES:
            database = Path(scratch) / f"{page}.duckdb"
            database.write_bytes(base.read_bytes())
            server = Server(database)
            try:
                load = os.getloadavg()[0]
                socket = _session(server.url)
                first = _run(socket, page, server.process.pid)
                again = [_run(socket, page, server.process.pid) for _ in range(RERUNS)]
                _store(database, sheet)
                changed = _run(socket, page, server.process.pid)
                socket.close()
            finally:
                server.stop()
            wall = statistics.median(r[0] for r in again)
            cpu = statistics.median(r[1] for r in again)
            case = f"live rerun: /{page}, a desktop session, {teams:,} teams"
            rows += [
                {
                    "case": f"{case}, a rerun (median)",
                    "seconds": wall,
                    "note": f"server CPU {cpu:.3f} s a rerun (median of {RERUNS}), "
                    f"{again[0][2] / 1000:.0f} kB sent; load average {load:.1f}",
                },
                {
                    "case": f"{case}, the first run",
                    "seconds": first[0],
                    "note": f"server CPU {first[1]:.3f} s (the page's first run in a new "
                    f"server: imports and the event's caches made); load {load:.1f}",
                },
                {
                    "case": f"{case}, the run after the round is stored",
                    "seconds": changed[0],
                    "note": f"server CPU {changed[1]:.3f} s: the round's results stored by "
                    f"`paisai ingest` in between; load {load:.1f}",
                },
            ]
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
