"""A hall full of phones on one `paisai dashboard` process: N concurrent /live and /pairings
sessions (Streamlit's own websocket protocol, as a browser speaks it) while the organizer
ingests a round and pairs the next one. Bounded: loopback only, at most MAX_SESSIONS
sessions, every wait capped, the server stopped at the end.

Measured per level of N: the sessions' first page (median and slowest), the organizer's
ingest + pair through the CLI meanwhile, and how long the open /live pages take to show the
new round (their fragment reruns every 5 s) — against 10 s for the pages and 2 s for the
organizer.
"""

from __future__ import annotations

import asyncio
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.turnaround import prepare
from pipeline.serve import free_port, wait_until_up

MAX_SESSIONS = 200
LEVELS = (10, 25, 50)
WAIT = 30.0  # the longest any one wait may take


async def _session(port: int, page: str, marker: str, shown: asyncio.Event,
                   stats: dict) -> None:
    """Open a page, note when its first run finished, then follow its fragment reruns until
    `marker` appears on it (or the bench stops it)."""
    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    started = time.perf_counter()
    async with websockets.connect(f"ws://127.0.0.1:{port}/_stcore/stream",
                                  subprotocols=["streamlit"], max_size=None,
                                  open_timeout=WAIT) as ws:
        hello = BackMsg()
        hello.rerun_script.query_string = "event=bench"
        hello.rerun_script.page_name = page
        await ws.send(hello.SerializeToString())
        reruns: list[asyncio.Task] = []
        first = True
        try:
            while True:
                raw = await asyncio.wait_for(ws.recv(), WAIT)
                message = ForwardMsg()
                message.ParseFromString(raw)
                kind = message.WhichOneof("type")
                if kind == "script_finished" and first:
                    stats["first"].append(time.perf_counter() - started)
                    first = False
                elif kind == "auto_rerun":  # the browser's job: rerun the fragment on time
                    reruns.append(asyncio.create_task(_rerun(
                        ws, message.auto_rerun.interval, message.auto_rerun.fragment_id)))
                elif kind == "delta" and shown.is_set() and marker in str(message.delta):
                    stats["new_round"].append(time.perf_counter() - stats["changed_at"])
                    return
                if not first and page != "live":
                    return
        finally:
            for task in reruns:
                task.cancel()


async def _rerun(ws, interval: float, fragment_id: str) -> None:
    from streamlit.proto.BackMsg_pb2 import BackMsg

    while True:
        await asyncio.sleep(interval)
        again = BackMsg()
        again.rerun_script.query_string = "event=bench"
        again.rerun_script.page_name = "live"
        again.rerun_script.fragment_id = fragment_id
        again.rerun_script.is_auto_rerun = True
        await ws.send(again.SerializeToString())


async def _level(port: int, sessions: int, database: Path, sheet: Path, round_no: int
                 ) -> dict:
    stats: dict = {"first": [], "new_round": [], "changed_at": 0.0}
    shown = asyncio.Event()
    marker = f"第 {round_no} 轮后"
    tasks = [asyncio.create_task(_session(port, "live" if i % 2 else "pairings", marker,
                                          shown, stats)) for i in range(sessions)]
    await asyncio.sleep(2)  # the hall is connected and loading while the organizer works
    started = time.perf_counter()
    exe = Path(sys.executable).parent / "paisai"
    env = {**os.environ, "PAISAI_DB": str(database)}
    for args in (["ingest", "--event", "bench", str(sheet)],
                 ["pair", "--event", "bench"]):
        await asyncio.to_thread(subprocess.run, [str(exe), *args], env=env, check=True,
                                capture_output=True, timeout=WAIT)
    organizer = time.perf_counter() - started
    stats["changed_at"] = time.perf_counter()
    shown.set()
    done, pending = await asyncio.wait(tasks, timeout=WAIT)
    for task in pending:
        task.cancel()
    failed = sum(1 for t in done if t.exception() is not None)
    return {"first": stats["first"], "new_round": stats["new_round"], "organizer": organizer,
            "failed": failed + len(pending), "live": sessions // 2}


def run(teams: int = 500) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        base, sheet = prepare(folder, teams)
        port = free_port()
        server = subprocess.Popen(
            [str(Path(sys.executable).parent / "paisai"), "dashboard", "--db", str(base),
             "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        try:
            wait_until_up(port)
            asyncio.run(_level(port, 2, base, sheet, 7))  # warm: imports, first compile
            round_no = 8  # paired by the warm-up; each level reports it and pairs the next
            for sessions in LEVELS:
                sessions = min(sessions, MAX_SESSIONS)
                sheet = _next_round_sheet(base, folder, round_no)
                result = asyncio.run(_level(port, sessions, base, sheet, round_no))
                first = sorted(result["first"]) or [float("nan")]
                seen = sorted(result["new_round"]) or [float("nan")]
                rows.append({
                    "case": f"hall: {sessions} phones on one dashboard, slowest first page",
                    "seconds": first[-1],
                    "note": f"median {statistics.median(first):.2f} s; organizer's ingest + "
                            f"pair meanwhile {result['organizer']:.2f} s; open /live pages "
                            f"showing the new round after {seen[-1]:.1f} s at the latest "
                            f"({len(result['new_round'])}/{result['live']}); "
                            f"failed {result['failed']}"})
                round_no += 1
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
    return rows


def _next_round_sheet(database: Path, folder: Path, round_no: int) -> Path:
    """The results of round `round_no` as paired, every table 10 to 8."""
    from pipeline import db, rounds

    with db.reading(database) as con:
        pairs = rounds.pairings(con, "bench", round_no)
    lines = ["轮次,桌号,东西队号,南北队号,东西级数,南北级数"]
    lines += [f"{round_no},{t},{ew},{ns},10,8" for t, ew, ns in
              pairs.filter(pairs["ns_team"].is_not_null()).select("table", "ew_team",
                                                                  "ns_team").rows()]
    sheet = folder / f"hall-round-{round_no}.csv"
    sheet.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return sheet
