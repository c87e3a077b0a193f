"""A hall full of phones on one `paisai dashboard` server, measured with locust.

A 1,000-team event at round 7, one server (uvicorn: the Streamlit console and projector, the
phones' plain routes beside them). Per level, on a fresh copy of the event:
- N phones arrive (25 a second) through the hall's proxy and keep refreshing (locust,
  `bench/hall_phones.py`): the ranking, find-my-table or their team's page;
- every tenth phone reports its table's side in the round's last minutes (signed links from
  `paisai links`; both sides of each reported table, so the results are stored at once);
- the organizer, in a real Chromium on the console, uploads the round's sheet (the other
  tables), confirms it, previews the next round's pairing and confirms it;
- the projector (/live in the same browser) is watched until it shows the round complete.
The same is run with the phones on the Streamlit pages instead (their own sessions), side by
side. Bounded: loopback only, at most MAX_PHONES phones, every wait capped, the server and
locust stopped at the end.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from bench.turnaround import prepare

MAX_PHONES = 1000
PLAIN = (100, 300, 1000)
STREAMLIT = (10, 50)  # beyond this, Streamlit's sessions would only measure a queue
SPAWN_RATE = 25  # phones arriving a second: a thousand within 40 s of the QR codes going up
REPORTS_FROM, REPORTS_TO = 3, 13  # seconds after the hall is full: reports come in
ORGANIZER_AT = 15  # the organizer uploads the sheet
STAY = 60  # the phones stay this long after the hall is full
WAIT = 60_000  # ms: the longest any one step of the organizer may take
PASSWORD = "bench"


def _table_rows(sheet: Path) -> tuple[list[str], list[list[str]]]:
    with sheet.open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def _reports(database: Path, url: str, reported: list[list[str]]) -> list[dict]:
    """Both sides' signed links of the reported tables, with the levels each side sends."""
    exe = Path(sys.executable).parent / "paisai"
    done = subprocess.run([str(exe), "links", "--event", "bench", "--round", "7", "--base-url",
                           url, "--format", "json"], env={**os.environ, "PAISAI_DB": str(
                               database)}, capture_output=True, text=True, check=True, timeout=60)
    links = {int(r["table"]): r for r in json.loads(done.stdout)}
    found = []
    for row in reported:
        link = links[int(row[1])]
        for side in ("ew", "ns"):
            found.append({"url": link[f"{side}_url"], "code": link[f"{side}_code"],
                          "ew_level": row[4], "ns_level": row[5]})
    return found


def locust_phones(url: str, phones: int, channel: str, teams: list[str], reports: Path | None,
            folder: Path, started: float, run_for: int | None = None) -> subprocess.Popen:
    full = started + phones / SPAWN_RATE
    env = {**os.environ, "PAISAI_HALL_CHANNEL": channel, "PAISAI_HALL_TEAMS": json.dumps(teams),
           "PAISAI_HALL_REPORTS": str(reports or ""),
           "PAISAI_HALL_REPORT_FROM": str(full + REPORTS_FROM),
           "PAISAI_HALL_REPORT_TO": str(full + REPORTS_TO)}
    run_for = run_for or int(phones / SPAWN_RATE + STAY)
    return subprocess.Popen(
        [sys.executable, "-m", "locust", "-f", str(Path(__file__).with_name("hall_phones.py")),
         "--headless", "-u", str(phones), "-r", str(SPAWN_RATE), "--run-time", f"{run_for}s",
         "--host", url, "--csv", str(folder / f"{channel}-{phones}"), "--only-summary",
         "--stop-timeout", "10", "--loglevel", "WARNING"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _organizer(browser, url: str) -> dict:
    """The console logged in on the round's phase, and the projector beside it."""
    from tests.ui.conftest import console

    # windows as in the hall: two projectors' screens and the organizer's laptop (a projector
    # in a background tab would be throttled by the browser, not by the server)
    wall = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="zh-CN")
    # the hall's second projector: the pairings screen players look at for their table
    second = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="zh-CN")
    desk = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="zh-CN")
    try:
        projector = wall.new_page()
        projector.goto(f"{url}/live?event=bench&projector=1")
        board = second.new_page()
        board.goto(f"{url}/pairings?event=bench&projector=1")
        page = desk.new_page()
        console(page, url, "bench", PASSWORD, "本轮")
        return {"contexts": (wall, second, desk), "page": page, "projector": projector,
                "board": board}
    except Exception:
        for context in (wall, second, desk):
            context.close()
        raise


