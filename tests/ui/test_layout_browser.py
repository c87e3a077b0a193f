"""Every public page at a laptop's, a projector's and a phone's size (issue 29): no two boxes
overlap, no table column is narrower than two characters, nothing is wider than the screen
without scrolling in its own box, and the clock keeps each of its parts on one line. The
screenshots are kept in tests/artifacts/layout for a person to look at."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.ui.conftest import ARTIFACTS, Server, idle

pytestmark = pytest.mark.browser
SIZES = {"laptop": (1366, 768), "projector": (1920, 1080), "phone": (390, 844),
         "small-phone": (360, 740)}
PAGES = ["live", "pairings", "bracket", "history", "clock"]

MEASURE = """() => {
  const seen = (e) => { const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(e).display !== 'none'; };
  const out = {narrow: [], overlaps: [], wide: [], clock: []};
  const width = document.documentElement.clientWidth;
  for (const cell of document.querySelectorAll('table.paisai th')) {
    if (!seen(cell)) continue;
    const size = parseFloat(getComputedStyle(cell).fontSize);
    if (cell.getBoundingClientRect().width < 2 * size)
      out.narrow.push(cell.innerText + ' ' + cell.getBoundingClientRect().width);
  }
  const boxes = [...document.querySelectorAll('.paisai-wrap, [data-testid=clock], h1')]
    .filter(seen).map(e => [e, e.getBoundingClientRect()]);
  for (let i = 0; i < boxes.length; i++) {
    const [e, r] = boxes[i];
    if (r.right > width + 1) out.wide.push(e.tagName + ' ' + r.right);
    for (let j = i + 1; j < boxes.length; j++) {
      const [f, s] = boxes[j];
      if (e.contains(f) || f.contains(e)) continue;
      const across = Math.min(r.right, s.right) - Math.max(r.left, s.left);
      const down = Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top);
      if (across > 1 && down > 1) out.overlaps.push(e.innerText.slice(0, 20) + ' / '
                                                   + f.innerText.slice(0, 20));
    }
  }
  for (const part of document.querySelectorAll('[data-testid=clock] > span')) {
    const size = parseFloat(getComputedStyle(part).fontSize);
    const r = part.getBoundingClientRect();
    if (part.innerText.trim() && (r.height > 1.6 * size || r.right > width + 1))
      out.clock.push(part.innerText + ' ' + r.height + ' ' + size);
  }
  return out;
}"""


@pytest.fixture(scope="module")
def demo_server(tmp_path_factory, demo_day):
    database = tmp_path_factory.mktemp("layout") / "demo.duckdb"
    demo_day(database)  # the day simulated once per test process; `paisai demo` still runs
    exe = Path(sys.executable).parent / "paisai"
    done = subprocess.run([str(exe), "demo", "--db", str(database)], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    folder = database.parent / "big"  # forty teams, one round played: the projector pages
    for args in (["simulate", "--teams", "40", "--rounds", "1", "--out", str(folder)],
                 ["event", "create", "--id", "big", "--name", "四十队赛", "--ruleset",
                  "suzhou-2025"],
                 ["ingest", "--event", "big", str(folder / "entries.csv"),
                  str(folder / "round-1.csv")]):
        done = subprocess.run([str(exe), *args, "--db", str(database)]
                              if args[0] != "simulate" else [str(exe), *args],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    server = Server(database)
    yield server
    server.stop()


@pytest.mark.parametrize("size", list(SIZES))
def test_pages_fit_every_screen(demo_server, browser, size):
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height},
                                  locale="zh-CN")
    page = context.new_page()
    folder = ARTIFACTS / "layout"
    folder.mkdir(parents=True, exist_ok=True)
    problems = {}
    for name in PAGES:
        query = "?projector=1" if size == "projector" else ""
        page.goto(f"{demo_server.url}/{name}{query}")
        marker = "[data-testid=clock]" if name == "clock" else (
            "h1" if name == "history" else "table.paisai")
        page.locator(marker).first.wait_for(timeout=60_000)
        idle(page)
        page.screenshot(path=str(folder / f"{size}-{name}.png"))
        found = page.evaluate(MEASURE)
        found = {k: v for k, v in found.items() if v}
        if found:
            problems[name] = found
    context.close()
    assert not problems, problems


def test_the_projector_ranking_fits_twenty_rows_and_large_progress(demo_server, browser):
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    page.goto(f"{demo_server.url}/live?event=big&projector=1")
    page.locator("table[data-testid=ranking] tbody tr").first.wait_for(timeout=60_000)
    idle(page)
    rows = page.locator("table[data-testid=ranking] tbody tr")
    assert rows.count() == 20  # a page of the forty
    size = page.locator("table[data-testid=ranking] td").first.evaluate(
        "c => parseFloat(getComputedStyle(c).fontSize)")
    assert size >= 28  # read from the back of the hall
    last = rows.nth(rows.count() - 1).bounding_box()
    assert last["y"] + last["height"] <= 1080, "the last row of the page is below the fold"
    progress = page.locator("[data-testid=progress]")
    assert float(progress.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")) >= 24
    assert page.get_by_text("查找我的座位").count() == 0
    context.close()


def test_a_phone_finds_its_table_and_its_team_on_the_plain_pages(demo_server, browser):
    """The phones' pages (no Streamlit session): the ranking, find-my-table by a plain form,
    a team's page by its link — at 360 px, nothing wider than the screen."""
    context = browser.new_context(viewport={"width": 360, "height": 740},
                                  java_script_enabled=False)  # they work without JavaScript
    page = context.new_page()
    page.goto(f"{demo_server.url}/m/demo/")
    first = page.locator("table tbody tr").first
    team = first.locator("td").nth(1).inner_text().strip()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 361
    assert page.get_by_text("查找我的座位").count() == 0  # the ranking has no search box
    page.get_by_role("link", name="对阵").click()
    page.get_by_label("查找我的座位（队号、队名或姓名）").fill(team)
    page.get_by_role("button", name="查找").click()
    found = page.locator("table tbody tr")
    assert found.count() == 1 and team in found.first.inner_text()
    page.goto(f"{demo_server.url}/m/demo/")
    page.get_by_role("link", name=team, exact=True).click()
    assert "号桌" in page.inner_text("body") and "名次" in page.inner_text("body")
    page.screenshot(path=str(ARTIFACTS / "layout" / "phone-plain-team.png"))
    context.close()


def test_every_phone_page_fits_360_pixels_in_both_languages(demo_server, browser):
    """Issue 39: no sideways scroll on a 360-px phone, in Chinese or in English."""
    context = browser.new_context(viewport={"width": 360, "height": 740},
                                  java_script_enabled=False)
    page = context.new_page()
    try:
        for path in ("/m/demo/", "/m/demo/pairings", "/m/demo/teams/A6",
                     "/m/demo-tractor/bracket"):
            for suffix in ("", "?lang=en"):
                page.goto(f"{demo_server.url}{path}{suffix}")
                page.locator("h1").wait_for(timeout=30_000)
                width = page.evaluate("() => document.documentElement.scrollWidth")
                assert width <= 361, (path, suffix, width)
    finally:
        context.close()
