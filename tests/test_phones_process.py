"""The phones' process (issue 53, `dashboard.phones`): the real `paisai dashboard` on a real
DuckDB file, the phones on its phones' port. It answers the event's pages from memory,
follows a stored result without a restart, passes a table's report to the hall's process
(stored), sends a phone from /live to it, and stops with the server (no orphan)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from conftest import RESULT_HEADER, descendants, write_csv

from pipeline.operations.phones import phones_port_for, trusting_loopback
from pipeline.operations.serve import free_port, hall_greeting

PAISAI = str(Path(sys.executable).parent / "paisai")
PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148"


@pytest.fixture
def hall(cli, round_two_paired, tmp_path, db_file):
    from tests.ui.conftest import Server

    server = Server(db_file, args=["--phones-port", str(free_port())])
    yield server
    server.stop()


def _wait_for(get, wanted: str, seconds: float = 60) -> httpx.Response:
    deadline = time.monotonic() + seconds
    while True:
        answer = get()
        if wanted in answer.text or time.monotonic() > deadline:
            return answer
        time.sleep(0.5)


def test_the_phones_process_answers_pages_and_follows_a_stored_result(hall, db_file, tmp_path):
    assert hall.phones_port != hall.port  # a port of its own
    phones = httpx.Client(base_url=hall.phones_url, timeout=60)
    first = phones.get("/m/e/", headers={"accept-encoding": "gzip"})
    assert first.status_code == 200 and "A1" in first.text and "第 1 轮后" in first.text
    assert (
        first.headers["etag"] and "default-src 'none'" in first.headers["content-security-policy"]
    )
    again = _wait_for(lambda: phones.get("/m/e/teams/A1"), "A1")
    assert again.status_code == 200
    kept = phones.get("/m/e/", headers={"if-none-match": first.headers["etag"]})
    assert kept.status_code == 304 and kept.headers["etag"] == first.headers["etag"]
    assert phones.get("/m/style.css").headers["content-type"].startswith("text/css")
    assert phones.get("/m/nothing/").status_code == 404  # no such event: the hall's 404
    # the hall's own port still answers the addresses printed before (links already out)
    assert httpx.get(f"{hall.url}/m/e/", timeout=60).status_code == 200
    # round 2 stored by the organizer's CLI: the phones see it without any restart
    rows = [RESULT_HEADER] + [
        [2, p["table"], p["ew_team"], p["ns_team"], "10", "8"]
        for p in _links(db_file, "--base-url", hall.phones_url)
    ]
    stored = subprocess.run(
        [
            PAISAI,
            "ingest",
            "--event",
            "e",
            "--db",
            str(db_file),
            str(write_csv(tmp_path / "r2.csv", rows)),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert stored.returncode == 0, stored.stderr
    shown = _wait_for(lambda: phones.get("/m/e/"), "第 2 轮后")
    assert "第 2 轮后" in shown.text
    assert (
        phones.get("/m/e/", headers={"if-none-match": first.headers["etag"]}).status_code == 200
    )  # a new page, a new ETag


def _links(db_file: Path, *base_url: str) -> list[dict]:
    """Round 2's signed links as `paisai links` prints them (beside the running hall)."""
    found = subprocess.run(
        [
            PAISAI,
            "links",
            "--event",
            "e",
            "--round",
            "2",
            "--format",
            "json",
            "--db",
            str(db_file),
            *base_url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert found.returncode == 0, found.stderr
    return json.loads(found.stdout)


def test_a_table_s_report_goes_through_the_phones_port_and_is_stored(hall, db_file):
    from pipeline.operations.serve import lan_addresses

    if lan_addresses():  # printed for the phones' port (without a LAN address: --base-url)
        assert f":{hall.phones_port}/r?" in _links(db_file)[0]["ew_url"]
    row = _links(db_file, "--base-url", hall.phones_url)[0]
    phones = httpx.Client(base_url=hall.phones_url, timeout=60, follow_redirects=False)
    said = []
    for side in ("ew", "ns"):
        path = "/" + row[f"{side}_url"].split("/", 3)[3]
        form = phones.get(path)
        assert form.status_code == 200 and "<form method='post'" in form.text
        assert "no-store" in form.headers["cache-control"]
        said.append(
            phones.post(
                path, data={"ew_level": "K", "ns_level": "9", "code": row[f"{side}_code"]}
            ).text
        )
    assert "已提交，等待对方确认" in said[0] and "双方一致，成绩已保存" in said[1]
    bad = phones.post(path.replace("table=1", "table=2"), data={"ew_level": "9"})
    assert bad.status_code == 403  # the hall's own answer, its status passed on
    hall.stop()  # the database is the hall's while it runs: read after
    stored = subprocess.run(
        [
            sys.executable,
            "-c",
            "import duckdb, sys; print(duckdb.connect(sys.argv[1], "
            "read_only=True).execute('select ew_level, ns_level from results where round = 2 "
            "and table_no = ?', [int(sys.argv[2])]).fetchall())",
            str(db_file),
            str(row["table"]),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert stored.stdout.strip() == "[(13, 9)]", stored.stderr


def test_a_phone_on_live_is_sent_to_the_phones_port(hall):
    answer = httpx.get(f"{hall.url}/live?event=e", headers={"user-agent": PHONE}, timeout=60)
    assert answer.status_code == 303
    assert answer.headers["location"] == f"{hall.phones_url}/m/e/"


def test_the_phones_process_stops_with_the_server(cli, event16, tmp_path, db_file):
    from tests.ui.conftest import Server

    server = Server(db_file, args=["--phones-port", str(free_port())])
    try:
        running = descendants(server.process.pid)
        phones = [pid for pid, command in running if "dashboard.phones.server" in command]
        halls = [pid for pid, command in running if "dashboard.server" in command]
        assert len(phones) == 1 and len(halls) == 1
    finally:
        server.stop()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(phones[0]):
        time.sleep(0.2)
    assert not _alive(phones[0]) and not _alive(halls[0])


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_the_phones_port_and_what_the_hall_prints(monkeypatch):
    assert phones_port_for("127.0.0.1", 8501, 0) is None  # none: the phones on 8501
    assert phones_port_for("127.0.0.1", 8501, None) is None  # (the default: measured)
    assert phones_port_for("127.0.0.1", 8501, 9000) == 9000
    assert trusting_loopback("") == "127.0.0.1"
    greeting = hall_greeting(8501, 8502)
    if "warning" not in greeting:  # a machine with a LAN address
        assert ":8502/m/" in greeting and ":8501/admin" in greeting
    assert os.environ.get("PAISAI_PHONES_PORT") is None


def test_the_phones_port_is_guarded_as_the_hall_s(hall):
    """httptools' parser there (`dashboard.fastguard`) with the hall's guards: a connection
    that never finishes its headers is closed, a malformed request is a 400 with the
    security headers."""
    import socket

    from dashboard.guards import HEADER_SECONDS

    port = hall.phones_port
    with socket.create_connection(("127.0.0.1", port), timeout=HEADER_SECONDS + 20) as slow:
        slow.sendall(b"GET /m/e/ HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
        assert slow.recv(100) == b""  # closed by the server, not by this timeout
    with socket.create_connection(("127.0.0.1", port), timeout=30) as raw:
        raw.sendall(b"GET /a b\x01c HTTP/1.1\r\nHost: x\r\n\r\n")
        malformed = raw.recv(4096).decode("latin-1").lower()
    assert malformed.startswith("http/1.1 400") and "x-content-type-options: nosniff" in malformed


def test_a_page_fetched_for_a_version_since_replaced_is_not_kept():
    from dashboard.phones.keep import Kept, Page

    kept = Kept()
    page = Page.of([(b"ETag", b'"1"'), (b"Content-Type", b"text/html")], b"old")
    assert page is not None and (b"content-length", b"3") in page.headers
    assert kept.get("e", "v2", ("/m/e/",)) is None  # v2 asked: the event's pages are v2's
    kept.put("e", "v1", ("/m/e/",), page)  # a slow fetch of v1 arrives after
    assert kept.get("e", "v2", ("/m/e/",)) is None
    kept.put("e", "v2", ("/m/e/",), page)
    assert kept.get("e", "v2", ("/m/e/",)) is page
    assert Page.of([(b"ETag", b'"1"'), (b"Cache-Control", b"no-store")], b"x") is None
    assert Page.of([(b"Content-Type", b"text/html")], b"x") is None  # no ETag: not kept
