"""The published static site, served by `python -m http.server` on loopback, on a phone."""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request

import pytest

from pipeline.operations.serve import free_port
from pipeline.publishing.publish import publish, team_file
from tests.ui.conftest import shot

pytestmark = pytest.mark.browser


def test_static_site_on_a_phone(tmp_path, browser, demo_day):
    database = tmp_path / "demo.duckdb"
    demo_day(database)
    site = tmp_path / "site"
    changed = publish(database, "demo", site, base_url="http://127.0.0.1/")
    assert {"index.html", "pairings.html", "teams.html", "qr.html", "standings.json",
            team_file("A1")} <= set(changed)
    assert publish(database, "demo", site, base_url="http://127.0.0.1/") == []  # unchanged
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind",
                               "127.0.0.1", "--directory", str(site)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(50):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/index.html", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{port}/index.html")
        rows = page.locator("tbody tr")
        assert rows.count() == 16
        first_team = rows.first.locator("td").nth(1).inner_text()
        rows.first.locator("a").click()
        page.wait_for_load_state()
        body = page.inner_text("body")
        assert first_team in body and "号桌" in body and "名次" in body
        shot(page, "site-team")
        page.goto(f"http://127.0.0.1:{port}/pairings.html")
        assert page.locator("tbody tr").count() == 8
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 420  # fits the phone without sideways scrolling
        context.close()
    finally:
        server.terminate()
        server.wait(10)
