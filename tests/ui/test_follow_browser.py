"""A sheet that follows its table never loses the answer to its own form (CI, 2026-12-05): the
sheet asks the table's mark every few seconds and reads itself again when it changed; a mark
asked just before a tap and answered while the tap's form is on its way carries the change
that form made — the page must wait for the form's answer (its message) instead of reading
itself again without it. The race is made certain here: the mark's answer is held until the
form is sent, and the form is held until the mark has answered."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from pipeline.day import selfreport
from tests.ui.conftest import sheet_phone

pytestmark = pytest.mark.browser
WAIT = 30_000


def test_a_mark_changed_by_the_sheets_own_form_keeps_the_forms_answer(jinling_hall, browser):
    row = selfreport.links(jinling_hall.database, "e", 1, jinling_hall.url).row(0, named=True)
    south = sheet_phone(browser, row["ns_url"].replace("/r?", "/t?"), row["ns_code"])
    south.locator("select[name=winner]").select_option("ew")
    south.locator("select[name=finish]").select_option("2")
    south.get_by_role("button", name="记录第 1 副").click()
    expect(south.locator("[data-testid=levels]")).to_contain_text("已记 1 副", timeout=WAIT)
    east = sheet_phone(browser, row["ew_url"].replace("/r?", "/t?"), row["ew_code"])
    held: list = []
    east.route(re.compile(r".*/t/mark\?.*"), lambda route: held.append(route))
    # a mark asked by the open page (every 3 s), not answered yet
    east.wait_for_event("request", lambda request: "/t/mark" in request.url, timeout=WAIT)

    def send_after_the_mark(route):
        if route.request.method == "POST":  # the table changed (by this very form): it says so
            for mark in held:
                mark.fulfill(status=200, body="changed", content_type="text/plain")
            held.clear()
        route.continue_()

    east.route(re.compile(r".*/t\?.*"), send_after_the_mark)
    # a tap on a form with nothing typed in it: the page would read itself again at once
    east.locator("[data-testid=answer-1]").get_by_role("button", name="确认 1").click()
    expect(east.locator("[data-testid=answer-1]")).to_have_count(0, timeout=WAIT)
    expect(east.locator("[data-testid=message]")).to_be_visible(timeout=WAIT)
