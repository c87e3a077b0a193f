"""The console's login in a real browser (issue 37): the session's cookie is HttpOnly (no
script on the page reads it), carries nothing derived from the password, and a logout holds
after the server restarts."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.ui.conftest import Server, console

PASSWORD = "hall-Pw-7"


def test_a_login_is_an_http_only_random_session_that_a_logout_ends_for_good(tmp_path,
                                                                               browser,
                                                                               demo_day):
    database = tmp_path / "demo.duckdb"
    demo_day(database, command=True)
    server = Server(database, env={"PAISAI_ADMIN_PASSWORD": PASSWORD})
    context = browser.new_context(viewport={"width": 1366, "height": 768}, locale="zh-CN")
    page = context.new_page()
    try:
        console(page, server.url, "demo", PASSWORD)

        def kept():
            return [c for c in context.cookies() if c["name"] == "paisai_admin"]

        for _ in range(300):  # the page swaps its one-time grant for the cookie
            if kept():
                break
            page.wait_for_timeout(100)
        cookie = kept()[0]
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
        assert PASSWORD not in cookie["value"] and len(cookie["value"]) >= 40
        assert "paisai_admin" not in page.evaluate("document.cookie")  # no script sees it
        page.reload()  # the cookie keeps the login
        expect(page.get_by_text("下一步").first).to_be_visible(timeout=60_000)
        assert page.get_by_label("密码").count() == 0
        page.get_by_role("button", name="退出登录").click()
        expect(page.get_by_label("密码")).to_be_visible(timeout=30_000)
        server.stop()  # a restart: nothing the server kept in memory survives
        server = Server(database, env={"PAISAI_ADMIN_PASSWORD": PASSWORD})
        # the old token, as someone who copied it would send it
        context.add_cookies([{"name": cookie["name"], "value": cookie["value"],
                              "url": server.url}])
        page.goto(f"{server.url}/admin?event=demo")
        expect(page.get_by_label("密码")).to_be_visible(timeout=60_000)  # it opens nothing
    finally:
        context.close()
        server.stop()
