"""The organizer console in a real browser, with the projector open in a second page."""

from __future__ import annotations

import re
import time

import pytest
from conftest import RESULT_HEADER, entries, read_csv_output, write_csv
from playwright.sync_api import expect

from pipeline.base import db
from pipeline.cli import main
from pipeline.ranking import rounds
from tests.ui.conftest import ARTIFACTS, Server, console, guide_shot, idle, open_phase, shot

pytestmark = pytest.mark.browser
PASSWORD = "s3cret-牌赛"


@pytest.fixture
def event_server(tmp_path, capsys):
    database = tmp_path / "console.duckdb"
    assert main(["event", "create", "--id", "big", "--name", "六十队大赛", "--ruleset",
                 "suzhou-2025", "--db", str(database)]) == 0
    assert main(["ingest", "--event", "big", str(write_csv(tmp_path / "e.csv", entries(60))),
                 "--db", str(database)]) == 0
    assert main(["pair", "--event", "big", "--db", str(database)]) == 0
    capsys.readouterr()
    server = Server(database, env={"PAISAI_ADMIN_PASSWORD": PASSWORD})
    yield server
    server.stop()


def _login(page, url):
    """The console on its 本轮 phase (score sheets are uploaded there)."""
    console(page, url, "big", PASSWORD, phase="本轮")
    page.wait_for_selector("input[type=file]", state="attached", timeout=60_000)
    idle(page)


def _upload(page, path, selector: str, phase: str | None = "本轮") -> None:
    """Give the uploader a file and wait for what it shows. A file lost with a rerun (the
    uploader's part of the page and the server's log are kept for the reading) is given
    again; the second time after reloading the console, as an organizer would, on `phase`."""
    seen = []
    for attempt in range(3):
        idle(page)  # a file given while the page's script runs can be lost with the run
        page.set_input_files("input[type=file]", str(path))
        try:
            page.locator(selector).first.wait_for(timeout=30_000)
            return
        except Exception:
            page.locator("[data-testid=stFileUploader]").first.scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / f"upload-wait-{attempt}.png"))
            seen.append(page.inner_text("body")[-1500:])
            if attempt == 2:
                raise AssertionError(f"{selector} never shown; the page said:\n"
                                     + "\n---\n".join(seen)) from None
            if attempt == 1:
                page.reload()
                page.get_by_text("下一步").first.wait_for(timeout=60_000)
                if phase:
                    open_phase(page, phase)
                page.wait_for_selector("input[type=file]", state="attached", timeout=60_000)


def _first_row(page):
    page.wait_for_selector("table[data-testid=ranking] tbody tr", timeout=30_000)
    return page.locator("table[data-testid=ranking] tbody tr").first.evaluate(
        "r => Array.from(r.cells).map(c => c.innerText.trim())")


def test_upload_updates_the_projector_without_reload(event_server, browser, tmp_path):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    live, admin = context.new_page(), context.new_page()
    live.goto(f"{event_server.url}/live?event=big")  # unpaged: the first row is rank 1
    # no result yet: the round's tables, never a ranking of zeros (issue 39)
    expect(live.locator("table[data-testid=pairings]")).to_be_visible(timeout=60_000)
    expect(live.locator("[data-testid=progress]")).to_contain_text("第 1 轮对阵",
                                                                   timeout=30_000)
    _login(admin, event_server.url)
    # a sheet with an error first: shown as a table, nothing stored
    bad = write_csv(tmp_path / "bad.csv", [RESULT_HEADER, [1, 1, "A1", "A2", "16", "9"]])
    _upload(admin, bad, "table[data-testid=problems]")
    expect(admin.locator("body")).to_contain_text("有错误，未导入任何内容", timeout=30_000)
    expect(admin.locator("table[data-testid=problems]")).to_contain_text("不是有效的级数",
                                                                          timeout=30_000)
    shot(admin, "admin-errors")
    guide_shot(admin.locator("table[data-testid=problems]"), "upload-errors")
    expect(live.locator("table[data-testid=pairings]")).to_be_visible()  # nothing stored
    # then the real round 1 sheet: preview, confirm
    good = write_csv(tmp_path / "r1.csv", [RESULT_HEADER] + [
        [1, t, f"A{2 * t - 1}", f"A{2 * t}", "过A" if t == 30 else "10", "8"]
        for t in range(1, 31)])
    _upload(admin, good, "button:has-text('确认导入')")
    admin.get_by_role("button", name="确认导入").click()
    expect(admin.locator("body")).to_contain_text("已导入: r1.csv", timeout=60_000)
    shot(admin, "admin-stored")
    started = time.monotonic()
    live.wait_for_function(
        "() => { const r = document.querySelector('table[data-testid=ranking] tbody tr');"
        " return r && r.cells[1].innerText.trim() === 'A59'; }", timeout=10_000)
    assert time.monotonic() - started < 10
    assert _first_row(live)[7] == "3"
    shot(live, "live-after-upload")
    context.close()