def _organizer_round(pages: dict, sheet: Path, tables: int, found: dict) -> dict:
    """The organizer's round, each wait timed: upload and confirm the sheet, watch the
    projector show the complete round, preview and confirm the next round's pairing."""
    from playwright.sync_api import expect

    from tests.ui.conftest import idle, open_phase

    page, projector = pages["page"], pages["projector"]
    body = page.locator("body")
    started = time.perf_counter()
    page.set_input_files("input[type=file]", str(sheet))
    confirm = page.get_by_role("button", name="确认导入")
    confirm.wait_for(timeout=WAIT)
    previewed = time.perf_counter()
    found["ingest_preview"] = previewed - started
    confirmed_at = found["confirmed_at"] = time.time()  # (kept if the console gets stuck)
    confirm.click()
    expect(body).to_contain_text(f"已导入: {sheet.name}", timeout=WAIT)
    stored = time.perf_counter()
    found["ingest"] = stored - previewed
    shown = None
    try:
        expect(projector.locator("[data-testid=progress]")).to_contain_text(
            f"第 7 轮后 · 已报 {tables}/{tables} 桌", timeout=WAIT)
        shown = time.time()  # the clock the database's stored times are on (last_stored)
    except AssertionError:
        pass
    found["projector_at"] = shown
    open_phase(page, "编排")
    asked = time.perf_counter()
    page.get_by_role("button", name="先看编排").click()
    agree = page.get_by_role("button", name="确认编排")
    agree.wait_for(timeout=WAIT)
    preview = time.perf_counter() - asked
    agree.click()
    asked = time.perf_counter()
    expect(body).to_contain_text("第 8 轮已编排", timeout=WAIT)
    paired = time.perf_counter() - asked
    board = None
    try:  # the pairings screen follows by itself (no reload): round 8's tables
        expect(pages["board"].locator("body")).to_contain_text("第 8 轮对阵", timeout=WAIT)
        board = time.perf_counter() - asked
    except AssertionError:
        pass
    idle(page)
    return {"ingest": stored - previewed, "pair": paired, "ingest_preview": previewed - started,
            "pair_preview": preview, "projector_at": shown, "board": board,
            "confirmed_at": confirmed_at}


def locust_stats(prefix: Path) -> dict:
    if os.environ.get("PAISAI_HALL_DEBUG"):
        for part in ("stats", "failures", "exceptions", "stats_history"):
            shutil.copyfile(f"{prefix}_{part}.csv", f"/tmp/{prefix.name}_{part}.csv")
    with Path(f"{prefix}_stats.csv").open(encoding="utf-8", newline="") as f:
        rows = {r["Name"]: r for r in csv.DictReader(f)}
    whole = rows["Aggregated"]
    reports = rows.get("report")
    desktop = {where: (int(row["Request Count"]), float(row["95%"]) / 1000)
               for where in ("streamlit", "plain")
               if (row := rows.get(f"desktop site ({where})")) is not None}
    return {"requests": int(whole["Request Count"]), "failed": int(whole["Failure Count"]),
            "p50": float(whole["50%"]) / 1000, "p95": float(whole["95%"]) / 1000,
            "max": float(whole["100%"]) / 1000, "rate": float(whole["Requests/s"]),
            "reports": int(reports["Request Count"]) if reports else 0,
            "reports_p95": float(reports["95%"]) / 1000 if reports else None,
            "desktop": desktop}


def levels() -> list[tuple[str, int]]:
    """The levels run: every one, or those BENCH_HALL_LEVELS names — a channel ("streamlit")
    or a channel's level ("streamlit:10"), comma-separated.

    >>> import os; os.environ["BENCH_HALL_LEVELS"] = "streamlit, plain:300"; levels()
    [('plain', 300), ('streamlit', 10), ('streamlit', 50)]
    >>> del os.environ["BENCH_HALL_LEVELS"]; len(levels())
    5
    """
    every = [(channel, min(phones, MAX_PHONES))
             for channel, chosen in (("plain", PLAIN), ("streamlit", STREAMLIT))
             for phones in chosen]
    wanted = [w.strip() for w in os.environ.get("BENCH_HALL_LEVELS", "").split(",") if w.strip()]
    if not wanted:
        return every
    return [(channel, phones) for channel, phones in every
            if channel in wanted or f"{channel}:{phones}" in wanted]


