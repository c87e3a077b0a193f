"""The projector's countdown in a real browser: it runs, then turns amber at the reminder."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from pipeline.cli import main
from tests.ui.conftest import Server, shot

pytestmark = pytest.mark.browser


def test_projector_header_counts_down_and_turns_to_the_reminder(tmp_path, page, capsys):
    database = tmp_path / "clock.duckdb"
    assert main(["event", "create", "--id", "c", "--name", "计时赛", "--ruleset", "suzhou-2025",
                 "--db", str(database)]) == 0
    assert main(["clock", "start", "--event", "c", "--db", str(database)]) == 0
    server = Server(database)
    try:
        page.goto(f"{server.url}/live?event=c&projector=1")
        clock = page.locator("[data-testid=clock]").first
        clock.wait_for(timeout=30_000)
        assert clock.get_attribute("data-state") == "running"
        first = re.search(r"(\d\d):(\d\d)", clock.inner_text()).group(0)
        page.wait_for_function(
            f"() => !document.querySelector('[data-testid=clock]').innerText.includes('{first}')",
            timeout=10_000)  # it counts down by the server's clock
        assert main(["clock", "add-minutes", "--event", "c", "-41", "--db", str(database)]) == 0
        page.wait_for_selector("[data-testid=clock][data-state=reminder]", timeout=15_000)
        assert "本副打完后不再发新牌" in page.locator("[data-testid=clock]").first.inner_text()
        shot(page, "clock-reminder")
        page.goto(f"{server.url}/clock?event=c")
        page.wait_for_selector("[data-testid=clock][data-state=reminder]", timeout=30_000)
        shot(page, "clock-page")
        # /clock hides the sidebar: its own switch to the other language, and back (#51)
        expect(page.locator("[data-testid=clock]").first).to_contain_text("第 1 轮")
        page.get_by_role("button", name="English").click()
        expect(page.locator("[data-testid=clock]").first).to_contain_text("Round 1",
                                                                          timeout=30_000)
        assert "lang=en" in page.url and "event=c" in page.url
        page.get_by_role("button", name="中文").click()
        expect(page.locator("[data-testid=clock]").first).to_contain_text("第 1 轮",
                                                                          timeout=30_000)
        page.goto(f"{server.url}/clock?event=c&projector=1")  # none on the projector itself
        page.wait_for_selector("[data-testid=clock][data-state=reminder]", timeout=30_000)
        expect(page.get_by_role("button", name="English")).to_have_count(0)
    finally:
        server.stop()
    capsys.readouterr()
