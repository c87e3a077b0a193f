"""A hall whose tables keep their own sheets (issue 42), on one `paisai dashboard` server.

A 300-team event (150 tables) at round 7. Per level, on a fresh copy of the event and for
PLAY seconds: every table's recorder enters a deal every 4–8 minutes (the first at a random
moment of the first 8), and the other side confirms it 5–20 s later, each through the real
/t pages (plain HTTP, the side's code given once); meanwhile N phones browse the phones'
pages (locust, `bench/hall_phones.py`) and the projector (/live, Chromium) is watched. The
figures: each deal's entry and each confirmation from the request to the page showing it
(p95), the projector's delay from a deal stored to its total showing it, and nothing lost
(every deal answered 200 is in the database, once). Bounded: loopback only, every wait
capped, the server, locust and the tables' threads stopped at the end."""

from __future__ import annotations

import random
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

from bench.hall import locust_phones, locust_stats
from bench.turnaround import prepare

PHONES = (300, 1000)
TEAMS = 300
PLAY = 240  # seconds of play measured per level
DEAL_EVERY = (240, 480)  # seconds between a table's deals (4–8 minutes)
ANSWER_AFTER = (5, 20)  # seconds before the other side confirms a deal
TIMEOUT = 30  # seconds: the longest one request may take before it counts as failed


def _post(url: str, form: dict) -> tuple[float, int, str]:
    started = time.perf_counter()
    data = urllib.parse.urlencode(form).encode()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data), timeout=TIMEOUT) as r:
            text, status = r.read().decode("utf-8"), r.status
    except urllib.error.HTTPError as exc:
        text, status = exc.read().decode("utf-8", "replace"), exc.code
    except OSError as exc:
        text, status = str(exc), 0
    return time.perf_counter() - started, status, text


class Table(threading.Thread):
    """One table: its recorder enters deals, the other side confirms each."""

    def __init__(self, link: dict, until: float, stored: dict, rng: random.Random):
        super().__init__(daemon=True)
        self.link, self.until, self.stored, self.rng = link, until, stored, rng
        self.enter_times: list[float] = []
        self.answer_times: list[float] = []
        self.failed = 0
        self.why: dict[str, int] = {}  # what the failed requests answered, counted
        self.deals = 0

    def run(self) -> None:
        ns = self.link["ns_url"].replace("/r?", "/t?")
        ew = self.link["ew_url"].replace("/r?", "/t?")
        wake = time.time() + self.rng.uniform(0, DEAL_EVERY[1])
        while wake < self.until:
            time.sleep(max(0.0, wake - time.time()))
            number = self.deals + 1
            seconds, status, text = _post(ns, {
                "code": self.link["ns_code"], "action": "enter", "number": number,
                "winner": self.rng.choice(("ew", "ns")), "finish": self.rng.choice((2, 3, 4))})
            shown = status == 200 and f"已记 {number} 副" in text
            if not shown:
                self._failed(status, text)
                if "过A" in text or "结束" in text:  # the round is over at this table
                    return
                wake = time.time() + self.rng.uniform(*ANSWER_AFTER)
                continue
            self.deals = number
            self.enter_times.append(seconds)
            self.stored[(self.link["table"], number)] = time.time()
            time.sleep(self.rng.uniform(*ANSWER_AFTER))
            seconds, status, text = _post(ew, {"code": self.link["ew_code"],
                                               "action": "confirm", "number": number})
            if status == 200 and f'data-testid="answer-{number}"' not in text:
                self.answer_times.append(seconds)
            else:
                self._failed(status, text)
            wake += self.rng.uniform(*DEAL_EVERY)


    def _failed(self, status: int, text: str) -> None:
        self.failed += 1
        said = re.search(r'data-testid="message">([^<]{0,40})', text) or \
            re.search(r"<title>([^<]{0,40})", text)
        key = f"{status} {said.group(1) if said else text[:40]}"
        self.why[key] = self.why.get(key, 0) + 1


def _projector_delays(page, stored: dict, until: float) -> list[float]:
    """Polled while the tables play: each time the projector's total of deals goes up, the
    delay of every deal stored that it now includes and had not before."""
    delays, seen = [], 0
    while time.time() < until:
        text = page.evaluate("() => (document.querySelector('[data-testid=in-play-total]')"
                             " || {innerText: ''}).innerText")
        found = re.search(r"已记 (\d+) 副", text)
        total = int(found.group(1)) if found else 0
        if total > seen:
            now = time.time()
            times = sorted(stored.values())
            delays += [now - at for at in times[seen:total]]
            seen = total
        page.wait_for_timeout(200)
    return delays


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) >= 2 else float("nan")


