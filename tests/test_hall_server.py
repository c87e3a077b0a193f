"""The hall's one server (issue 30): its threads share one read-only connection without ever
shutting out another process's writer, a hall's reports are stored together without one bad
report taking the others with it, and uvicorn gets Streamlit's settings."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pipeline.base import db


@pytest.fixture
def sharing(monkeypatch):
    """This process's readers share a connection (as `paisai dashboard`'s do), for one test."""
    monkeypatch.setattr(db, "_SHARING", True)
    monkeypatch.setattr(db, "_SHARED", {})


def test_threads_read_side_by_side_and_a_write_shows_at_once(sharing, cli, event16, db_file):
    with db.reading(db_file) as first, db.reading(db_file) as second:  # one connection
        assert db.scalar(first, "select count(*) from teams") == 16
        assert db.scalar(second, "select count(*) from teams") == 16
        assert len(db._SHARED) == 1 and db._SHARED[str(db_file.resolve())].users == 2
    with db.writing(db_file) as con:  # closes the shared connection first, then writes
        con.execute("update teams set team_name = '改名' where team_no = 'A1'")
    with db.reading(db_file) as con:
        assert db.scalar(con, "select team_name from teams where team_no = 'A1'") == "改名"


def test_a_writer_does_not_wait_for_the_readers_under_way(sharing, event16, db_file):
    """A writer's transaction is a cursor of the readers' shared connection: it is stored
    while a reader is under way (which goes on reading what was there before it), and the
    reader asking for a second cursor meanwhile gets it — nothing waits for anything."""
    entered, finished = threading.Event(), []

    def reader() -> None:
        with db.reading(db_file):
            entered.set()
            time.sleep(0.5)  # the writer arrives meanwhile
            with db.reading(db_file) as again:
                finished.append(db.scalar(again, "select count(*) from teams"))

    def writer() -> None:
        entered.wait(5)
        with db.writing(db_file) as con:
            con.execute("update teams set team_name = 'W' where team_no = 'A2'")
        finished.append("written")

    threads = [threading.Thread(target=reader), threading.Thread(target=writer)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    assert not any(thread.is_alive() for thread in threads), "reader and writer deadlocked"
    assert finished == ["written", 16]  # the write did not wait for the reader's 0.5 s


def test_another_process_writes_while_the_server_keeps_reading(sharing, event16, db_file):
    """A server reading all the time (a clock each second, phones, the projector) still leaves
    the file to the organizer's CLI in turn; what it wrote is read afterwards."""
    stop = threading.Event()

    def busy_server() -> None:
        while not stop.is_set():
            with db.reading(db_file) as con:
                db.scalar(con, "select count(*) from teams")
            time.sleep(0.05)

    server = threading.Thread(target=busy_server)
    server.start()
    try:
        time.sleep(0.3)
        exe = Path(sys.executable).parent / "paisai"
        done = subprocess.run([str(exe), "pair", "--event", "e"],
                              env={**os.environ, "PAISAI_DB": str(db_file),
                                   "PAISAI_LOCK_TIMEOUT": "60"},
                              capture_output=True, text=True, timeout=120)
    finally:
        stop.set()
        server.join(10)
    assert done.returncode == 0, done.stderr
    with db.reading(db_file) as con:
        assert db.scalar(con, "select count(*) from pairings where round = 1") == 8


def test_reports_arriving_together_are_stored_together(cli, event16, db_file, tmp_path):
    """Both sides of two tables and a forged link in one batch: the forged one is refused
    alone, the others stored as if each had come by itself."""
    from conftest import RESULT_HEADER, write_csv

    from pipeline.day import selfreport
    rows = [RESULT_HEADER] + [[1, t, f"A{2 * t - 1}", f"A{2 * t}", "10", "8"]
                              for t in range(1, 9)]
    assert cli("pair", "--event", "e").code == 0
    assert cli("ingest", "--event", "e", write_csv(tmp_path / "r1.csv", rows)).code == 0
    assert cli("pair", "--event", "e").code == 0
    links = selfreport.links(db_file, "e", 2, "http://x")

    def report(table: int, side: str, sig: str | None = None) -> selfreport.Report:
        row = links.row(table - 1, named=True)
        return selfreport.Report("e", 2, table, sig or row[f"{side}_url"].rsplit("sig=", 1)[1],
                                 "K", "9", side, row[f"{side}_code"])

    batch = [report(1, "ew"), report(1, "ns"), report(2, "ew"), report(3, "ew", "0" * 20),
             report(2, "ns")]
    outcomes = selfreport.submit_many(db_file, batch)
    assert outcomes[:3] == ["waiting", "stored", "waiting"] and outcomes[4] == "stored"
    assert isinstance(outcomes[3], selfreport.UsageError) and "链接无效" in str(outcomes[3])
    with db.reading(db_file) as con:
        stored = db.rows(con, "select table_no, ew_level, ns_level from results where "
                              "round = 2 order by table_no")
        audited = db.scalar(con, "select count(*) from result_audit where round = 2")
    assert stored == [(1, 13, 9), (2, 13, 9)] and audited == 2


