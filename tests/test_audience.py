"""Who the hall's server treats as a phone and what each gets (issue 53), on the middleware
alone in front of a stand-in for Streamlit; tests/ui/test_audience_browser.py runs the same
on the real server and in Chromium."""

from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from dashboard.audience import Audience, is_phone

DESKTOP = ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
           "Chrome/140.0 Safari/537.36")


@pytest.mark.parametrize(("agent", "phone"), [
    ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148",
     True),
    ("Mozilla/5.0 (iPad; CPU OS 16_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148", True),
    ("Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 Chrome/140.0 Safari/537.36",
     True),  # an Android tablet: the audience too
    ("Mozilla/5.0 (Linux; Android 14; V2309A) AppleWebKit/537.36 Chrome/140.0 Mobile Safari"
     "/537.36 MicroMessenger/8.0.49", True),  # WeChat's own browser
    ("Mozilla/5.0 (Linux; HarmonyOS 4.2; ALN-AL00) AppleWebKit/537.36 Chrome/114.0", True),
    ("", True), ("curl/8.5.0", True), ("python-requests/2.32", True),  # no script runs there
    (DESKTOP, False),
    ("Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 Version/17.0 Safari",
     False),
    ("Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0", False),
])
def test_who_is_a_phone(agent, phone):
    assert is_phone(agent) is phone


@pytest.fixture
def client(monkeypatch):
    """The middleware in front of a stand-in that answers every page as Streamlit would."""
    from dashboard import audience

    monkeypatch.setattr(audience, "_default_event", lambda bracket: "cup" if bracket else "day")
    inner = Starlette(routes=[Route("/{path:path}", lambda request: PlainTextResponse(
        "streamlit"), methods=["GET", "POST"])])
    return TestClient(Audience(inner, limit=2), follow_redirects=False)


def test_phones_get_the_plain_page_and_screens_streamlit(client):
    phone = {"User-Agent": "Mozilla/5.0 (Linux; Android 14) Mobile Safari"}
    assert client.get("/live?event=a%2Fb", headers=phone).headers["location"] == "/m/a%2Fb/"
    assert client.get("/live", headers=phone).headers["location"] == "/m/day/"
    assert client.get("/bracket?lang=en", headers=phone).headers[
        "location"] == "/m/cup/bracket?lang=en"
    assert client.get("/pairings?event=x,y", headers=phone).headers[
        "location"] == "/m/x/pairings"  # a rotation of events: its first
    # the projector's link shared with phones: not a screen, its plain page, no cookie
    shared = client.get("/live?projector=1&event=day", headers=phone)
    assert shared.headers["location"] == "/m/day/" and "set-cookie" not in shared.headers
    assert client.get("/live?screen=1", headers=phone).status_code == 303
    marked = client.get("/live?projector=1", headers={"User-Agent": DESKTOP})
    assert marked.text == "streamlit" and "paisai_screen=1" in marked.headers["set-cookie"]
    # a tablet used as a screen: the console opened on it once marks it
    console = client.get("/admin", headers=phone)
    assert "paisai_screen=1" in console.headers["set-cookie"]
    assert client.get("/live", headers={**phone, "Cookie": "paisai_screen=1"}).text == \
        "streamlit"
    assert client.get("/admin", headers=phone).text == "streamlit"
    assert client.get("/live", headers={"User-Agent": DESKTOP}).text == "streamlit"
    assert client.get("/live", headers={"User-Agent": DESKTOP,
                                        "Cookie": "=;;\x7f bad"}).text == "streamlit"
    assert client.get("/m/day/", headers=phone).text == "streamlit"  # not a Streamlit page
    assert client.post("/live", headers=phone).text == "streamlit"


def test_a_crowd_of_desktop_browsers_beyond_the_bound_gets_the_plain_page(client):
    """Phones asking for the desktop site send a desktop User-Agent (issue 53): a page served
    holds its session's place until its websocket opens, so a crowd opening /live at once gets
    the plain page beyond the bound — not Streamlit pages whose sessions are then refused."""
    desktop = {"User-Agent": DESKTOP}
    assert client.get("/live?event=day", headers=desktop).text == "streamlit"
    assert client.get("/pairings?event=day", headers=desktop).text == "streamlit"
    crowd = [client.get("/live?event=day", headers=desktop) for _ in range(5)]  # no sessions
    assert {(a.status_code, a.headers["location"]) for a in crowd} == {(303, "/m/day/")}
    assert client.get("/history", headers=desktop).status_code == 503
    screen = client.get("/live?event=day", headers={**desktop, "Cookie": "paisai_screen=1"})
    assert screen.text == "streamlit"  # a screen is never turned away nor holds a place


def test_a_held_place_lapses_when_its_session_never_comes(client, monkeypatch):
    from dashboard import audience

    now = [1000.0]
    monkeypatch.setattr(audience.time, "monotonic", lambda: now[0])
    desktop = {"User-Agent": DESKTOP}
    for _ in range(2):
        assert client.get("/live?event=day", headers=desktop).text == "streamlit"
    assert client.get("/live?event=day", headers=desktop).status_code == 303
    now[0] += audience.ADMIT_SECONDS + 1  # those browsers never opened their sessions
    assert client.get("/live?event=day", headers=desktop).text == "streamlit"


def test_the_default_bound_is_small(monkeypatch):
    """Each audience session of /live redraws a 1,000-team ranking every 2 s in the console's
    process: a few laptops may keep the page, a crowd may not (issue 53: 8 were too many)."""
    from dashboard.audience import session_limit

    monkeypatch.delenv("PAISAI_AUDIENCE_SESSIONS", raising=False)
    assert session_limit() == 2
    monkeypatch.setenv("PAISAI_AUDIENCE_SESSIONS", "5")
    assert session_limit() == 5
