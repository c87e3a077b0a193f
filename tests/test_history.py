"""History across three small events, every figure worked by hand."""

from __future__ import annotations

import json

import pytest
from conftest import RESULT_HEADER, read_csv_output, write_csv

from pipeline.base import db
from pipeline.cli import main
from pipeline.history import people, ratings, stats

ENTRY = ["队号", "队名", "队员1", "队员2", "单位"]
EVENTS = {
    "e1": ("2024-01-01", [["A1", "甲", "张三", "李四", "恒通贸易"],
                          ["A2", "乙", "王五", "赵六", "华信物流"]],
           [[1, 1, "A1", "A2", "10", "8"]]),                       # A1 wins by 2
    "e2": ("2024-06-01", [["A1", "甲", "張三", "李 四", "恒通貿易"],   # traditional, spaced
                          ["A2", "乙", "王五", "赵六", "华信物流"]],
           [[1, 1, "A1", "A2", "7", "7"]]),                        # a draw
    "e3": ("2025-01-01", [["A1", "甲", "张三", "李四", "恒通贸易"],
                          ["A2", "乙", "王五", "赵六", "华信物流"],
                          ["A3", "丙", "张三", "孙七", "远航供应链"],   # another 张三
                          ["A4", "丁", "周八", "吴九", "远航供应链"]],
           [[1, 1, "A1", "A2", "8", "Q"], [1, 2, "A3", "A4", "9", "5"]]),
}


def _three_events(database, folder):
    """EVENTS created and ingested through the real `main`."""
    args = ["--db", str(database)]
    for event_id, (date, teams, results) in EVENTS.items():
        assert main(["event", "create", "--id", event_id, "--name", f"赛事{event_id}",
                     "--ruleset", "suzhou-2025", "--date", date, *args]) == 0
        main(["ingest", "--event", event_id, str(write_csv(folder / f"{event_id}e.csv",
                                                           [ENTRY, *teams])), *args])
        main(["ingest", "--event", event_id, str(write_csv(folder / f"{event_id}r.csv",
                                                           [RESULT_HEADER, *results])), *args])


@pytest.fixture
def history(prepared, db_file):
    """The three events in the test's own file: built once per test process (`prepared`),
    the same for every test here, which each change their copy."""
    prepared(_three_events, db_file)
    return db_file


def _id(database, name, affiliation):
    with db.reading(database) as con:
        found = people.find(con, name, affiliation)
    assert len(found) == 1
    return found[0]


def test_identity_matches_traditional_and_spaced_names(history):
    with db.reading(history) as con:
        listing = people.listing(con).to_dicts()

    def one(name, unit):
        found = [r for r in listing if r["name"] == name and unit in r["affiliations"]]
        assert len(found) == 1
        return found[0]

    zhang = one("张三", "恒通贸易")
    assert zhang["events"] == 3  # 張三/恒通貿易 in e2 is the same person
    assert set(zhang["affiliations"].split(", ")) == {"恒通贸易", "恒通貿易"}  # as written
    assert one("李四", "恒通贸易")["events"] == 3  # "李 四"
    other = one("张三", "远航供应链")
    assert other["events"] == 1 and zhang["player_id"] in other["likely_duplicates"]


def test_player_statistics(history):
    zhang = _id(history, "张三", "恒通贸易")
    stats.keep_ranks_current(history)
    with db.reading(history) as con:
        p = stats.player_profile(con, zhang)
        wang = _id(history, "王五", "华信物流")
        li = _id(history, "李四", "恒通贸易")
        h2h = stats.head_to_head(con, zhang, wang)
        pair = stats.partnership(con, zhang, li)
    # e1 win +2, e2 draw 0, e3 loss 8−12 = −4: average −2/3
    assert (p["events"], p["rounds"], p["wins"], p["draws"], p["losses"]) == (3, 3, 1, 1, 1)
    assert p["avg_level_diff"] == pytest.approx(-0.67)
    # e1 and e2: rank 1 of 2; e3: A2 3/17, A3 3/17 (levels 12 > 9), A1 0/9/8, A4 0/9/5 → 3rd
    assert (p["best_finish"]["rank"], p["best_finish"]["field_size"]) == (1, 2)
    assert (p["latest_finish"]["event_id"], p["latest_finish"]["rank"],
            p["latest_finish"]["field_size"]) == ("e3", 3, 4)
    partners = p["partners"].to_dicts()
    assert [(r["partner"], r["events"], r["wins"], r["draws"], r["losses"]) for r in partners] \
        == [("李四", 3, 1, 1, 1)]
    assert h2h == {"rounds": 3, "wins": 1, "draws": 1, "losses": 1}
    assert pair["rounds"] == 3 and pair["avg_level_diff"] == pytest.approx(-0.67)


