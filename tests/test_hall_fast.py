"""Issue 53: a phone's page already made is answered before the server's stack
(`dashboard.hall.fast.KeptPages`) with the same bytes and headers as its route; a page not
made yet, an unknown event or any other address goes on to the app."""

from __future__ import annotations

import pytest
from conftest import RESULT_HEADER, write_csv
from starlette.applications import Starlette
from starlette.testclient import TestClient

PAGES = ["/m/style.css", "/m/e/", "/m/e/?lang=en", "/m/e/pairings", "/m/e/pairings?q=A3",
         "/m/e/pairings?q=a3", "/m/e/pairings?q=nobody", "/m/e/teams/A1",
         "/m/e/teams/A1?lang=en", "/m/e/bracket"]


@pytest.fixture
def clients(cli, round_two_paired, tmp_path, db_file, monkeypatch):
    """event16 with round 1 played and round 2 paired: the routes alone, and the routes
    behind KeptPages (which counts what it passes on)."""
    from dashboard.hall import cache, routes
    from dashboard.hall.fast import KeptPages

    cache.forget_versions()
    monkeypatch.setenv("PAISAI_DB", str(db_file))
    passed: list[str] = []
    inner = Starlette(routes=routes())

    async def counting(scope, receive, send):
        if scope["type"] == "http":
            passed.append(scope["path"])
        await inner(scope, receive, send)

    with TestClient(inner) as plain, TestClient(KeptPages(counting), follow_redirects=False) as fast:
        yield plain, fast, passed


def _same(a, b) -> None:
    assert (a.status_code, a.content) == (b.status_code, b.content)
    drop = {"date", "content-length"}  # the length of a compressed body is the client's
    assert {k: v for k, v in a.headers.items() if k not in drop} == \
        {k: v for k, v in b.headers.items() if k not in drop}


@pytest.mark.parametrize("gzip", [True, False])
def test_a_page_made_is_the_route_s_answer_from_memory(clients, gzip):
    plain, fast, passed = clients
    encoding = {"Accept-Encoding": "gzip" if gzip else "identity"}
    for path in PAGES:
        first = fast.get(path, headers=encoding)  # made by the route, unless made already
        del passed[:]
        kept = fast.get(path, headers=encoding)
        route = plain.get(path, headers=encoding)
        _same(kept, route)
        _same(kept, first)
        # answered from memory, unless Starlette's compression would be the stack's (a
        # page of 1,000 bytes or more that is not kept compressed)
        size = len(plain.get(path, headers={"Accept-Encoding": "identity"}).content)
        assert passed == ([path.split("?")[0]] if gzip and 1000 <= size <= 1024 else []), path
        etag = {**encoding, "If-None-Match": kept.headers["etag"]}
        _same(fast.get(path, headers=etag), plain.get(path, headers=etag))
        assert fast.get(path, headers=etag).status_code == 304
        head = fast.head(path, headers=encoding)
        assert head.status_code == 200 and head.content == b""
        _same(head, plain.head(path, headers=encoding))


def test_anything_else_goes_on_to_the_app(clients):
    _plain, fast, passed = clients
    for path in ("/m/nope/", "/m/e/teams/NOBODY", "/m/", "/m/e",
                 "/api/v1/events", "/m/e/teams/A1/x"):
        fast.get(path)
        assert passed[-1] == path, path
    assert fast.get("/m/nope/").status_code == 404
    assert fast.get("/m/nope/").status_code == 404  # never kept as a page
    assert fast.get("/m/e/teams/NOBODY").status_code == 404
    fast.post("/m/e/")
    assert passed[-1] == "/m/e/"


def test_a_new_version_is_made_by_the_route_not_served_stale(clients, cli, tmp_path):
    from dashboard.hall import cache

    _plain, fast, passed = clients
    before = fast.get("/m/e/pairings").text
    assert "第 2 轮对阵" in before
    tables = fast.get("/api/v1/events/e/pairings?round=2").json()
    rows = [RESULT_HEADER] + [[2, p["table"], p["ew_team"], p["ns_team"], "9", "8"]
                              for p in tables]
    assert cli("ingest", "--event", "e", write_csv(tmp_path / "r2.csv", rows)).code == 0
    assert cli("pair", "--event", "e").code == 0
    cache.forget_versions()  # the version read again (the server: within a second)
    del passed[:]
    after = fast.get("/m/e/pairings")
    assert passed == ["/m/e/pairings"] and "第 3 轮对阵" in after.text

