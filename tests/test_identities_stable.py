"""Issue 40: an id, once shown, names the same person forever. Six events of a small league
imported through `paisai import-event` in three orders: 王伟 of 恒通 and 王伟 of 远航 (both
playing the whole season: two people), 李明 moving from 恒通 to 华信 (one person), a 恒通
王伟 once under his partner's club (a visit). Who is who was written by hand below; the
ids are only compared with each other."""

from __future__ import annotations

import pytest
from conftest import RESULT_HEADER, import_event, write_csv

from pipeline.base import db
from pipeline.cli import main

HEADER = ["队号", "队名", "队员1", "队员2", "单位"]
# (team, player1, player2, unit, who player1 really is)
EVENTS = {
    "e1": [("A1", "王伟", "周一", "恒通", "W1"), ("A2", "王伟", "孙五", "远航", "W2"),
           ("A3", "李明", "吴二", "恒通", "L"), ("A4", "赵敏", "钱六", "华信", "Z")],
    "e2": [("A1", "王伟", "赵敏", "恒通", "W1"), ("A2", "李明", "周一", "恒通", "L"),
           ("A3", "王伟", "郑七", "远航", "W2"), ("A4", "钱六", "冯八", "华信", "Q")],
    "e3": [("A1", "王伟", "赵敏", "华信", "W1"), ("A2", "王伟", "孙五", "远航", "W2"),
           ("A3", "李明", "周一", "恒通", "L"), ("A4", "钱六", "冯八", "华信", "Q")],
    "e4": [("A1", "王伟", "周一", "恒通", "W1"), ("A2", "李明", "冯八", "华信", "L"),
           ("A3", "王伟", "郑七", "远航", "W2"), ("A4", "赵敏", "钱六", "华信", "Z")],
    "e5": [("A1", "李明", "钱六", "华信", "L"), ("A2", "王伟", "吴二", "恒通", "W1"),
           ("A3", "王伟", "孙五", "远航", "W2"), ("A4", "赵敏", "冯八", "华信", "Z")],
    "e6": [("A1", "李明", "赵敏", "华信", "L"), ("A2", "王伟", "周一", "恒通", "W1"),
           ("A3", "王伟", "郑七", "远航", "W2"), ("A4", "钱六", "冯八", "华信", "Q")],
}
TRUTH = {(e, team): who for e, rows in EVENTS.items() for team, _, _, _, who in rows}


def _import(cli, tmp_path, event_id: str) -> None:
    folder = tmp_path / event_id
    folder.mkdir()
    write_csv(folder / "报名.csv", [HEADER, *[[t, f"{t}队", a, b, u]
                                             for t, a, b, u, _ in EVENTS[event_id]]])
    write_csv(folder / "第1轮.csv", [RESULT_HEADER, [1, 1, "A1", "A2", "10", "8"],
                                     [1, 2, "A3", "A4", "9", "A"]])
    month = int(event_id[1:])
    assert cli("import-event", "--id", event_id, "--name", event_id, "--ruleset",
               "suzhou-2025", "--date", f"2025-{month:02d}-10", folder).code == 0


def _seats(database) -> dict[tuple[str, str], tuple[str, str | None]]:
    """(event, team) → (id, note) of player1."""
    with db.reading(database) as con:
        return {(e, t): (p, n) for e, t, p, n in db.rows(
            con, "select event_id, team_no, player_id, note from player_map where slot = 1")}


@pytest.mark.parametrize("order", [[1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1], [3, 6, 1, 5, 2, 4]])
def test_ids_never_move_and_people_are_found_whatever_the_order(cli, db_file, tmp_path, order):
    shown: dict[tuple[str, str], tuple[str, str | None]] = {}
    for number in order:
        _import(cli, tmp_path, f"e{number}")
        now = _seats(db_file)
        # every seat shown before keeps its id, unless it was marked unclear when shown
        moved = {k: (v[0], now[k][0]) for k, v in shown.items() if now[k][0] != v[0]
                 and not v[1]}
        assert not moved, (order, number, moved)
        shown = now
    people = {}
    for key, (player_id, _) in shown.items():
        people.setdefault(TRUTH[key], set()).add(player_id)
    assert all(len(ids) == 1 for ids in people.values()), people  # everyone whole
    assert len({next(iter(ids)) for ids in people.values()}) == len(people)  # none shared