def test_projector_pages_through_sixty_teams(event_server, page, tmp_path):
    results = write_csv(tmp_path / "r1.csv", [RESULT_HEADER] + [
        [1, t, f"A{2 * t - 1}", f"A{2 * t}", "10", "8"] for t in range(1, 31)])
    assert main(["ingest", "--event", "big", str(results), "--db",
                 str(event_server.database)]) == 0  # a ranking (before: the round's tables)
    page.goto(f"{event_server.url}/live?event=big&projector=1")
    _first_row(page)
    expect(page.locator("[data-testid=stSidebar]")).not_to_be_visible(timeout=30_000)
    expect(page.locator("table[data-testid=ranking] tbody tr")).to_have_count(20, timeout=30_000)
    first = re.search(r"第 (\d)/3 页", page.inner_text("body")).group(1)
    page.wait_for_function(
        f"() => !document.body.innerText.includes('第 {first}/3 页')", timeout=25_000)
    expect(page.locator("table[data-testid=ranking] tbody tr")).to_have_count(20, timeout=30_000)
    shot(page, "live-projector-paged")


def test_self_report_accepted_appears_in_the_ranking(event_server, browser):
    context = browser.new_context(viewport={"width": 390, "height": 844})  # a phone
    admin = context.new_page()
    admin.set_viewport_size({"width": 1400, "height": 1000})
    _login(admin, event_server.url)
    with db.reading(event_server.database) as con:
        assert rounds.latest_paired_round(con, "big") == 1
    from pipeline.day.selfreport import links

    url = links(event_server.database, "big", 1, event_server.url)["url"][4]  # table 5
    phone = context.new_page()
    phone.goto(url)  # a plain form: no Streamlit session on the phone
    phone.wait_for_selector("text=第 1 轮 5 号桌报成绩", timeout=30_000)
    phone.get_by_label("东西 A9").select_option("过A")
    phone.get_by_label("南北 A10").select_option("Q")
    phone.get_by_role("button", name="提交").click()
    phone.wait_for_selector("text=已提交，等待裁判确认", timeout=15_000)
    shot(phone, "self-report-phone")
    guide_shot(phone, "self-report-phone")
    forged = phone.url.replace("table=5", "table=6")
    phone.goto(forged)
    phone.wait_for_selector("text=链接无效", timeout=30_000)

    _login(admin, event_server.url)  # the login kept by the browser: no password again
    admin.wait_for_selector("text=待确认的桌报: 1", timeout=30_000)
    admin.get_by_role("button", name="接受").click()
    expect(admin.locator("body")).to_contain_text("待确认的桌报: 0", timeout=30_000)
    live = context.new_page()
    live.set_viewport_size({"width": 1400, "height": 1000})
    live.goto(f"{event_server.url}/live?event=big")
    assert _first_row(live)[1] == "A9"  # the only result: A9 passed A against Q
    context.close()


def test_console_without_password_does_nothing(tmp_path, page):
    database = tmp_path / "nopw.duckdb"
    assert main(["events", "--db", str(database)]) == 0
    server = Server(database, env={"PAISAI_ADMIN_PASSWORD": ""})
    try:
        page.goto(f"{server.url}/admin")
        page.wait_for_selector("text=PAISAI_ADMIN_PASSWORD", timeout=30_000)
        assert page.locator("input[type=password]").count() == 0
    finally:
        server.stop()


def test_standings_match_after_console_upload(event_server, capsys, tmp_path):
    assert main(["standings", "--event", "big", "--format", "csv", "--db",
                 str(event_server.database)]) == 0
    assert len(read_csv_output(capsys.readouterr().out)) == 60


def test_the_uploader_speaks_the_page_s_language(event_server, page):
    """Issue 51 acceptance: the Chinese console showed Streamlit's "Upload" and "20MB per
    file" (the uploader takes no words of its own): a style draws the page's words over them;
    the English page keeps Streamlit's."""
    _login(page, event_server.url)
    drawn = """([where, text]) => [...document.querySelectorAll(where)].some(e =>
        getComputedStyle(e, '::after').content.includes(text)
        && getComputedStyle(e).fontSize === '0px')"""
    button = "[data-testid=stFileUploaderDropzone] button [data-testid=stMarkdownContainer] p"
    note = "[data-testid=stFileUploaderDropzoneInstructions] span"
    page.wait_for_function(drawn, arg=[button, "上传文件"], timeout=30_000)
    page.wait_for_function(drawn, arg=[note, "MB · CSV、XLSX、XLS、TXT"], timeout=30_000)
    assert page.evaluate(drawn, [note, "每个文件不超过 "])
    page.locator("[data-testid=stFileUploader]").first.scroll_into_view_if_needed()
    shot(page, "console-uploader-zh")
    page.get_by_role("button", name="English").click()  # Streamlit's own words in English
    expect(page.locator(button).first).to_have_text("Upload", timeout=30_000)
    page.wait_for_function(f"() => getComputedStyle(document.querySelector('{button}'))"
                           ".fontSize !== '0px'", timeout=30_000)