def _level(browser, base: Path, folder: Path, header: list[str], rows: list[list[str]],
           phones: int, channel: str, teams: list[str]) -> dict:
    from tests.ui.conftest import Server

    database = folder / f"hall-{channel}-{phones}.duckdb"
    shutil.copyfile(base, database)
    # the phones come through the hall's proxy (their own X-Forwarded-For), trusted as the
    # shipped unit trusts nginx on the same machine
    # BENCH_HALL_PHONES_PORT=auto (or a port): the phones' process (`dashboard.phones`) on
    # a port of its own, the phones there, to compare with the phones on the hall's port
    phones_port = os.environ.get("BENCH_HALL_PHONES_PORT")
    if phones_port == "auto":
        from pipeline.operations.serve import free_port

        phones_port = str(free_port())
    server = Server(database, env={"PAISAI_ADMIN_PASSWORD": PASSWORD},
                    args=["--forwarded-allow-ips", "127.0.0.1",
                          *(["--phones-port", phones_port] if phones_port else [])])
    phones_url = server.phones_url  # what the QR codes and the table slips say
    try:
        reported = rows[: phones // 10 // 2] if channel == "plain" else []
        reports = None
        if reported:
            reports = folder / f"reports-{phones}.json"
            reports.write_text(json.dumps(_reports(database, phones_url, reported)))
        sheet = folder / f"第7轮-{channel}-{phones}.csv"
        with sheet.open("w", encoding="utf-8", newline="") as f:
            csv.writer(f).writerows([header, *rows[len(reported):]])
        pages = _organizer(browser, server.url)
        for path in ("/m/bench/", "/m/bench/pairings", f"/m/bench/teams/{teams[0]}"):
            urllib.request.urlopen(phones_url + path, timeout=60).read()  # served before:
            # the hall arrives at a server that has shown the event already, not a cold start
        try:
            cpu_before = server_cpu(server.process.pid)
            load_before = os.getloadavg()[0]
            started = time.time()
            # the plain pages where the QR codes send phones; /live where a phone photographed
            # the projector's address
            hall = locust_phones(phones_url if channel == "plain" else server.url, phones, channel, teams, reports, folder, started)
            time.sleep(max(0.0, started + phones / SPAWN_RATE + ORGANIZER_AT - time.time()))
            found: dict = {}
            try:
                organizer = _organizer_round(pages, sheet, len(rows), found)
            except PlaywrightTimeout as exc:  # the level is recorded as not kept up with
                organizer = {**found, "stuck": str(exc).splitlines()[-1].strip()}
            hall.wait(timeout=phones / SPAWN_RATE + STAY + 60)
            cpu_after = server_cpu(server.process.pid)
            organizer["cpu"] = {name: cpu_after[name] - cpu_before.get(name, 0.0)
                                for name in cpu_after}
            organizer["load"] = (load_before, os.getloadavg()[0])
        finally:
            for context in pages["contexts"]:
                context.close()
    finally:
        server.stop()
    return {**organizer, **_projector(organizer, database),
            **locust_stats(folder / f"{channel}-{phones}")}


def server_cpu(pid: int) -> dict[str, float]:
    """CPU seconds (user + system) used so far by each process under `pid` (`paisai
    dashboard`'s server children: the hall's process, the phones' process when it runs),
    by the module it runs (`dashboard.server`, `dashboard.phones`), from /proc."""
    ticks = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[int]] = {}
    stats: dict[int, tuple[float, str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            raw = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        fields = raw[raw.rindex(")") + 2:].split()
        children.setdefault(int(fields[1]), []).append(int(entry.name))
        name = next((c.decode() for c in command if c.startswith(b"dashboard.")), "other")
        stats[int(entry.name)] = ((int(fields[11]) + int(fields[12])) / ticks, name)
    found: dict[str, float] = {}
    todo = list(children.get(pid, []))
    while todo:
        child = todo.pop()
        todo += children.get(child, [])
        if child in stats:
            seconds, name = stats[child]
            found[name] = found.get(name, 0.0) + seconds
    return found


def last_stored(database: Path, round_no: int = 7) -> float | None:
    """When the round's last table was stored (its results' latest `updated_at`, DuckDB's
    current_timestamp in the machine's local time), in seconds since the epoch."""
    import duckdb

    with duckdb.connect(str(database), read_only=True) as con:
        found = con.execute("select max(updated_at) from results where event_id = 'bench' "
                            "and round = ?", [round_no]).fetchone()[0]
    return None if found is None else found.timestamp()


def _projector(organizer: dict, database: Path) -> dict:
    """The projector's complete round timed from the moment the last table was stored — a
    phone's report may come after the organizer's sheet (a phone reports at its next refresh,
    up to 20 s late): the clock starts when the round is complete, not at the sheet."""
    shown, confirmed = organizer.get("projector_at"), organizer.get("confirmed_at")
    stored = last_stored(database)
    if shown is None or stored is None:
        return {"projector": None, "last_after_sheet": None}
    return {"projector": shown - max(stored, confirmed or stored),
            "last_after_sheet": None if confirmed is None else stored - confirmed}


def run(teams: int = 1000) -> list[dict]:
    from playwright.sync_api import sync_playwright

    from tests.ui.conftest import CHROMIUM, CHROMIUM_ARGS

    if not Path(CHROMIUM).exists():
        return [{"case": "hall: skipped", "seconds": float("nan"),
                 "note": "Debian's Chromium is missing (make browser-deps)"}]
    results = []
    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as p:
        folder = Path(scratch)
        base, sheet = prepare(folder, teams)
        header, rows = _table_rows(sheet)
        team_numbers = [t for r in rows for t in (r[2], r[3]) if t]
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            *CHROMIUM_ARGS, "--disable-background-timer-throttling",
            "--disable-renderer-backgrounding", "--disable-backgrounding-occluded-windows"])
        try:
            for channel, phones in levels():
                found = _level(browser, base, folder, header, rows, phones, channel,
                               team_numbers)
                results.append({"channel": channel, "phones": phones, **found})
        finally:
            browser.close()
    return [row for r in results for row in _rows(r, teams)]


