"""The audience's phones never reach a Streamlit session by accident (issue 53), on the real
`paisai dashboard`: a phone that opens /live, /pairings or /bracket gets the plain page, the
projector (`?projector=1`, then its cookie) and the console keep Streamlit, and the
audience's Streamlit sessions are bounded without the console's ever being refused."""

from __future__ import annotations

import contextlib
import time
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import expect

from tests.ui.conftest import Server

pytestmark = pytest.mark.browser

PHONE = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
         "Chrome/140.0 Mobile Safari/537.36")
WECHAT = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 "
          "(KHTML, like Gecko) Mobile/15E148 MicroMessenger/8.0.50")
DESKTOP = ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
           "Chrome/140.0 Safari/537.36")
BOUND = 2


@pytest.fixture(scope="module")
def hall(tmp_path_factory, demo_day):
    database = tmp_path_factory.mktemp("audience") / "demo.duckdb"
    demo_day(database)
    server = Server(database, env={"PAISAI_AUDIENCE_SESSIONS": str(BOUND)})
    yield server
    server.stop()


class _Stay(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def _get(url: str, agent: str, cookie: str | None = None) -> tuple[int, str | None]:
    """The status and the redirect's target of one GET, redirects not followed."""
    headers = {"User-Agent": agent, **({"Cookie": cookie} if cookie else {})}
    try:
        answer = urllib.request.build_opener(_Stay).open(
            urllib.request.Request(url, headers=headers), timeout=30)
        return answer.status, None
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("location")


@pytest.mark.parametrize(("path", "plain"), [
    ("/live", "/m/demo/"), ("/live?event=demo&lang=en", "/m/demo/?lang=en"),
    ("/pairings?event=demo", "/m/demo/pairings"), ("/", "/m/demo/"),
    ("/bracket", "/m/demo-tractor/bracket")])
def test_a_phone_is_sent_to_the_plain_page(hall, path, plain):
    assert _get(hall.url + path, PHONE) == (303, plain)
    assert _get(hall.url + path, WECHAT) == (303, plain)
    assert _get(hall.url + path, "curl/8.5") == (303, plain)  # no browser: no script either


def test_the_projector_and_the_console_keep_streamlit_on_a_phone(hall):
    # the projector's address shared with phones (a WeChat group): their plain page
    assert _get(hall.url + "/live?projector=1", PHONE) == (303, "/m/demo/")
    assert _get(hall.url + "/live?projector=1", DESKTOP) == (200, None)
    assert _get(hall.url + "/live", PHONE, "paisai_screen=1") == (200, None)
    assert _get(hall.url + "/admin", PHONE) == (200, None)
    assert _get(hall.url + "/live", DESKTOP) == (200, None)  # a laptop keeps the page


def test_a_phone_browser_lands_on_the_ranking_and_a_screen_stays(hall, browser):
    phone = browser.new_context(user_agent=PHONE, viewport={"width": 360, "height": 740},
                                locale="zh-CN", is_mobile=True)
    try:
        page = phone.new_page()
        page.goto(f"{hall.url}/live?event=demo")
        expect(page).to_have_url(f"{hall.url}/m/demo/", timeout=30_000)
        expect(page.locator("table").first).to_contain_text("A1", timeout=30_000)
        assert page.locator("[data-testid=stApp]").count() == 0  # no Streamlit session
        page.goto(f"{hall.url}/live?event=demo&projector=1")  # a shared projector link:
        expect(page).to_have_url(f"{hall.url}/m/demo/", timeout=30_000)  # still the plain page
        page.goto(f"{hall.url}/admin")  # the console opened on it: a tablet as a screen …
        page.goto(f"{hall.url}/live?event=demo&projector=1")
        expect(page.locator("table[data-testid=ranking]")).to_contain_text("A1",
                                                                          timeout=60_000)
        page.goto(f"{hall.url}/live?event=demo")  # … it stays one without the parameter
        expect(page.locator("table[data-testid=ranking]")).to_contain_text("A1",
                                                                          timeout=60_000)
        expect(page).to_have_url(f"{hall.url}/live?event=demo", timeout=10_000)
    finally:
        phone.close()


def test_the_audiences_sessions_are_bounded_and_the_consoles_never(hall):
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    address = hall.url.replace("http://", "ws://") + "/_stcore/stream"

    def session(cookie: str | None = None):
        return connect(address, subprotocols=["streamlit"], user_agent_header=DESKTOP,
                       additional_headers={"Cookie": cookie} if cookie else None)

    with contextlib.ExitStack() as open_sessions:
        for _ in range(BOUND):
            open_sessions.enter_context(session())
        # beyond the bound: the plain page, or a short "busy" page where there is none
        assert _get(hall.url + "/live?event=demo", DESKTOP) == (303, "/m/demo/")
        assert _get(hall.url + "/history", DESKTOP)[0] == 503
        with pytest.raises(InvalidStatus), session():  # a session beyond it is refused
            pass
        for cookie in ("paisai_screen=1", "paisai_admin=x"):  # a screen, the console: never
            with session(cookie):
                pass
        assert _get(hall.url + "/live?event=demo", DESKTOP, "paisai_screen=1") == (200, None)
    after = None
    for _ in range(50):  # the server notices the closed sessions (waits for what it asserts)
        after = _get(hall.url + "/live?event=demo", DESKTOP)
        if after == (200, None):
            break
        time.sleep(0.2)
    assert after == (200, None)