def test_cached_ranks_are_refreshed_when_read_after_a_change(history, cli, tmp_path):
    """Ingest does not rank for history; the cache is brought up to date when it is read."""
    with db.reading(history) as con:
        assert stats.stale_rank_events(con) == ["e1", "e2", "e3"]
    stats.keep_ranks_current(history)
    with db.reading(history) as con:
        assert stats.stale_rank_events(con) == []
        assert db.rows(con, "select team_no, rank from event_ranks where event_id = 'e1' "
                            "order by team_no") == [("A1", 1), ("A2", 2)]
    # e1 corrected: A2 won 10–8, so 张三 (A1) finished second of two
    cli("ingest", "--event", "e1", write_csv(tmp_path / "fix.csv",
                                             [RESULT_HEADER, [1, 1, "A1", "A2", "8", "10"]]))
    with db.reading(history) as con:
        assert stats.stale_rank_events(con) == ["e1"]
    run = cli("player", "张三", "--affiliation", "恒通贸易", "--format", "json")
    finishes = {f["event_id"]: (f["rank"], f["field_size"])
                for f in json.loads(run.out)["finishes"]}
    assert finishes == {"e1": (2, 2), "e2": (1, 2), "e3": (3, 4)}
    assert cli("check").code == 0


def test_merge_and_split(history, cli):
    zhang = _id(history, "张三", "恒通贸易")
    other = _id(history, "张三", "远航供应链")
    assert cli("players", "merge", zhang, other).code == 0
    with db.reading(history) as con:
        merged = stats.player_profile(con, zhang)
    # e3 had both: two teams' games, still three events
    assert (merged["events"], merged["rounds"], merged["wins"]) == (3, 4, 2)
    zhao = _id(history, "赵六", "华信物流")
    assert cli("players", "split", zhao, "--event", "e2").code == 0
    with db.reading(history) as con:
        assert stats.player_profile(con, zhao)["events"] == 2
        assert len(people.find(con, "赵六", "华信物流")) == 2
        results = con.execute("select count(*) from results").fetchone()[0]
    assert results == 4  # decisions never touch results
    run = cli("players", "split", zhao, "--event", "e9")
    assert run.code == 2


def test_units_and_compare(history, cli):
    units = read_csv_output(cli("units", "--format", "csv").out)
    hengtong = [(r["event_id"], r["teams"], r["wins"], r["draws"], r["losses"]) for r in units
                if r["affiliation"] == "恒通贸易"]
    assert hengtong == [("e1", "1", "1", "0", "0"), ("e3", "1", "0", "0", "1")]
    # e2 registered 恒通貿易 as written; the unit table shows affiliations as registered
    rows = read_csv_output(cli("compare", "e1", "e3", "--format", "csv").out)
    assert [(r["event_id"], r["teams"], r["rounds"], r["avg_level_diff"]) for r in rows] == [
        ("e1", "2", "1", "2"), ("e3", "4", "1", "4")]


def test_ratings_are_reproducible(history, cli):
    first = cli("ratings", "--format", "json").out
    with db.writing(history) as con:
        ratings.recompute(con)
    second = cli("ratings", "--format", "json").out
    assert first == second
    board = json.loads(first)
    assert len(board) == 8
    # 王五/赵六 won the only decided game between the two main teams in e3 and lost in e1;
    # the winners of e3's other table, 张三(远航)/孙七, won their only game
    top = {r["name"] for r in board if r["rank"] == 1}
    assert top <= {"张三", "孙七"}


def test_player_command(history, cli):
    run = cli("player", "張三", "--affiliation", "恒通贸易", "--format", "json")
    assert run.code == 0, run.err
    assert json.loads(run.out)["events"] == 3
    several = cli("player", "张三")
    assert several.code == 2 and "--affiliation" in several.err
    # each candidate with its id, units and partners (namesakes may share a club, issue 52)
    with db.reading(history) as con:
        ids = db.rows(con, "select distinct player_id, affiliation from player_map "
                           "where name = '张三' order by 1")
    assert len(ids) >= 2 and all(i in several.err for i, _ in ids)
    assert "孙七" in several.err and "搭档" in several.err
    by_id = cli("player", ids[0][0], "--format", "json")
    assert by_id.code == 0 and json.loads(by_id.out)["player_id"] == ids[0][0]