def _rows(r: dict, teams: int) -> list[dict]:
    where = "phones' pages" if r["channel"] == "plain" else "Streamlit pages"
    measured = ""
    cpu = r.get("cpu") or {}
    if cpu:  # the server's processes while the hall was full (the organizer's round in it)
        measured += "; server CPU " + ", ".join(
            f"{name.removeprefix('dashboard.')} {seconds:.1f} s" for name, seconds in
            sorted(cpu.items())) + (f" ({1000 * sum(cpu.values()) / r['requests']:.2f} ms "
                                    "a request)" if r["requests"] else "")
    if r.get("load"):
        measured += f"; load average {r['load'][0]:.2f} → {r['load'][1]:.2f}"
    level = f"{r['phones']} phones on the {where}"
    if "stuck" in r:  # the organizer's console did not answer within a minute: what it did
        stuck = f"not within 60 s: {r['stuck']}"
        seconds = {"upload → preview": r.get("ingest_preview"),
                   "confirm → stored": r.get("ingest"),
                   "the projector shows the complete round": r.get("projector")}
        return [{"case": f"hall: {level}, p95 of every request", "seconds": r["p95"],
                 "note": f"{r['requests']} requests, {r['failed']} failed, {r['rate']:.0f}/s"
                         f"{measured}"},
                *({"case": f"hall: {level}, {case}",
                   "seconds": float("nan") if value is None else value,
                   "note": stuck if value is None else "(before the console got stuck)"}
                  for case, value in seconds.items()),
                *({"case": f"hall: {level}, {case}", "seconds": float("nan"), "note": stuck}
                  for case in ("the organizer's ingest + pair", "pairing → projector"))]
    reports = (f"; {r['reports']} reports sent (both sides of {r['reports'] // 2} tables), "
               f"p95 {r['reports_p95']:.2f} s" if r["reports"] else "")
    organizer = r["ingest"] + r["pair"]
    if r.get("desktop"):  # the phones asking for the desktop site: where they were let in
        reports += "; asking for the desktop site: " + ", ".join(
            f"{n} requests on {'Streamlit sessions' if where == 'streamlit' else 'the plain page'}"
            f" (p95 {p95:.2f} s)" for where, (n, p95) in r["desktop"].items())
    return [
        {"case": f"hall: {level}, p95 of every request", "seconds": r["p95"],
         "note": f"{r['requests']} requests, {r['failed']} failed, {r['rate']:.0f}/s, median "
                 f"{r['p50']:.3f} s, slowest {r['max']:.2f} s{reports}{measured}"},
        {"case": f"hall: {level}, the organizer's ingest + pair", "seconds": organizer,
         "note": f"console in Chromium, {teams:,} teams: storing the sheet {r['ingest']:.2f} s "
                 f"+ storing the pairing {r['pair']:.2f} s (clicks to confirmations); their "
                 f"previews {r['ingest_preview']:.2f} s + {r['pair_preview']:.2f} s besides"},
        {"case": f"hall: {level}, the projector shows the complete round",
         "seconds": float("nan") if r["projector"] is None else r["projector"],
         "note": "not within 60 s" if r["projector"] is None else
                 "from the round's last table stored (its stored time in the database; "
                 f"{r['last_after_sheet']:+.2f} s after the sheet's 确认导入 was clicked) to "
                 "/live showing every table reported"},
        {"case": f"hall: {level}, upload → preview", "seconds": r["ingest_preview"],
         "note": "the file chosen in the console to its preview and 确认导入 button"},
        {"case": f"hall: {level}, confirm → stored", "seconds": r["ingest"],
         "note": "确认导入 clicked to 已导入 on the console"},
        {"case": f"hall: {level}, pairing → projector", "seconds":
         float("nan") if r["board"] is None else r["board"],
         "note": "not within 60 s" if r["board"] is None else
                 "确认编排 clicked to the projector's pairings screen showing round 8 (no reload)"},
    ]


if __name__ == "__main__":  # one level on its own: python -m bench.hall plain 300
    os.environ["BENCH_HALL_LEVELS"] = f"{sys.argv[1]}:{sys.argv[2]}"
    for row in run():
        print(row)
