"""One person, one identity (issue 31): each case of the association's simulated league, by
hand. Events are registered through the real CLI; identities are read from `player_map`."""

from __future__ import annotations

import pytest
from conftest import RESULT_HEADER, flat, import_event, read_csv_output, write_csv

from pipeline.base import db, oplog

HEADER = ["队号", "队名", "队员1", "队员2", "单位"]
MEMBER_HEADER = ["队号", "队员1", "会员号1", "队员2", "会员号2", "单位"]


@pytest.fixture
def register(cli, tmp_path):
    """register(event_id, date, rows, header): an event with its teams; round 1 played, the
    first team of each table winning 10–8."""

    def run(event_id: str, date: str, rows: list[list[str]], header=HEADER):
        assert cli("event", "create", "--id", event_id, "--name", event_id, "--ruleset",
                   "suzhou-2025", "--date", date).code == 0
        done = cli("ingest", "--event", event_id, write_csv(tmp_path / f"{event_id}.csv",
                                                            [header, *rows]))
        if done.code:
            return done
        teams = [r[0] for r in rows]
        results = [[1, n + 1, teams[2 * n], teams[2 * n + 1], "10", "8"]
                   for n in range(len(teams) // 2)]
        assert cli("ingest", "--event", event_id, write_csv(
            tmp_path / f"{event_id}-r1.csv", [RESULT_HEADER, *results])).code == 0
        return done

    return run


def ids(database, name: str) -> dict[tuple[str, str], str]:
    """(event, team) → the id of the player called `name` there."""
    with db.reading(database) as con:
        return {(e, t): p for e, t, p in db.rows(
            con, "select event_id, team_no, player_id from player_map where name = ? "
                 "order by 1, 2", [name])}


def test_a_club_change_and_a_partner_from_another_club_are_one_person(register, db_file, cli):
    """王伟 plays for 恒通 with 李强, then for 华信 with 赵敏 (another club's player), then
    with a zero-width space typed into his name: one person, his unit on each appearance."""
    register("e1", "2025-01-05", [["A1", "甲", "王伟", "李强", "恒通"],
                                  ["A2", "乙", "周一", "吴二", "远航"]])
    register("e2", "2025-03-05", [["A1", "甲", "王伟", "赵敏", "华信"],
                                  ["A2", "乙", "周一", "吴二", "远航"]])
    register("e3", "2025-05-05", [["A1", "甲", "王\u200b伟", "李强", "恒通"],
                                  ["A2", "乙", "周一", "吴二", "远航"]])
    assert len(set(ids(db_file, "王伟").values())) == 1 and len(ids(db_file, "王伟")) == 3
    listing = {r["name"]: r for r in read_csv_output(cli("players", "--format", "csv").out)}
    wang = listing["王伟"]
    assert wang["events"] == "3" and wang["current_unit"] == "恒通"
    # one event under his partner's club is a visit, not a change of his own unit (issue 40)
    assert wang["review"] == "" and listing["周一"]["review"] == ""


def test_a_move_is_one_person_flagged_namesakes_of_two_clubs_are_two(register, db_file, cli):
    """Issue 40, by evidence across events: 王伟 plays for 恒通 (e1, e2), then for 华信 (e3–
    e6) — a move, one person, flagged as several units. 张三 plays for 恒通 and another 张三
    for 远航 in the same months (e1–e6, by turns, never at one event): two people, each
    flagged beside the other; no id shown moves as the later events come in, except a seat
    marked unclear when it was shown."""
    rows = {
        "e1": [["A1", "甲", "王伟", "李强", "恒通"], ["A2", "乙", "张三", "吴二", "恒通"],
               ["A3", "丙", "周一", "孙五", "远航"], ["A4", "丁", "钱六", "郑七", "远航"]],
        "e2": [["A1", "甲", "王伟", "吴二", "恒通"], ["A2", "乙", "张三", "李强", "远航"],
               ["A3", "丙", "周一", "孙五", "远航"], ["A4", "丁", "钱六", "郑七", "恒通"]],
        "e3": [["A1", "甲", "王伟", "赵敏", "华信"], ["A2", "乙", "张三", "吴二", "恒通"],
               ["A3", "丙", "周一", "孙五", "远航"], ["A4", "丁", "钱六", "郑七", "远航"]],
        "e4": [["A1", "甲", "王伟", "冯八", "华信"], ["A2", "乙", "张三", "周一", "远航"],
               ["A3", "丙", "陈九", "孙五", "远航"], ["A4", "丁", "钱六", "郑七", "恒通"]],
        "e5": [["A1", "甲", "王伟", "赵敏", "华信"], ["A2", "乙", "张三", "吴二", "恒通"],
               ["A3", "丙", "周一", "孙五", "远航"], ["A4", "丁", "钱六", "郑七", "远航"]],
        "e6": [["A1", "甲", "王伟", "冯八", "华信"], ["A2", "乙", "张三", "李强", "远航"],
               ["A3", "丙", "陈九", "孙五", "远航"], ["A4", "丁", "钱六", "郑七", "恒通"]],
    }
    shown, unclear = {}, set()
    for n, (event_id, teams) in enumerate(rows.items()):
        register(event_id, f"2025-0{n + 1}-05", teams)
        now = {**ids(db_file, "王伟"), **{("张三",) + k: v for k, v in ids(db_file, "张三").items()}}
        moved = {k: (v, now[k]) for k, v in shown.items() if now[k] != v and k not in unclear}
        assert not moved, moved
        shown = now
        with db.reading(db_file) as con:
            unclear = {("张三", e, t) for e, t in db.rows(
                con, "select event_id, team_no from player_map where name = '张三' and note "
                     "is not null")}
    assert len(set(ids(db_file, "王伟").values())) == 1
    zhang = ids(db_file, "张三")
    assert zhang[("e1", "A2")] == zhang[("e3", "A2")] == zhang[("e5", "A2")]
    assert zhang[("e2", "A2")] == zhang[("e4", "A2")] == zhang[("e6", "A2")] != zhang[("e1", "A2")]
    listing = {r["player_id"]: r for r in read_csv_output(cli("players", "--format", "csv").out)}
    assert "多个单位 several units" in listing[ids(db_file, "王伟")[("e1", "A1")]]["review"]
    assert zhang[("e2", "A2")] in listing[zhang[("e1", "A2")]]["review"]


def test_two_surnames_are_never_folded_into_one(register, db_file):
    register("e1", "2025-01-05", [["A1", "甲", "於明", "李强", "恒通"],
                                  ["A2", "乙", "于明", "吴二", "恒通"]])
    assert set(ids(db_file, "於明").values()).isdisjoint(ids(db_file, "于明").values())


def test_namesakes_of_one_unit_are_two_people_and_member_ids_are_one(register, db_file, cli):
    """Issue 39: namesakes never block a registration — two 王伟 of one company are two
    people, stored and flagged for review; a member id given twice is one person in two
    teams (refused), and one name twice in one team is refused with its row."""
    done = register("e1", "2025-01-05", [["A1", "甲", "王伟", "李强", "恒通"],
                                         ["A2", "乙", "王伟", "吴二", "恒通"]])
    assert done.code == 0 and "同名同单位，按两人登记" in flat(done.out + done.err)
    assert len(set(ids(db_file, "王伟").values())) == 2  # two people
    review = {r["player_id"]: r["review"] for r in read_csv_output(
        cli("players", "--format", "csv").out) if r["name"] == "王伟"}
    assert len(review) == 2 and all(review.values())  # each flagged for review
    same_team = register("e0", "2025-01-04", [["A1", "甲", "赵敏", "赵敏", "恒通"]])
    assert same_team.code == 2 and "同一队出现两次" in flat(same_team.err)
    twice = register("e2", "2025-01-06", [["A1", "王伟", "JS-1", "李强", "", "恒通"],
                                          ["A2", "周一", "JS-1", "吴二", "", "远航"]],
                     MEMBER_HEADER)
    assert twice.code == 2 and "会员号JS-1已在第2行" in flat(twice.err)
    # two namesakes of one club, told apart by their member ids: two people, the ids shown
    assert register("e3", "2025-01-07", [["A1", "王伟", "js-1", "李强", "", "恒通"],
                                         ["A2", "王伟", "JS-2", "吴二", "", "恒通"]],
                    MEMBER_HEADER).code == 0
    assert {k: v for k, v in ids(db_file, "王伟").items() if k[0] == "e3"} == {
        ("e3", "A1"): "JS-1", ("e3", "A2"): "JS-2"}


def test_the_member_id_decides_but_never_pulls_in_a_name_it_never_had(register, db_file, cli):
    """Issue 52: JS-9 has always been 王伟's. Given in e2 for 王玮 (a typo of the name, or
    another man), it is a claim for review, never a merge: 王玮 is somebody of his own and
    the review says whose id it is; 王伟's history keeps his id (one seat an event)."""
    register("e1", "2025-01-05", [["A1", "王伟", "JS-9", "李强", "", "恒通"],
                                  ["A2", "周一", "", "吴二", "", "远航"]], MEMBER_HEADER)
    register("e2", "2025-02-05", [["A1", "王玮", "JS-9", "李强", "", "恒通"],
                                  ["A2", "王伟", "JS-3", "吴二", "", "远航"]], MEMBER_HEADER)
    assert ids(db_file, "王伟") == {("e1", "A1"): "JS-9", ("e2", "A2"): "JS-3"}
    other = ids(db_file, "王玮")[("e2", "A1")]
    assert other not in ("JS-9", "JS-3")
    review = {r["player_id"]: r["review"] for r in read_csv_output(
        cli("players", "--format", "csv").out)}
    assert "会员号 JS-9 一向是 王伟，本场写的是 王玮" in review[other]
    with db.reading(db_file) as con:
        assert db.rows(con, "select count(*) from player_map where player_id = 'JS-9'") \
            == [(1,)]
    assert "players joined" not in "\n".join(oplog.read(db_file))


def test_a_member_id_twice_in_one_event_is_refused_with_its_rows(register, db_file):
    """One id twice in one event (two sheets of one registration, or one sheet) is refused
    with its rows; nothing of that sheet is stored."""
    done = register("e1", "2025-01-05", [["A1", "王伟", "SZ-100", "李强", "", "恒通"],
                                         ["A2", "张三", "SZ-100", "吴二", "", "远航"]],
                    MEMBER_HEADER)
    assert done.code == 2 and "会员号SZ-100已在第2行" in flat(done.err)
    with db.reading(db_file) as con:
        assert db.rows(con, "select count(*) from teams where event_id = 'e1'") == [(0,)]


def test_namesakes_in_one_event_are_two_people_and_a_split_by_team(register, db_file, cli):
    """Two 张三 of different units in e2: the one of the unit 张三 played for in e1 keeps his
    history, the other is somebody new, flagged beside him. A split by team separates one
    appearance of an event for the organizer who knows better."""
    register("e1", "2025-01-05", [["A1", "甲", "张三", "李四", "恒通"],
                                  ["A2", "乙", "周一", "吴二", "远航"]])
    register("e2", "2025-02-05", [["A1", "甲", "张三", "李四", "恒通"],
                                  ["A2", "乙", "张三", "吴二", "远航"]])
    found = ids(db_file, "张三")
    assert found[("e1", "A1")] == found[("e2", "A1")] != found[("e2", "A2")]
    listing = {r["player_id"]: r for r in read_csv_output(cli("players", "--format", "csv").out)}
    assert found[("e1", "A1")] in listing[found[("e2", "A2")]]["review"]
    li = ids(db_file, "李四")[("e2", "A1")]
    assert cli("players", "split", li, "--event", "e2", "--team", "A1", "--reason",
               "报名表写错").code == 0
    after = ids(db_file, "李四")
    assert after[("e1", "A1")] == li != after[("e2", "A1")]
    assert cli("players", "split", li, "--event", "e2", "--team", "A9").code == 2


def test_merges_of_many_are_undone_exactly_and_logged(register, db_file, cli, tmp_path):
    register("e1", "2025-01-05", [["A1", "甲", "王伟", "李强", "恒通"],
                                  ["A2", "乙", "王小伟", "吴二", "远航"]])
    register("e2", "2025-02-05", [["A1", "甲", "王大伟", "李强", "恒通"],
                                  ["A2", "乙", "周一", "吴二", "远航"]])
    with db.reading(db_file) as con:
        before = db.rows(con, "select * from player_map order by all")
    keep = ids(db_file, "王伟")[("e1", "A1")]
    small, big = ids(db_file, "王小伟")[("e1", "A2")], ids(db_file, "王大伟")[("e2", "A1")]
    assert cli("players", "merge", keep, small, big, "--reason", "同一人改名").code == 0
    assert {ids(db_file, n).popitem()[1] for n in ("王伟", "王小伟", "王大伟")} == {keep}
    assert cli("players", "unmerge", small, "--reason", "合错了").code == 0
    assert ids(db_file, "王小伟") == {("e1", "A2"): small}
    assert ids(db_file, "王大伟") == {("e2", "A1"): keep}  # the other merge stands
    assert cli("players", "unmerge", big).code == 0
    with db.reading(db_file) as con:
        assert db.rows(con, "select * from player_map order by all") == before  # exactly
    assert cli("players", "unmerge", big).code == 2  # nothing left to undo
    # a sheet of merges, as an association's secretary keeps them
    sheet = write_csv(tmp_path / "merges.csv", [["保留编号", "合并编号"], [keep, small],
                                                [keep, big]])
    assert cli("players", "merge", "--from", sheet, "--reason", "年度核对").code == 0
    assert {ids(db_file, n).popitem()[1] for n in ("王小伟", "王大伟")} == {keep}
    logged = "\n".join(oplog.read(db_file))
    assert f"{small}, {big} → {keep} · 原因 reason: 同一人改名" in logged
    assert "players unmerge" in logged and "合错了" in logged and "年度核对" in logged


def test_namesakes_without_units_are_two_people(register, db_file):
    """No unit to tell them apart and no member ids: two 张伟 in two teams are accepted as
    two people (one person in two teams cannot be told from namesakes here), each flagged."""
    assert register("e1", "2025-01-05", [["A1", "红队", "张伟", "李娜", ""],
                                         ["A2", "蓝队", "张伟", "王芳", ""]]).code == 0
    found = ids(db_file, "张伟")
    assert len(found) == 2 and found[("e1", "A1")] != found[("e1", "A2")]


def test_two_events_of_one_game_on_one_day_are_flagged_a_meet_s_two_games_are_not(
        register, cli, tmp_path):
    """One person cannot play two Guandan events on one day (two people under one name, or
    a wrong merge: flagged); a sports meet's Guandan and Tractor events of one day can have
    the same player (not flagged)."""
    register("g1", "2026-05-01", [["A1", "x", "王伟", "李明", "恒通"],
                                  ["A2", "y", "赵强", "孙丽", "华信"]])
    register("g2", "2026-05-01", [["A1", "x", "王伟", "周一", "恒通"],
                                  ["A2", "y", "吴二", "郑三", "华信"]])
    assert cli("event", "create", "--id", "t1", "--name", "拖拉机", "--ruleset",
               "hengquan-2025-tractor", "--date", "2026-05-01").code == 0
    assert cli("ingest", "--event", "t1", write_csv(tmp_path / "t1.csv", [
        HEADER, ["A1", "x", "李明", "钱四", "恒通"], ["A2", "y", "冯五", "陈六", "华信"]])).code == 0
    listing = {r["name"]: r for r in read_csv_output(cli("players", "--format", "csv").out)}
    assert "2026-05-01" in listing["王伟"]["review"]  # two Guandan events that day
    assert "2026-05-01" not in listing["李明"]["review"]  # Guandan and Tractor: a meet


def test_a_member_id_given_for_another_name_is_flagged_and_imports_are_logged(register, cli,
                                                                              db_file):
    """Issue 40: 李四 given 张三's member id is flagged in the report with both names (the
    id would hold both men's games); an imported event is in paisai log."""
    register("e1", "2025-01-05", [["A1", "张三", "JS-1", "李强", "", "恒通"],
                                  ["A2", "周一", "", "吴二", "", "远航"]], MEMBER_HEADER)
    done = register("e2", "2025-02-05", [["A1", "李四", "JS-1", "王五", "", "恒通"],
                                         ["A2", "周一", "", "吴二", "", "远航"]], MEMBER_HEADER)
    said = flat(done.out + done.err)
    assert done.code == 0 and "会员号JS-1登记的是“张三”，这里写的是“李四”" in said
    same = register("e3", "2025-03-05", [["A1", "张 三", "JS-1", "王五", "", "恒通"],
                                         ["A2", "周一", "", "吴二", "", "远航"]], MEMBER_HEADER)
    assert "登记的是" not in flat(same.out + same.err)  # the same name, written apart


def test_a_name_split_within_one_club_asks_one_person_under_two_ids(register, cli):
    """Issue 52's acceptance: 王伟 of 恒通 split off for one event by the organizer; the two
    ids share their unit. The split is the organizer's answer: the two are not asked about
    each other (an association's acceptance: "一人两号？" stayed after the decision). A new
    event where 王伟 plays with 李强 again — the split-off 王伟's partner too — is new
    evidence: then the flag asks "one person under two ids?", never "under two units?" (one
    unit is involved)."""
    for event_id, day in (("e1", "2025-01-05"), ("e2", "2025-02-05"), ("e3", "2025-03-05")):
        register(event_id, day, [["A1", "甲", "王伟", "李强", "恒通"],
                                 ["A2", "乙", "周一", "吴二", "远航"]])
    listing = read_csv_output(cli("players", "--format", "csv").out)
    (whole,) = [r["player_id"] for r in listing if r["name"] == "王伟"]
    assert cli("players", "split", whole, "--event", "e2", "--reason", "核对").code == 0
    listing = read_csv_output(cli("players", "--format", "csv").out)
    wang = {r["player_id"]: r["review"] for r in listing if r["name"] == "王伟"}
    assert len(wang) == 2 and set(wang.values()) == {""}
    register("e4", "2025-04-05", [["A1", "甲", "王伟", "李强", "恒通"],
                                  ["A2", "乙", "周一", "吴二", "远航"]])
    listing = read_csv_output(cli("players", "--format", "csv").out)
    wang = {r["player_id"]: r["review"] for r in listing if r["name"] == "王伟"}
    assert len(wang) == 2
    for player_id, review in wang.items():
        other = next(p for p in wang if p != player_id)
        assert f"一人两号？ one person under two ids?: {other}" in review
        assert "一人两单位" not in review


def test_flags_say_two_people_with_one_name_or_one_person_under_two_units(register, cli):
    """Issue 52, by hand: 王伟 plays for 恒通 with 李强 in 2023, then two years later for 华信
    with 赵敏 — nothing joins the two (no partner kept, a gap over a year): two ids, each
    asking "one person under two units?" about the other. Two 张三 sit in one event (恒通
    and 远航): certainly two people, flagged "two people with one name?"."""
    register("e1", "2023-01-05", [["A1", "甲", "王伟", "李强", "恒通"],
                                  ["A2", "乙", "周一", "吴二", "远航"]])
    register("e2", "2023-03-05", [["A1", "甲", "王伟", "李强", "恒通"],
                                  ["A2", "乙", "周一", "吴二", "远航"]])
    register("e3", "2025-06-05", [["A1", "甲", "王伟", "赵敏", "华信"],
                                  ["A2", "乙", "张三", "吴二", "远航"],
                                  ["A3", "丙", "张三", "孙五", "恒通"],
                                  ["A4", "丁", "钱六", "郑七", "恒通"]])
    register("e4", "2025-08-05", [["A1", "甲", "王伟", "赵敏", "华信"],
                                  ["A2", "乙", "周一", "吴二", "远航"]])
    listing = read_csv_output(cli("players", "--format", "csv").out)
    wang = {r["player_id"]: r["review"] for r in listing if r["name"] == "王伟"}
    zhang = {r["player_id"]: r["review"] for r in listing if r["name"] == "张三"}
    assert len(wang) == 2 and len(zhang) == 2
    for player_id, review in wang.items():
        other = next(p for p in wang if p != player_id)
        assert f"一人两单位？ one person under two units?: {other}" in review
        assert "同名两人" not in review
    for player_id, review in zhang.items():
        other = next(p for p in zhang if p != player_id)
        assert f"同名两人？ two people with one name?: {other}" in review
        assert "一人两单位" not in review


def test_two_lasting_partners_taking_turns_ask_two_people_and_a_stand_in_is_marked(
        db_file, tmp_path, cli):
    """Issue 52's acceptance, through `paisai import-event`: 王伟 of 恒通, no member id, with
    周一 in e1, e3, e5 and with 孙五 in e2, e4, e6 — lasting partnerships taking turns: one
    id (the seats cannot tell two namesakes from one person with two partners) whose review
    asks "two people with one name?". Then both sit in e8 (two people after all: two ids,
    each asked about the other), and in e7 a 王伟 played with 郑七, whom neither ever had: a
    stand-in either could have been, marked on the id it is given to (`paisai players`'
    review, and `paisai player` names the event)."""
    def play(n: int, partners: list[str]) -> None:
        teams = [(f"A{k + 1}", "王伟", p, "恒通") for k, p in enumerate(partners)]
        import_event(db_file, tmp_path, f"e{n}", f"2025-{n:02d}-10", [
            *teams, *([("B1", "赵敏", "钱六", "华信")] if len(teams) % 2 else [])])

    for n in range(1, 7):
        play(n, ["周一" if n % 2 else "孙五"])
    listing = read_csv_output(cli("players", "--format", "csv").out)
    (review,) = [r["review"] for r in listing if r["name"] == "王伟"]
    assert "同名两人？两个搭档轮流出现 two people with one name? two lasting partners taking " \
           "turns: review" in review
    play(7, ["郑七"])
    play(8, ["周一", "孙五"])
    seats = ids(db_file, "王伟")
    zhou, sun = seats[("e1", "A1")], seats[("e2", "A1")]
    assert zhou != sun
    assert {seats[(f"e{n}", "A1")] for n in (1, 3, 5)} | {seats[("e8", "A1")]} == {zhou}
    assert {seats[(f"e{n}", "A1")] for n in (2, 4, 6)} | {seats[("e8", "A2")]} == {sun}
    listing = read_csv_output(cli("players", "--format", "csv").out)
    wang = {r["player_id"]: r["review"] for r in listing if r["name"] == "王伟"}
    assert set(wang) == {zhou, sun}
    for player_id, other in ((zhou, sun), (sun, zhou)):
        assert f"同名两人？ two people with one name?: {other}" in wang[player_id]
    stand_in = seats[("e7", "A1")]
    assert "替补一场，同名者皆可能 a stand-in's event, either namesake's: review" in wang[stand_in]
    assert "替补一场" not in wang[sun if stand_in == zhou else zhou]
    profile = cli("player", stand_in)  # the profile names the seat to look at
    assert profile.code == 0
    assert "待核对 review e7 A1: 替补一场，同名者皆可能 a stand-in's event, either namesake's: " \
           "review" in profile.out


def test_the_organizers_split_answers_the_turns_question(db_file, tmp_path, cli):
    """王伟 of 恒通 with 周一 in e1, e3, e5 and with 孙五 in e2, e4, e6 is asked about ("two
    people with one name?"); the organizer says two people — the 孙五 seats split off and
    merged into one id — and those seats are asked no more (an association's acceptance:
    the question stayed after the decision)."""
    for n in range(1, 7):
        import_event(db_file, tmp_path, f"e{n}", f"2025-{n:02d}-10", [
            ("A1", "王伟", "周一" if n % 2 else "孙五", "恒通"), ("B1", "赵敏", "钱六", "华信")])
    one = ids(db_file, "王伟")[("e1", "A1")]
    for n in (2, 4, 6):
        assert cli("players", "split", one, "--event", f"e{n}").code == 0
    halves = [ids(db_file, "王伟")[(f"e{n}", "A1")] for n in (2, 4, 6)]
    assert cli("players", "merge", *halves).code == 0
    seats = ids(db_file, "王伟")
    sun = seats[("e2", "A1")]
    assert {seats[(f"e{n}", "A1")] for n in (2, 4, 6)} == {sun} and sun != one
    listing = read_csv_output(cli("players", "--format", "csv").out)
    review = " ".join(r["review"] or "" for r in listing if r["name"] == "王伟")
    assert "轮流" not in review
