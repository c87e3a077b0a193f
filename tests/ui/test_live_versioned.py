"""/live and /pairings draw what is made once per version of the event and shared by every
session (dashboard.versioned, issue 53): never stale — a result stored or a round paired from
outside (the CLI) shows on the very next run of a page already open — a big ranking a page
at a time for a reader, and the rankings after earlier rounds kept only while nothing they
read changes."""

from __future__ import annotations

import re

from conftest import RESULT_HEADER, entries, run_page, write_csv

from pipeline.base import db
from pipeline.day import queries


def _html(at) -> str:
    return " ".join(element.proto.body for element in at.get("html"))


def _rows(at, test_id: str) -> list[list[str]]:
    """The body rows of the page's table `test_id`, as cell texts."""
    table = re.search(rf'data-testid="{test_id}">.*?<tbody>(.*?)</tbody>', _html(at), re.S)
    assert table, f"no table {test_id}"
    return [
        re.findall(r"<td[^>]*>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", table[1])
    ]


def _event(cli, tmp_path, teams: int, reported: int | None = None) -> None:
    """A suzhou-2025 event `e` of `teams` teams, round 1 paired and `reported` of its tables
    stored (all of them by default; EW wins 10–8)."""
    assert (
        cli("event", "create", "--id", "e", "--name", "测试赛", "--ruleset", "suzhou-2025").code
        == 0
    )
    assert cli("ingest", "--event", "e", write_csv(tmp_path / "e.csv", entries(teams))).code == 0
    assert cli("pair", "--event", "e").code == 0
    tables = teams // 2 if reported is None else reported
    rows = [[1, t, f"A{2 * t - 1}", f"A{2 * t}", "10", "8"] for t in range(1, tables + 1)]
    assert (
        cli("ingest", "--event", "e", write_csv(tmp_path / "r1.csv", [RESULT_HEADER, *rows])).code
        == 0
    )


def test_a_result_stored_from_outside_shows_on_the_next_run(cli, db_file, tmp_path, monkeypatch):
    _event(cli, tmp_path, 16, reported=7)
    live = run_page(monkeypatch, db_file, "live", event="e")
    assert not live.exception
    assert "第 1 轮进行中 · 已报 7/8 桌" in _html(live)
    pairings = run_page(monkeypatch, db_file, "pairings", event="e")
    assert "第 1 轮" in pairings.title[0].value
    assert any("未报：第 8 桌" in m.value for m in pairings.markdown)
    # the last table, stored by the CLI: the open pages' next run shows it
    last = [RESULT_HEADER, [1, 8, "A15", "A16", "8", "10"]]
    assert cli("ingest", "--event", "e", write_csv(tmp_path / "t8.csv", last)).code == 0
    live.run()
    assert "第 1 轮后 · 已报 8/8 桌" in _html(live)
    assert ["A16", "队伍16"] == _rows(live, "ranking")[7][1:3]  # A16 won: eighth of eight winners
    pairings.run()
    assert not any("未报" in m.value for m in pairings.markdown)
    # round 2 paired by the CLI: the pairings page's next run shows its tables
    assert cli("pair", "--event", "e").code == 0
    pairings.run()
    assert "第 2 轮" in pairings.title[0].value
    with db.reading(db_file) as con:
        first = con.execute(
            "select ew_team from pairings where event_id = 'e' and round = 2 and table_no = 1"
        ).fetchall()[0][0]
    assert _rows(pairings, "pairings")[0][1] == first


def test_a_reader_gets_a_big_ranking_a_page_at_a_time(cli, db_file, tmp_path, monkeypatch):
    _event(cli, tmp_path, 120)
    at = run_page(monkeypatch, db_file, "live", event="e")
    assert not at.exception
    pages = at.selectbox(key="ranking-page")
    assert pages.label == "名次"
    assert pages.options == ["第 1–50 名", "第 51–100 名", "第 101–120 名"]
    shown = _rows(at, "ranking")
    assert len(shown) == 50 and shown[0][0] == "1"
    pages.select_index(2).run()
    assert not at.exception
    shown = _rows(at, "ranking")
    assert [r[0] for r in shown] == [str(r) for r in range(101, 121)]
    view = queries.live(db_file, "e")  # the same places as the ranking's
    assert [r[1] for r in shown] == view.standings["team_no"].to_list()[100:]
    # the projector keeps its own pages: twenty places, turned by time
    wall = run_page(monkeypatch, db_file, "live", event="e", projector="1")
    assert len(_rows(wall, "ranking")) == 20
    assert not wall.selectbox