def _level(browser, base: Path, folder: Path, phones: int, teams: list[str]) -> dict:
    from pipeline.base import db
    from pipeline.day import selfreport
    from tests.ui.conftest import Server

    database = folder / f"tables-{phones}.duckdb"
    shutil.copyfile(base, database)
    server = Server(database, args=["--forwarded-allow-ips", "127.0.0.1"])
    try:
        links = list(selfreport.links(database, "bench", 7, server.url).iter_rows(named=True))
        for path in ("/m/bench/", f"/m/bench/teams/{teams[0]}"):
            urllib.request.urlopen(server.url + path, timeout=60).read()
        context = browser.new_context(viewport={"width": 1920, "height": 1080})
        page = context.new_page()
        page.goto(f"{server.url}/live?event=bench&projector=1")
        page.wait_for_selector("[data-testid=progress]", timeout=60_000)
        started = time.time()
        hall = locust_phones(server.url, phones, "plain", teams, None, folder, started,
                             run_for=PLAY + 10)
        until = started + PLAY
        stored: dict = {}
        rng = random.Random(phones)
        tables = [Table(link, until, stored, random.Random(rng.random())) for link in links]
        for table in tables:
            table.start()
        delays = _projector_delays(page, stored, until + 10)
        for table in tables:
            table.join(timeout=TIMEOUT + 30)
        hall.terminate()
        hall.wait(timeout=30)
        context.close()
        with db.reading(database) as con:
            kept = db.scalar(con, "select count(*) from table_sheet_deals where event_id = "
                                  "'bench' and round = 7")
        enters = [s for t in tables for s in t.enter_times]
        answers = [s for t in tables for s in t.answer_times]
        why: dict[str, int] = {}
        for table in tables:
            for key, n in table.why.items():
                why[key] = why.get(key, 0) + n
        return {"phones": phones, "deals": len(stored), "kept": kept,
                "failed": sum(t.failed for t in tables), "why": why, "enter_p95": _p95(enters),
                "answer_p95": _p95(answers), "projector_p95": _p95(delays),
                "projector_max": max(delays, default=float("nan")),
                "shown": len(delays), **locust_stats(folder / f"plain-{phones}")}
    finally:
        server.stop()


def _reasons(why: dict[str, int]) -> str:
    return (" (" + "; ".join(f"{n}× {k}" for k, n in sorted(why.items(), key=lambda i: -i[1])[:3])
            + ")") if why else ""


def run() -> list[dict]:
    from playwright.sync_api import sync_playwright

    from tests.ui.conftest import CHROMIUM, CHROMIUM_ARGS

    if not Path(CHROMIUM).exists():
        return [{"case": "table sheets: skipped", "seconds": float("nan"),
                 "note": "Debian's Chromium is missing (make browser-deps)"}]
    rows = []
    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as p:
        folder = Path(scratch)
        base, sheet = prepare(folder, TEAMS)
        lines = sheet.read_text(encoding="utf-8").splitlines()[1:]
        teams = [t for line in lines for t in line.split(",")[2:4] if t]
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            *CHROMIUM_ARGS, "--disable-background-timer-throttling",
            "--disable-renderer-backgrounding"])
        try:
            for phones in PHONES:
                r = _level(browser, base, folder, phones, teams)
                level = f"table sheets: {TEAMS // 2} tables, {r['phones']} phones"
                lost = r["deals"] - r["kept"]
                rows += [
                    {"case": f"{level}, a deal entered → shown on the sheet (p95)",
                     "seconds": r["enter_p95"],
                     "note": f"{r['deals']} deals in {PLAY} s, {r['failed']} refused or "
                             f"failed{_reasons(r['why'])}, {lost} lost (stored {r['kept']})"},
                    {"case": f"{level}, a deal confirmed → shown (p95)",
                     "seconds": r["answer_p95"], "note": "the other side's confirmation"},
                    {"case": f"{level}, a deal stored → the projector shows it (p95)",
                     "seconds": r["projector_p95"],
                     "note": f"{r['shown']} deals seen on /live (projector), slowest "
                             f"{r['projector_max']:.1f} s"},
                    {"case": f"{level}, the phones' p95 of every request", "seconds": r["p95"],
                     "note": f"{r['requests']} requests, {r['failed']} failed, "
                             f"{r['rate']:.0f}/s"},
                ]
        finally:
            browser.close()
    return rows


if __name__ == "__main__":  # python -m bench.tablesheets 300
    if len(sys.argv) > 1:
        PHONES = (int(sys.argv[1]),)
    for row in run():
        print(row)
