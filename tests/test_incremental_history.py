"""Issue 52: `paisai import-event` keeps the history current one event at a time — the player
map from the changed events' names (and their partners'), the ratings from the games the last
fit read with the new event's appended, warm-started — and that ends where a full recompute
from scratch ends. And an event dated earlier but imported later moves no id to another
person."""

from __future__ import annotations

import pytest
from conftest import RESULT_HEADER, write_csv

from pipeline.base import db
from pipeline.cli import main

# A rating is shown as 1500 + 100 × levels, rounded: a shown point is 0.01 levels. Each fit
# stops when its residual is 10⁻⁴ of the right-hand side (rating_model._solve), so fits of the
# same games from another start (warm from the list before, or cold) differ a little: up to
# 2·10⁻³ levels measured on this league (the history points of small early fields). Half a
# shown point is the tolerance: a rating shown may differ by one point at a rounding edge.
LEVELS = 5e-3
HEADER = ["队号", "队名", "队员1", "队员2", "单位"]


def _league(monkeypatch):
    """bench/associations.py's league made small: lasting partnerships, a quarter of teams
    under the partner's club, movers, namesakes in and across clubs, member ids with typos
    and a member's id under another name."""
    from bench import associations

    for name, value in (("PLAYERS", 80), ("CLUBS", 8), ("EVENTS", 12), ("NAMESAKES_ACROSS", 3),
                        ("NAMESAKES_WITHIN", 2), ("WRONG_IDS", 1)):
        monkeypatch.setattr(associations, name, value)
    monkeypatch.setattr(associations, "ACTIVITY", (0.4, 0.8))
    return associations, associations.simulate(3)


def _state(database) -> tuple[dict, dict, dict]:
    with db.reading(database) as con:
        seats = {(e, t, s): (p, b, v, n) for e, t, s, p, b, v, n in db.rows(
            con, "select event_id, team_no, slot, player_id, base_id, visit, note "
                 "from player_map")}
        listed = {p: (mu, o, g) for p, mu, o, g in db.rows(
            con, "select player_id, mu, ordinal, games from ratings")}
        history = {(p, e): mu for p, e, mu in db.rows(
            con, "select player_id, event_id, mu from rating_history")}
    return seats, listed, history


def test_one_event_at_a_time_ends_where_a_full_recompute_ends(tmp_path, monkeypatch):
    from pipeline.history import identity, ratings

    associations, league = _league(monkeypatch)
    database = tmp_path / "a.duckdb"
    associations.feed(database, league, tmp_path / "sheets")  # import_event, one by one
    seats, listed, history = _state(database)
    with db.reading(database) as con:
        assert db.scalar(con, "select count(*) from rating_player_cache") > 0  # appended
    with db.writing(database) as con:  # from scratch: every name, every game
        identity.refresh(con, full=True)
        ratings.recompute(con)
    again, relisted, rehistory = _state(database)
    assert again == seats  # the same ids, visits and notes, seat for seat
    assert relisted.keys() == listed.keys() and rehistory.keys() == history.keys()
    worst = max(abs(listed[p][0] - relisted[p][0]) for p in listed)
    assert worst < LEVELS, worst
    assert all(abs(listed[p][1] - relisted[p][1]) <= 1 and listed[p][2] == relisted[p][2]
               for p in listed)
    assert max(abs(history[k] - rehistory[k]) for k in history) < LEVELS
    # and the same people in the same way when the league is built in one go
    fresh = tmp_path / "b.duckdb"
    shuffled = sorted({t["event_id"] for t in league["teams"]}, reverse=True)
    associations.feed(fresh, league, tmp_path / "sheets-2", shuffled)
    assert {k: v[0] for k, v in _state(fresh)[0].items()} == {k: v[0] for k, v in
                                                              seats.items()}


def test_appended_games_are_the_games_read_from_scratch(tmp_path, monkeypatch):
    """After imports in batches the cached games (what the next fit starts from) are the
    games a fit reads from the file, in the same order, whatever their players' numbering."""
    from pipeline.history import rating_games, ratings

    associations, league = _league(monkeypatch)
    database = tmp_path / "a.duckdb"
    events = sorted({t["event_id"] for t in league["teams"]})
    for n in range(0, len(events), 4):
        some = set(events[n:n + 4])
        associations.feed(database, {**league, "teams": [t for t in league["teams"]
                                                         if t["event_id"] in some]},
                          tmp_path / f"s{n}")
        with db.reading(database) as con:
            read, cached = ratings.read_games(con), rating_games.cached_games(con, [])
        columns = ["event_id", "day", "margin"]
        assert read.frame.select(columns).equals(
            cached.frame.select(columns).cast(read.frame.select(columns).schema))
        seats = [sorted(zip(games.g.tolist(), games.player_ids.gather(games.p).to_list(),
                            games.s.tolist(), strict=True)) for games in (read, cached)]
        assert seats[0] == seats[1]