def test_import_event_folder_and_error(cli, tmp_path):
    folder = tmp_path / "past"
    folder.mkdir()
    write_csv(folder / "1-entries.csv", [ENTRY, ["A1", "甲", "钱一", "孙二", "x"],
                                         ["A2", "乙", "李三", "周四", "y"]])
    write_csv(folder / "2-round.csv", [RESULT_HEADER, [1, 1, "A1", "A2", "J", "9"]])
    run = cli("import-event", "--id", "old", "--name", "往届", "--ruleset", "suzhou-2025",
              "--date", "2023-05-01", folder)
    assert run.code == 0, run.err
    rows = read_csv_output(cli("standings", "--event", "old", "--format", "csv").out)
    assert rows[0]["team_no"] == "A1" and rows[0]["level_diff_score"] == "15"
    logged = cli("log", "--event", "old").out  # issue 40: every import in paisai log
    assert "imported" in logged and "往届" in logged
    write_csv(folder / "3-bad.csv", [RESULT_HEADER, [2, 1, "A1", "A2", "B", "9"]])
    bad = cli("import-event", "--id", "old2", "--name", "x", "--ruleset", "suzhou-2025", folder)
    assert bad.code == 2 and "不是有效的级数" in bad.err
    assert "old2" not in cli("events", "--format", "csv").out


def test_unit_totals_fold_spellings(history, cli):
    """恒通贸易 (e1, e3) and 恒通貿易 (e2) are one unit: three events, three games (e1 win,
    e2 draw, e3 loss 8–Q), named as written most recently (e3: 恒通贸易)."""
    rows = {r["affiliation"]: r for r in read_csv_output(
        cli("units", "--totals", "--format", "csv").out)}
    hengtong = rows["恒通贸易"]
    assert "恒通貿易" not in rows
    assert (hengtong["events"], hengtong["teams"], hengtong["games"], hengtong["wins"],
            hengtong["draws"], hengtong["losses"]) == ("3", "3", "3", "1", "1", "1")
    assert hengtong["win_share"] == "0.333"


def test_compare_says_who_came_back_and_who_won(history, cli):
    """e1: 4 players, all new. e3: 8 players; 张三, 李四 (A1), 王五, 赵六 played before → 4
    returning (the other 张三 of 远航 is new), 4 new. e3's podium: A2 乙 (3 points, 12 levels),
    A3 丙 (3 points, 9), A1 甲. Field strength: e1's four players only ever played each
    other, two against two; in the least-squares fit each game adds as much to one pair as
    it takes from the other, so the ridge keeps their ratings' sum at 0: mean 1500."""
    rows = {r["event_id"]: r for r in read_csv_output(
        cli("compare", "e1", "e3", "--format", "csv").out)}
    assert (rows["e1"]["players"], rows["e1"]["returning"], rows["e1"]["newcomers"]) == ("4", "0", "4")
    assert (rows["e3"]["players"], rows["e3"]["returning"], rows["e3"]["newcomers"]) == ("8", "4", "4")
    assert rows["e3"]["podium"] == "乙、丙、甲"
    assert float(rows["e1"]["field_strength"]) == 1500.0



def test_namesakes_of_one_club_are_told_apart_by_id_not_by_affiliation(cli, db_file,
                                                                       tmp_path):
    """Two 王芳 of one club who play in the same event are two people: `paisai player 王芳`
    names both ids and asks for the id — never for --affiliation, which cannot tell them
    apart (an association's acceptance, issue 52)."""
    from conftest import import_event

    import_event(db_file, tmp_path, "f1", "2025-03-01",
                 [("A1", "王芳", "赵一", "关务"), ("A2", "王芳", "钱二", "关务")])
    several = cli("player", "王芳")
    assert several.code == 2
    with db.reading(db_file) as con:
        ids = [i for (i,) in db.rows(con, "select distinct player_id from player_map "
                                          "where name = '王芳'")]
    assert len(ids) == 2 and all(i in several.err for i in ids)
    assert "--affiliation" not in several.err and "paisai player" in several.err
    assert cli("player", "王芳", "--affiliation", "关务").code == 2
