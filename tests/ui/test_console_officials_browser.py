"""The console per person (issue 43) in a real browser: each official signs in with their own
name and password and sees only their role's part — the desk the registration phase, the
chief arbiter the officials' phase with the queue of proposals, a referee a pointer to their
phone page."""

from __future__ import annotations

from playwright.sync_api import expect

from pipeline.cli import main
from tests.ui.conftest import Server, idle, shot


def _sign_in(browser, url: str, name: str):
    context = browser.new_context(viewport={"width": 1366, "height": 768}, locale="zh-CN")
    page = context.new_page()
    page.goto(f"{url}/admin?event=demo")
    page.get_by_label("姓名（组织者可留空）").fill(name)
    page.get_by_label("密码").fill(f"pass-{name}")
    page.get_by_role("button", name="登录").click()
    return context, page


def test_each_official_sees_their_part_of_the_console(tmp_path, browser):
    database = tmp_path / "demo.duckdb"
    args = ["--db", str(database)]
    assert main(["demo", *args]) == 0
    for name, role in (("报到甲", "desk"), ("裁判长", "chief"), ("裁判甲", "referee")):
        extra = ["--tables", "1-4"] if role == "referee" else []
        assert main(["officials", "add", name, "--role", role, "--password", f"pass-{name}",
                     *extra, *args]) == 0
    server = Server(database, env={"PAISAI_ADMIN_PASSWORD": "organizer-pw-1"})
    try:
        context, desk = _sign_in(browser, server.url, "报到甲")
        expect(desk.get_by_text("下一步").first).to_be_visible(timeout=60_000)
        idle(desk)
        phases = desk.locator("[data-testid=stButtonGroup] button")
        expect(phases).to_have_count(1, timeout=30_000)
        expect(phases.first).to_contain_text("赛前")
        context.close()
        context, chief = _sign_in(browser, server.url, "裁判长")
        expect(chief.get_by_text("裁判长：待裁定的提议")).to_be_visible(timeout=60_000)
        expect(chief.locator("[data-testid=stButtonGroup] button")).to_have_count(1)
        shot(chief, "console-chief")
        context.close()
        context, referee = _sign_in(browser, server.url, "裁判甲")
        expect(referee.get_by_text("在手机上工作")).to_be_visible(timeout=60_000)
        context.close()
    finally:
        server.stop()