def test_a_reimport_of_the_registration_renumbered_keeps_every_id(cli, db_file, tmp_path):
    """The registration of e2 stored again with its teams in another order (A1 ↔ A3):
    everyone keeps the id they had, and the merge an organizer made stays made."""
    for number in (1, 2, 3):
        _import(cli, tmp_path, f"e{number}")
    with db.reading(db_file) as con:
        before = dict(db.rows(con, "select name || '/' || affiliation, player_id from "
                                   "player_map where event_id = 'e2' and slot = 1"))
        zhou, wu = (db.scalar(con, "select player_id from player_map where name = ?", [n])
                    for n in ("周一", "吴二"))
    assert cli("players", "merge", zhou, wu, "--reason", "同一人 one person").code == 0
    rows = EVENTS["e2"]
    swapped = [(rows[2][0], *rows[0][1:]), rows[1], (rows[0][0], *rows[2][1:]), rows[3]]
    write_csv(tmp_path / "again.csv", [HEADER, *[[t, f"{t}队", a, b, u]
                                                 for t, a, b, u, _ in swapped]])
    assert cli("ingest", "--event", "e2", tmp_path / "again.csv").code == 0
    with db.reading(db_file) as con:
        after = dict(db.rows(con, "select name || '/' || affiliation, player_id from "
                                  "player_map where event_id = 'e2' and slot = 1"))
        merged = db.scalar(con, "select count(distinct player_id) from player_map where "
                                "name in ('周一', '吴二')")
    assert after == before and merged == 1


def test_a_database_of_the_previous_version_keeps_the_ids_it_showed(cli, db_file, tmp_path):
    """A player map made by the previous scheme (ids from the name, a namesake's from the
    name and unit): opened by this version, every seat keeps the id it showed, or an id that
    finds the same person."""
    from pipeline.history import identity

    for number in (1, 2, 3):
        _import(cli, tmp_path, f"e{number}")
    with db.writing(db_file) as con:  # the file as the previous version left it
        teams = db.frame(con, "select event_id, team_no, player1, player2, player3, player4, "
                              "member1, member2, member3, member4, affiliation from teams")
        legacy = identity.appearances(teams)
        con.register("legacy", legacy.select("event_id", "team_no", "slot", "player_id"))
        con.execute("update player_map as m set player_id = l.player_id, base_id = null, "
                    "visit = null, note = null from legacy as l where l.event_id = m.event_id "
                    "and l.team_no = m.team_no and l.slot = m.slot")
        con.execute("delete from identity_anchors")
        con.execute("delete from identity_aliases")
        con.execute("update identity_scheme set version = 2")
        shown = dict(db.rows(con, "select event_id || team_no || slot, player_id "
                                  "from player_map"))
    assert len(set(shown.values())) > 5
    assert cli("players", "--format", "csv").code == 0  # opened by this version
    with db.reading(db_file) as con:
        now = dict(db.rows(con, "select event_id || team_no || slot, player_id "
                                "from player_map"))
        aliases = dict(db.rows(con, "select alias, player_id from identity_aliases"))
        assert db.scalar(con, "select max(version) from identity_scheme") == identity.SCHEME
    # the same ids, but 王伟 of 恒通's: the previous scheme gave both 王伟 (in every event
    # together) an id made with their unit and cut 恒通's in two (once under his partner's
    # 华信); he is now the name's first person (恒通 before 远航 in e1), so he takes the
    # name's own id, and both his old ids are aliases that find him; 远航's keeps his
    kept = {seat for seat in shown if now[seat] == shown[seat]}
    joined = {seat for seat in shown if aliases.get(shown[seat]) == now[seat]}
    assert kept | joined == set(shown) and joined == {"e1A11", "e2A11", "e3A11"}
    assert now["e1A11"] == identity.association_id("王伟", None)
    assert now["e1A21"] == shown["e1A21"] == identity.association_id("王伟", None, "远航")
    assert cli("player", shown["e3A11"]).code == 0  # the old id still finds him
    said = cli("log").out  # and the log says so
    assert "players joined" in said and shown["e3A11"] in said


