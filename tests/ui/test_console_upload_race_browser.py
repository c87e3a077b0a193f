"""Issue 53: a file chosen while the console redraws itself for the hall is never lost. The
hall changes the event (a phone's report, stored through the phones' own route) and the file
is chosen at the very moment a run of the console begins — the browser itself gives it, as
the page's script state turns to running — again and again: every file is uploaded and its
preview shown. On the round's phase the page is never drawn again as a whole for the hall:
the status, the waiting reports and the clock redraw themselves (fragments), and a fragment's
run leaves the file box and its pending upload alone (a whole redraw once dropped one, and
the console stayed stuck)."""

from __future__ import annotations

import urllib.parse
import urllib.request

import polars as pl
import pytest
from playwright.sync_api import expect

from pipeline.base import db
from pipeline.day import selfreport
from pipeline.ranking import rounds
from tests.ui.conftest import Server, console, idle

pytestmark = pytest.mark.browser
PASSWORD = "race-pw"
CHOICES = 3

# Chooses the file in the browser at the start of the page's next run (a fragment's, here):
# the file input is given the file as a person's choice gives it, within the same task as the
# script state's change, so the upload always starts while that run is under way.
CHOOSE_AT_NEXT_RUN = """([name, text]) => new Promise(resolve => {
  const app = document.querySelector('[data-testid=stApp]');
  const observer = new MutationObserver(() => {
    if (app.dataset.testScriptState !== 'running') return;
    observer.disconnect();
    const input = document.querySelector('[data-testid=stFileUploader] input[type=file]');
    const files = new DataTransfer();
    files.items.add(new File([text], name, {type: 'text/csv'}));
    input.files = files.files;
    input.dispatchEvent(new Event('change', {bubbles: true}));
    resolve(app.dataset.testScriptState);
  });
  observer.observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
})"""


def _report(url: str, code: str, ew: str, ns: str) -> str:
    """One side's report through the phones' route (POST of the signed link's form)."""
    form = urllib.parse.urlencode({"ew_level": ew, "ns_level": ns, "code": code}).encode()
    with urllib.request.urlopen(urllib.request.Request(url, data=form), timeout=30) as answer:
        return answer.read().decode("utf-8")


def test_a_file_chosen_while_the_hall_redraws_the_console_is_never_lost(tmp_path, browser,
                                                                        demo_day):
    database = tmp_path / "demo.duckdb"
    demo_day(database)  # round 2 paired, its clock counting (a timer every second)
    server = Server(database, env={"PAISAI_ADMIN_PASSWORD": PASSWORD})
    context = browser.new_context(viewport={"width": 1366, "height": 900}, locale="zh-CN")
    page = context.new_page()
    uploads: list[str] = []
    page.on("request", lambda r: uploads.append(r.url) if r.method == "PUT"
            and "/_stcore/upload_file/" in r.url else None)
    try:
        console(page, server.url, "demo", PASSWORD, phase="本轮")
        with db.reading(database) as con:
            pairs = rounds.pairings(con, "demo", 2).filter(pl.col("ns_team").is_not_null())
        assert pairs.height > CHOICES
        links = selfreport.links(database, "demo", 2, server.phones_url)
        first = pairs.row(0, named=True)
        sheet = ("轮次,桌号,东西队号,南北队号,东西级数,南北级数\n"
                 f"2,{first['table']},{first['ew_team']},{first['ns_team']},A,9\n")
        waiting = page.get_by_text("待确认的桌报", exact=False).first
        expect(waiting).to_contain_text("待确认的桌报: 0", timeout=30_000)
        for n in range(CHOICES):
            # the hall changes the event: another table's two phones report results that
            # disagree — a banner with its buttons grows on top of the console
            table = links.filter(pl.col("table") == pairs.row(n + 1, named=True)["table"]) \
                .row(0, named=True)
            for side, ns in (("ew", "9"), ("ns", "10")):
                said = _report(table[f"{side}_url"], table[f"{side}_code"], "K", ns)
                assert "已提交" in said or "不一致" in said, said
            name = f"第2轮-{n + 1}.csv"
            state = page.evaluate(CHOOSE_AT_NEXT_RUN, [name, sheet])
            assert state == "running"  # chosen while a run of the console was under way
            expect(page.get_by_text(name, exact=True).first).to_be_visible(timeout=30_000)
            expect(page.locator("table[data-testid=preview]")).to_have_count(1, timeout=30_000)
            confirm = page.get_by_role("button", name="确认导入")
            expect(confirm).to_be_visible(timeout=30_000)
            assert len(uploads) == n + 1, uploads
            # the status and the waiting reports follow the hall by themselves meanwhile
            expect(waiting).to_contain_text(f"待确认的桌报: {2 * (n + 1)}", timeout=30_000)
            idle(page)
            confirm.click()  # stored: the file box is empty again for the next choice
            expect(page.locator("body")).to_contain_text(f"已导入: {name}", timeout=30_000)
            expect(page.locator("table[data-testid=preview]")).to_have_count(0, timeout=30_000)
        expect(page.locator("[data-testid=stMetric]").nth(2)).to_contain_text(
            str(2 * CHOICES), timeout=30_000)
    finally:
        context.close()
        server.stop()