def _import(database, folder, event_id: str, day: str, teams: list[tuple]) -> None:
    there = folder / event_id
    there.mkdir(parents=True)
    write_csv(there / "报名.csv", [HEADER, *[[t, f"{t}队", a, b, u]
                                                    for t, a, b, u in teams]])
    write_csv(there / "第1轮.csv", [RESULT_HEADER, *[
        [1, n + 1, teams[2 * n][0], teams[2 * n + 1][0], "10", "8"]
        for n in range(len(teams) // 2)]])
    assert main(["import-event", "--id", event_id, "--name", event_id, "--ruleset",
                 "suzhou-2025", "--date", day, str(there), "--db", str(database)]) == 0


# 张伟 of 恒通 (with 周一) plays in e2 and e3; 张伟 of 远航 (with 孙五) in e3 (beside him: two
# people) and in e1, which is dated before them both but imported last.
LATE = {
    "e1": ("2025-01-10", [("A1", "张伟", "孙五", "远航"), ("A2", "赵敏", "钱六", "华信")]),
    "e2": ("2025-02-10", [("A1", "张伟", "周一", "恒通"), ("A2", "赵敏", "钱六", "华信")]),
    "e3": ("2025-03-10", [("A1", "张伟", "周一", "恒通"), ("A2", "张伟", "孙五", "远航")]),
}


@pytest.mark.xfail(strict=True, reason=(
    "open (issue 52): ids from each person's first evidence in date order give the name's own "
    "id to the earliest 张伟, so an earlier event imported later hands the id 恒通's showed to "
    "远航's (no alias can keep it). The rule asserted here (the name's own id only for a name "
    "of one person) was tried: it renames the main person whenever evidence splits a name "
    "for a while, and issue 40's tests (ids never move) fail at five places — a decision "
    "between the two guarantees, left to the lead"))
@pytest.mark.parametrize("order", [["e1", "e2", "e3"], ["e2", "e3", "e1"]])
def test_an_earlier_event_imported_later_takes_no_id_from_another_person(cli, db_file,
                                                                        tmp_path, order):
    """The name's own id is only for a name of one person: 恒通's 张伟, alone at first, shows
    it; when the earlier event brings a second 张伟, each takes the name's id with their unit —
    the same strings in either order — and the name's id stays an alias that finds the one
    who showed it (never the other 张伟), the rename in `paisai log`."""
    from pipeline.base import oplog
    from pipeline.history.identity import association_id

    database = db_file
    own, hengtong, yuanhang = (association_id("张伟", None, unit)
                               for unit in (None, "恒通", "远航"))
    for event_id in order:
        day, teams = LATE[event_id]
        _import(database, tmp_path, event_id, day, teams)
        if order[0] == "e2" and event_id == "e2":  # 恒通's alone so far
            with db.reading(database) as con:
                assert db.rows(con, "select distinct player_id from player_map where "
                                    "name = '张伟'") == [(own,)]
    with db.reading(database) as con:
        seats = dict(((e, t), p) for e, t, p in db.rows(
            con, "select event_id, team_no, player_id from player_map where name = '张伟'"))
        aliases = dict(db.rows(con, "select alias, player_id from identity_aliases"))
    assert seats == {("e1", "A1"): yuanhang, ("e2", "A1"): hengtong, ("e3", "A1"): hengtong,
                     ("e3", "A2"): yuanhang}
    # the name's own id, once shown, finds the one who showed it: by date 远航's (alone in
    # e1, then 恒通's e2 read as his move until e3 showed two people), else 恒通's
    first = yuanhang if order[0] == "e1" else hengtong
    assert aliases == {own: first}
    said = "\n".join(oplog.read(database))
    assert "ids renamed" in said and f"{own} → {first}" in said
    shown = cli("player", own)
    assert shown.code == 0
    assert ("远航" if first == yuanhang else "恒通") in shown.out