def test_a_reader_gets_a_big_round_a_page_of_tables_at_a_time(cli, db_file, tmp_path, monkeypatch):
    _event(cli, tmp_path, 120)
    assert cli("pair", "--event", "e").code == 0  # round 2: sixty tables
    at = run_page(monkeypatch, db_file, "pairings", event="e")
    assert not at.exception
    pages = at.selectbox(key="tables-page")
    assert pages.label == "桌号" and pages.options == ["第 1–50 桌", "第 51–60 桌"]
    assert [r[0] for r in _rows(at, "pairings")] == [str(t) for t in range(1, 51)]
    pages.select_index(1).run()
    assert [r[0] for r in _rows(at, "pairings")] == [str(t) for t in range(51, 61)]
    at.text_input[0].input("A120").run()  # find-my-table still searches every table
    assert "A120" in " ".join(" ".join(r) for r in _rows(at, "found"))
    # the projector turns its own pages of 20 tables (no reader's choice on a wall)
    wall = run_page(monkeypatch, db_file, "pairings", event="e", projector="1")
    shown = [int(r[0]) for r in _rows(wall, "pairings")]
    assert shown in ([*range(1, 21)], [*range(21, 41)], [*range(41, 61)]) and not wall.selectbox


def test_the_rankings_after_earlier_rounds_are_kept_while_nothing_they_read_changes(
    cli, db_file, tmp_path
):
    _event(cli, tmp_path, 16)
    known: dict = {}
    assert queries.rank_progression(db_file, "e", known).equals(
        queries.rank_progression(db_file, "e")
    )
    after_one = next(v for k, v in known.items() if k[2] == 1)
    # round 2 paired and played: round 1's ranking is kept, round 2's made
    assert cli("pair", "--event", "e").code == 0
    with db.reading(db_file) as con:
        pairs = con.execute(
            "select table_no, ew_team, ns_team from pairings where event_id = "
            "'e' and round = 2 order by table_no"
        ).fetchall()
    rows = [[2, t, ew, ns, "9", "J"] for t, ew, ns in pairs]
    assert (
        cli("ingest", "--event", "e", write_csv(tmp_path / "r2.csv", [RESULT_HEADER, *rows])).code
        == 0
    )
    found = queries.rank_progression(db_file, "e", known)
    assert found.equals(queries.rank_progression(db_file, "e"))
    assert sorted(k[2] for k in known) == [1, 2]
    assert next(v for k, v in known.items() if k[2] == 1) is after_one  # not ranked again
    # a round-1 result changed: round 1 (and 2) ranked again, the older ones forgotten
    with db.writing(db_file) as con:
        con.execute(
            "update results set ew_level = 8, ns_level = 10 where event_id = 'e' "
            "and round = 1 and table_no = 1"
        )
    found = queries.rank_progression(db_file, "e", known)
    assert found.equals(queries.rank_progression(db_file, "e"))
    assert sorted(k[2] for k in known) == [1, 2]
    assert next(v for k, v in known.items() if k[2] == 1) is not after_one
    first = found.filter(found["round"] == 1).sort("rank")
    assert first["team_no"][0] != "A1"  # A1 lost its round-1 table now


def test_a_readers_part_is_made_ahead_only_while_readers_come(monkeypatch):
    """The projector makes a reader's part of /live ahead (in a thread) only while readers
    come: without them its first view and the console keep the CPU."""
    import doctest
    import threading

    from dashboard import versioned

    assert doctest.testmod(versioned).failed == 0
    monkeypatch.setattr(versioned, "_readers", {"seen": float("-inf")})
    monkeypatch.setattr(versioned, "_WARMED", {})
    made: list[str] = []
    done = threading.Event()

    def make() -> None:
        made.append("made")
        done.set()

    versioned.warm(("db", "e", "v1", "zh"), make)
    assert not done.wait(0.5) and made == []  # nobody reads: nothing made
    versioned.reader_seen()
    versioned.warm(("db", "e", "v1", "zh"), make)
    assert done.wait(10) and made == ["made"]
    done.clear()
    versioned.warm(("db", "e", "v1", "zh"), make)  # once per version
    assert not done.wait(0.5) and made == ["made"]
