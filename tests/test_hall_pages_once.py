"""Issue 53: the phones' pages cost the hall's server little per change of the event — a
team's search is its table's rows looked up in the snapshot (the same page the frame's
search made), and a team's page is made again when its snapshot or its own table's sheet
changes, not at every report of another table; a new result still shows on the next ask
once its snapshot is made."""

from __future__ import annotations

import time

import pytest
from conftest import RESULT_HEADER, write_csv
from starlette.applications import Starlette
from starlette.testclient import TestClient


@pytest.fixture
def client(cli, round_two_paired, tmp_path, db_file, monkeypatch):
    """event16 with round 1 played and round 2 paired, served by the phones' routes."""
    from dashboard.hall import cache, routes

    cache.forget_versions()
    monkeypatch.setenv("PAISAI_DB", str(db_file))
    with TestClient(Starlette(routes=routes())) as test_client:
        yield test_client
    cache.forget_versions()


def test_a_team_s_search_is_the_page_the_frame_s_search_made(client, monkeypatch):
    """Every team number, in any case, and a player's name: the page from the snapshot's
    rows is byte for byte the page `find_table` made; a search for nobody says so."""
    from dashboard.hall import cache, pages

    searches = [f"A{n}" for n in range(1, 17)] + ["a3", "A16 "]
    looked_up = {q: client.get("/m/e/pairings", params={"q": q}).text for q in searches}
    assert "<tr>" in looked_up["A1"] and looked_up["a3"] == looked_up["A3"]
    cache.forget_versions()  # made again, the rows never looked up: the frame's search

    def nothing_seated(event, seen, bye):
        return cache.Seated([], {})

    monkeypatch.setattr(pages, "seated", nothing_seated)
    for q in searches:
        assert client.get("/m/e/pairings", params={"q": q}).text == looked_up[q], q
    nobody = client.get("/m/e/pairings", params={"q": "nobody"}).text
    assert "<tbody></tbody>" in nobody.replace("\n", "") or "<tr>" not in nobody


def test_a_team_s_page_is_made_once_per_snapshot_not_per_report(client, cli, tmp_path, monkeypatch):
    from dashboard.hall import cache

    made: list[tuple] = []
    original = cache.Once.get

    def counting(self, key, make):
        def counted():
            made.append(key)
            return make()

        return original(self, key, counted)

    monkeypatch.setattr(cache.Once, "get", counting)
    monkeypatch.setattr(cache.Snapshots, "PROJECTOR_FIRST", 0.0)
    teams = [f"/m/e/teams/A{n}" for n in range(1, 17)]
    first = {path: client.get(path).text for path in teams}
    assert sum(key[0] == "team" for key in made) == 16
    # round 2, table 1 stored: the event's version changes; the snapshot the pages show is
    # not made again yet (the server makes it in the background, seconds apart)
    rows = [RESULT_HEADER, [2, 1, "A1", "A5", "J", "8"]]
    assert cli("ingest", "--event", "e", write_csv(tmp_path / "t1.csv", rows)).code == 0
    cache.VERSIONS.clear()  # the version read again (the server: within a second)
    cache.SNAPSHOTS.refreshing.add("e")  # (a refresh under way: the last snapshot shown)
    del made[:]
    again = {path: client.get(path).text for path in teams}
    assert again == first and not [key for key in made if key[0] == "team"]
    # the snapshot made: every team's page is made again, the result shown at once
    cache.SNAPSHOTS.refreshing.discard("e")
    monkeypatch.setattr(cache.Snapshots, "REFRESH_GAP", 0.0)  # (waited for: a test)
    deadline = time.monotonic() + 30  # the snapshot is made in the background: asked again
    after = client.get("/m/e/teams/A1").text  # until it shows (never a fixed wait)
    while after == first["/m/e/teams/A1"] and time.monotonic() < deadline:
        time.sleep(0.05)
        after = client.get("/m/e/teams/A1").text
    assert after != first["/m/e/teams/A1"] and '<td class="">J</td>' in after
    assert sum(key[0] == "team" for key in made) == 1