def test_a_batch_that_gave_way_to_the_console_is_stored_after_it(
    cli, event16, db_file, tmp_path, monkeypatch
):
    """Issue 53: a phones' batch rolled back to let the organizer write first (`db.GaveWay`)
    is stored again after it, first in the queue, and then goes on to its end: each phone
    gets its own outcome, once."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from conftest import RESULT_HEADER, write_csv

    from dashboard.hall.report import Reports
    from pipeline.day import selfreport
    rows = [RESULT_HEADER] + [[1, t, f"A{2 * t - 1}", f"A{2 * t}", "10", "8"]
                              for t in range(1, 9)]
    assert cli("pair", "--event", "e").code == 0
    assert cli("ingest", "--event", "e", write_csv(tmp_path / "r1.csv", rows)).code == 0
    assert cli("pair", "--event", "e").code == 0
    links = selfreport.links(db_file, "e", 2, "http://x").row(0, named=True)
    sides = [selfreport.Report("e", 2, 1, links[f"{side}_url"].rsplit("sig=", 1)[1], "K", "9",
                               side, links[f"{side}_code"]) for side in ("ew", "ns")]
    monkeypatch.setenv("PAISAI_DB", str(db_file))
    tried: list[tuple[int, bool]] = []
    stored = selfreport.submit_many

    def gives_way_once(database, reports, yielding=True):
        tried.append((len(reports), yielding))
        if len(tried) == 1:  # the organizer came while the batch was under way
            raise db.GaveWay(str(database))
        return stored(database, reports, yielding)

    monkeypatch.setattr(selfreport, "submit_many", gives_way_once)

    async def both() -> list:
        queue = Reports()
        return list(await asyncio.gather(*(queue.submit(r) for r in sides)))

    # a loop of its own in a thread of its own: a browser test's Playwright may have left a
    # loop running in this worker's main thread
    with ThreadPoolExecutor(1) as apart:
        assert apart.submit(asyncio.run, both()).result(timeout=120) == ["waiting", "stored"]
    assert tried == [(2, True), (2, False)]
    with db.reading(db_file) as con:
        assert db.rows(con, "select ew_level, ns_level from results where round = 2") == \
            [(13, 9)]
        assert db.scalar(con, "select count(*) from pending_reports where round = 2") == 2


def test_uvicorn_gets_streamlit_s_settings():
    """Under uvicorn Streamlit reads no STREAMLIT_* variables: the app sets them itself
    (the upload limit, no full garbage collection after every run of a page)."""
    probe = ("import dashboard.asgi; from streamlit import config; "
             "print(config.get_option('runner.postScriptGC'), "
             "config.get_option('server.maxUploadSize'))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env={**os.environ, "PAISAI_MAX_UPLOAD_MB": "7"}, timeout=120)
    assert done.stdout.split() == ["False", "7"], done.stderr[-2000:]


def test_the_server_fits_its_connection_limit_to_the_files_it_may_open():
    """Issue 42: a full hall (1,000 phones and 150 tables' sheets) needs more than 1,000
    connections; the server raises its open-files limit where allowed, else serves what the
    files it may open allow (a limit it cannot keep would fail the whole hall)."""
    import subprocess
    import sys

    def served(soft: int, hard: int) -> int:
        code = ("import resource; resource.setrlimit(resource.RLIMIT_NOFILE, "
                f"({soft}, {hard})); from dashboard.server import open_files; "
                "print(open_files(2500), resource.getrlimit(resource.RLIMIT_NOFILE)[0])")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True, timeout=60)
        return tuple(int(v) for v in done.stdout.split())

    assert served(600, 4000) == (2500, 3000)  # raised to fit
    assert served(600, 800) == (300, 800)  # the hard limit: fewer connections, never more
