"""Issue 53's short cases on one `paisai dashboard` (a 1,000-team event at round 7, loopback):

- a burst of 200 phones at once on `/m/{event}/` — 1,000 requests from 200 threads, all
  started together: the p95 (each a fresh connection, as phones arriving at the QR code);
- the console's first view: signing in at /admin to the console showing where the event
  stands, and the projector's first view (/live?projector=1 to its ranking), in Chromium,
  with that burst of phones going on meanwhile;
- phones that open the projector's address (/live, a phone's User-Agent): where they land.

Bounded: loopback only, every wait capped, the server stopped at the end.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from bench.agents import PHONE_AGENT
from bench.hall import PASSWORD
from bench.national import floor
from bench.turnaround import prepare

BURST_PHONES = 200
BURST_REQUESTS = 1_000


def _burst(url: str, phones: int, requests: int) -> list[float]:
    """Every phone's requests' seconds, the phones started at one signal."""
    times: list[float] = []
    failed: list[Exception] = []
    go = threading.Event()
    each = requests // phones

    def phone() -> None:
        go.wait(30)
        for _ in range(each):
            started = time.perf_counter()
            try:
                urllib.request.urlopen(urllib.request.Request(
                    url, headers={"User-Agent": PHONE_AGENT}), timeout=30).read()
                times.append(time.perf_counter() - started)
            except Exception as exc:  # a failed request counts as the slowest
                failed.append(exc)
                times.append(30.0)

    threads = [threading.Thread(target=phone, daemon=True) for _ in range(phones)]
    for thread in threads:
        thread.start()
    go.set()
    for thread in threads:
        thread.join(120)
    return times


def _p95(times: list[float]) -> float:
    return statistics.quantiles(times, n=20)[-1]


def server_cpu(pid: int) -> float:
    """CPU seconds (user + system) of a process and all its descendants (the server that
    `paisai dashboard` starts is its child), from /proc; 0 where there is none."""
    import os

    tick = os.sysconf("SC_CLK_TCK")
    found: dict[int, tuple[int, int]] = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            found[int(entry)] = (int(fields[1]), int(fields[11]) + int(fields[12]))
    family, grew = {pid}, True
    while grew:
        grew = False
        for child, (parent, _) in found.items():
            if parent in family and child not in family:
                family.add(child)
                grew = True
    return sum(found[p][1] for p in family if p in found) / tick


def _first_views(browser, url: str, pid: int = 0,
                 cpu: list[float] | None = None) -> tuple[float, float]:
    """Seconds to the console drawn after signing in, and to the projector's first ranking;
    the server's CPU seconds for the console's first view appended to `cpu`."""
    from playwright.sync_api import expect

    from tests.ui.conftest import console

    desk = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="zh-CN")
    wall = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="zh-CN")
    try:
        before = server_cpu(pid)
        started = time.perf_counter()
        console(desk.new_page(), url, "bench", PASSWORD)
        drawn = time.perf_counter() - started
        if cpu is not None:
            cpu.append(server_cpu(pid) - before)
        started = time.perf_counter()
        projector = wall.new_page()
        projector.goto(f"{url}/live?event=bench&projector=1")
        expect(projector.locator("table[data-testid=ranking] tbody tr").first).to_be_visible(
            timeout=60_000)
        return drawn, time.perf_counter() - started
    finally:
        desk.close()
        wall.close()


def _upload_previews(browser, url: str, sheet: Path, pid: int,
                     times: int = 3) -> list[tuple[float, float]]:
    """The console's own upload → preview with no phones, `times` times (a fresh sign-in
    each): seconds from the file chosen to its 确认导入 button, and the server's CPU
    seconds meanwhile."""
    from tests.ui.conftest import console, idle

    found = []
    for _ in range(times):
        desk = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="zh-CN")
        try:
            page = desk.new_page()
            console(page, url, "bench", PASSWORD, "本轮")
            idle(page)
            before, started = server_cpu(pid), time.perf_counter()
            page.set_input_files("input[type=file]", str(sheet))
            page.get_by_role("button", name="确认导入").wait_for(timeout=60_000)
            found.append((time.perf_counter() - started, server_cpu(pid) - before))
        finally:
            desk.close()
    return found


def run(teams: int = 1_000) -> list[dict]:
    from playwright.sync_api import sync_playwright

    from tests.ui.conftest import CHROMIUM, CHROMIUM_ARGS, Server

    if not Path(CHROMIUM).exists():
        return [{"case": "burst: skipped", "seconds": float("nan"),
                 "note": "Debian's Chromium is missing (make browser-deps)"}]
    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as p:
        folder = Path(scratch)
        base, sheet = prepare(folder, teams)
        database = folder / "burst.duckdb"
        shutil.copyfile(base, database)
        server = Server(database, env={"PAISAI_ADMIN_PASSWORD": PASSWORD})
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = f"{server.url}/m/bench/"
            urllib.request.urlopen(page, timeout=60).read()  # the event shown once before
            times = _burst(page, BURST_PHONES, BURST_REQUESTS)
            landing = urllib.request.urlopen(urllib.request.Request(
                f"{server.url}/live?event=bench", headers={"User-Agent": PHONE_AGENT}),
                timeout=60).geturl()
            pid, cpu = server.process.pid, []
            load_quiet = open("/proc/loadavg").read().split()[0]
            quiet = _first_views(browser, server.url, pid, cpu)
            during: list[float] = []
            phones = threading.Thread(target=lambda: during.extend(
                _burst(page, BURST_PHONES, BURST_REQUESTS)), daemon=True)
            phones.start()
            busy = _first_views(browser, server.url, pid, cpu)
            phones.join(180)
            load_upload = open("/proc/loadavg").read().split()[0]
            uploads = _upload_previews(browser, server.url, sheet, pid)
        finally:
            browser.close()
            server.stop()
    load = open("/proc/loadavg").read().split()[0]
    burst = (f"{BURST_REQUESTS:,} requests from {BURST_PHONES} threads started together, "
             f"{teams:,} teams")
    busy_machine = f"load average {load}, import polars, duckdb {floor(3):.2f} s"
    return [
        {"case": f"burst: {BURST_PHONES} phones at once on /m/{{event}}/, p95",
         "seconds": _p95(times),
         "note": f"{burst}: median {statistics.median(times):.3f} s, slowest "
                 f"{max(times):.2f} s; {busy_machine}"},
        {"case": "burst: the console drawn after signing in", "seconds": quiet[0],
         "note": f"Chromium, no phones; the server's CPU {cpu[0]:.2f} s (load average "
                 f"{load_quiet} before it); with the burst going on {busy[0]:.2f} s; "
                 f"{busy_machine}"},
        {"case": "burst: the console's upload → preview, no phones",
         "seconds": statistics.median(w for w, _ in uploads),
         "note": f"the round's sheet ({teams // 2:,} tables) chosen on 本轮 to its 确认导入 "
                 f"button, median of {len(uploads)} (each after a fresh sign-in): "
                 + ", ".join(f"{w:.2f} s" for w, _ in uploads) + "; the server's CPU "
                 + ", ".join(f"{c:.2f} s" for _, c in uploads)
                 + f"; load average {load_upload} before them"},
        {"case": "burst: the console drawn after signing in, with the burst",
         "seconds": busy[0], "note": f"{burst} meanwhile (its p95 {_p95(during):.2f} s); "
                                     f"the server's CPU {cpu[1]:.2f} s (the phones' too)"},
        {"case": "burst: the projector's first view, with the burst", "seconds": busy[1],
         "note": f"/live?projector=1 to its ranking; {quiet[1]:.2f} s without phones"},
        {"case": "burst: a phone opening /live lands on the plain page (1 yes, 0 no)",
         "seconds": float(landing.endswith("/m/bench/")),
         "note": f"a phone's User-Agent on /live?event=bench ended at {landing}"},
    ]
