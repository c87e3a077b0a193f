"""`make run` on a fresh clone (issue 21): the demo day loaded by `paisai demo`, the dashboard
started with the Makefile's console password, and every page visited as a newcomer would —
no `?event=` — finding true content: the Guandan event in progress, its paired round and
running clock, the Tractor knockout, the past events and their players. The pictures taken
here are the organizer's guide's (docs/guide)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from pipeline.base import db
from tests.ui.conftest import Server, guide_shot

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
PAISAI = str(Path(sys.executable).parent / "paisai")  # the installed console script
WAIT = 60_000


def _makefile_password() -> str:
    """The console password `make run` gives the demo (PAISAI_ADMIN_PASSWORD unset)."""
    found = re.search(r'PAISAI_ADMIN_PASSWORD="\$\$\{PAISAI_ADMIN_PASSWORD:-([^}]+)\}"',
                      (ROOT / "Makefile").read_text(encoding="utf-8"))
    assert found, "make run must give the demo's console a password"
    return found.group(1)


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    database = tmp_path_factory.mktemp("first-run") / "paisai.duckdb"
    recipe = subprocess.run(["make", "-n", "run", f"DB={database}"], cwd=ROOT, text=True,
                            capture_output=True, check=True).stdout
    assert f"paisai demo --db {database}" in recipe  # what make run loads
    loaded = subprocess.run([PAISAI, "demo", "--db", str(database)], text=True,
                            capture_output=True)
    assert loaded.returncode == 0, loaded.stderr
    server = Server(database, env={"PAISAI_ADMIN_PASSWORD": _makefile_password()})
    yield server
    server.stop()


def test_live_opens_on_the_event_in_progress(first_run, page):
    page.goto(f"{first_run.url}/live")
    expect(page.locator("h1")).to_contain_text("演示赛：关务掼蛋春茗会", timeout=WAIT)
    expect(page.locator("table[data-testid=ranking] tbody tr")).to_have_count(16, timeout=WAIT)
    expect(page.locator("body")).to_contain_text("第 1 轮后 · 已报 8/8 桌", timeout=WAIT)
    guide_shot(page, "live")
    page.goto(f"{first_run.url}/live?projector=1")
    expect(page.locator("[data-testid=clock]")).to_contain_text("第 2 轮", timeout=WAIT)
    expect(page.locator("table[data-testid=ranking] tbody tr")).to_have_count(16, timeout=WAIT)
    guide_shot(page, "live-projector")


def test_pairings_show_the_round_being_played(first_run, page):
    page.goto(f"{first_run.url}/pairings")
    expect(page.locator("h1")).to_contain_text("第 2 轮", timeout=WAIT)
    expect(page.locator("table[data-testid=pairings] tbody tr")).to_have_count(8, timeout=WAIT)
    expect(page.locator("body")).to_contain_text("未报：第 1、2、3、4、5、6、7、8 桌",
                                                 timeout=WAIT)
    guide_shot(page, "pairings")


def test_clock_is_running(first_run, page):
    page.goto(f"{first_run.url}/clock")
    clock = page.locator("[data-testid=clock]")
    expect(clock).to_contain_text("第 2 轮", timeout=WAIT)
    expect(clock).to_have_attribute("data-state", "running", timeout=WAIT)
    # started 12 minutes before the demo was loaded: at most 33 of 45 minutes are left
    expect(clock).to_contain_text(re.compile(r"\b([0-2]\d|3[0-3]):\d\d\b"), timeout=WAIT)
    guide_shot(page, "clock")


def test_bracket_opens_on_the_tractor_knockout(first_run, page):
    page.goto(f"{first_run.url}/bracket?projector=1")
    expect(page.locator("h1")).to_contain_text("演示：工会拖拉机友谊赛", timeout=WAIT)
    for group in ("A组", "B组", "C组"):
        expect(page.locator(f"table[data-testid='group-{group}'] tbody tr")).to_have_count(
            4, timeout=WAIT)
    tree = page.locator("[data-testid=knockout]")
    expect(tree).to_contain_text("1/4决赛", timeout=WAIT)
    expect(tree).to_contain_text("半决赛", timeout=WAIT)
    expect(tree).to_contain_text("过A", timeout=WAIT)
    expect(tree).not_to_contain_text("15")  # levels as organizers write them
    with db.reading(first_run.database) as con:
        name = db.scalar(con, "select team_name from teams where event_id = 'demo-tractor' "
                              "and team_no = 'T1'")
    expect(tree).to_contain_text(f"{name} T1", timeout=WAIT)  # the projector: names first
    size = tree.locator(".slot").first.evaluate("c => parseFloat(getComputedStyle(c).fontSize)")
    assert size >= 30  # read from the back of a hall
    page.set_viewport_size({"width": 1400, "height": 1500})  # groups and the tree in one
    guide_shot(page, "bracket-projector")


def test_history_opens_with_events_and_players(first_run, page):
    page.goto(f"{first_run.url}/history")
    recent = page.locator("table[data-testid=recent-events]")
    expect(recent.locator("tbody tr")).to_have_count(5, timeout=WAIT)
    for name in ("演示：春季商会掼蛋联赛", "演示：职工运动会掼蛋比赛", "演示：金秋城市掼蛋公开赛",
                 "演示：工会拖拉机友谊赛"):
        expect(recent).to_contain_text(name, timeout=WAIT)
    expect(page.locator("table[data-testid=top-players] tbody tr")).to_have_count(10, timeout=WAIT)
    guide_shot(page, "history", full_page=True)


def test_admin_opens_on_the_round_in_progress(first_run, page):
    page.goto(f"{first_run.url}/admin")
    page.get_by_label("密码").fill(_makefile_password())
    page.get_by_role("button", name="登录").click()
    body = page.locator("body")
    expect(body).to_contain_text("已报", timeout=WAIT)
    expect(page.locator("[data-testid=stMetric]").nth(1)).to_contain_text("0/8", timeout=WAIT)
    expect(body).to_contain_text("未报：第 1、2、3、4、5、6、7、8 桌", timeout=WAIT)
    guide_shot(page, "console")