def test_two_import_orders_give_the_same_id_strings(tmp_path):
    """Issue 52: two offices importing the same six events in other orders build archives
    whose ids are the same strings, seat for seat."""
    shown = []
    for order in ([1, 2, 3, 4, 5, 6], [6, 3, 5, 1, 4, 2]):
        database = tmp_path / f"{order[0]}.duckdb"
        folder = tmp_path / f"sheets-{order[0]}"
        folder.mkdir()
        for number in order:
            assert main(["import-event", "--id", f"e{number}", "--name", f"e{number}",
                         "--ruleset", "suzhou-2025", "--date", f"2025-{number:02d}-10",
                         str(_sheets(folder, f"e{number}")), "--db", str(database)]) == 0
        with db.reading(database) as con:
            shown.append(db.rows(con, "select event_id, team_no, slot, player_id from "
                                      "player_map order by all"))
    assert shown[0] == shown[1]
    assert len({p for *_, p in shown[0]}) == 10  # two 王伟, 李明, 赵敏, 钱六 and five partners


def _sheets(folder, event_id: str):
    there = folder / event_id
    there.mkdir()
    write_csv(there / "报名.csv", [HEADER, *[[t, f"{t}队", a, b, u]
                                            for t, a, b, u, _ in EVENTS[event_id]]])
    write_csv(there / "第1轮.csv", [RESULT_HEADER, [1, 1, "A1", "A2", "10", "8"],
                                    [1, 2, "A3", "A4", "9", "A"]])
    return there


# Two 张伟 (issue 52): Z1 of 恒通 with 周一 in e1–e3; Z2 of 远航 with 孙五 in e2–e4, and in e1
# with 孙五 under 华信. Both first play in e1, where 华信 comes before 恒通: Z2 is the name's
# first person and takes the name's own id, Z1 the name's with 恒通 (his first seat's unit).
NAMESAKES = {
    "e1": [("A1", "张伟", "周一", "恒通"), ("A2", "张伟", "孙五", "华信"),
           ("A3", "赵敏", "钱六", "华信"), ("A4", "冯八", "郑七", "华信")],
    "e2": [("A1", "张伟", "周一", "恒通"), ("A2", "张伟", "孙五", "远航"),
           ("A3", "赵敏", "钱六", "华信"), ("A4", "冯八", "郑七", "华信")],
    "e3": [("A1", "张伟", "周一", "恒通"), ("A2", "张伟", "孙五", "远航"),
           ("A3", "赵敏", "钱六", "华信"), ("A4", "冯八", "郑七", "华信")],
    "e4": [("A1", "张伟", "孙五", "远航"), ("A2", "赵敏", "钱六", "华信")],
}


def test_namesakes_take_the_same_id_strings_in_any_order_and_renamed_ids_still_find(tmp_path):
    """Imported by date and backwards, the two 张伟 end with the same strings, written by
    hand from the rule. Backwards, Z2 first showed the name's own id (alone in e4), then the
    name's with 远航 (behind Z1 in e3), then the name's own again (e1): his 远航 id is now an
    alias that finds him, and `paisai log` lists the renames."""
    from pipeline.history.identity import association_id

    z1, z2 = association_id("张伟", None, "恒通"), association_id("张伟", None)
    shown = []
    for order in ([1, 2, 3, 4], [4, 3, 2, 1]):
        database = tmp_path / f"{order[0]}.duckdb"
        for number in order:
            event_id = f"e{number}"
            import_event(database, tmp_path / str(order[0]), event_id,
                         f"2025-{number:02d}-10", NAMESAKES[event_id])
        with db.reading(database) as con:
            seats = dict(((e, t), p) for e, t, p in db.rows(
                con, "select event_id, team_no, player_id from player_map where name = '张伟'"))
            aliases = dict(db.rows(con, "select alias, player_id from identity_aliases"))
        assert seats == {("e1", "A1"): z1, ("e2", "A1"): z1, ("e3", "A1"): z1,
                         ("e1", "A2"): z2, ("e2", "A2"): z2, ("e3", "A2"): z2,
                         ("e4", "A1"): z2}
        shown.append((seats, aliases, database))
    (_, forwards, _), (_, backwards, database) = shown
    assert forwards == {}  # by date, no id ever had to change
    assert backwards == {association_id("张伟", None, "远航"): z2}
    from pipeline.base import oplog

    said = "\n".join(oplog.read(database))
    assert "ids renamed" in said and f"{association_id('张伟', None, '远航')} → {z2}" in said
    assert main(["player", association_id("张伟", None, "远航"), "--db", str(database)]) == 0
