"""The games a rating fit reads (issue 52): the seats read by the teams' numbers
(rating_games.sql's ew_key, ns_key into rating_seats.sql's rows) are each game's registered
players, side by side, as a join of the teams' names reads them — a team of three, a team
with nobody registered (its tables are not games) and an appended event's new players
included."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from bench.history import build
from pipeline.base import db
from pipeline.history.evidence import UNCLEAR
from pipeline.history.rating_games import extended, read_games
from pipeline.history.rating_model import Games


def _by_names(con) -> pl.DataFrame:
    """Each game in a fit's order with its sides' player ids, by a join of the teams'
    names (the reading before issue 52's numbers), tables with a side unregistered left out."""
    seats = db.frame(con, db.sql("rating_seats"), {"unclear": UNCLEAR, "events": None})
    teams = seats.group_by("event_id", "team_no", maintain_order=True).agg("player_id")
    games = db.frame(
        con,
        """
        select r.event_id, r.ew_team, r.ns_team, r.ew_level - r.ns_level as margin
        from results as r inner join events as e using (event_id)
        where r.forfeit is null and r.ew_level is not null and r.ns_level is not null
        order by coalesce(e.event_date, e.created_at::date), e.created_at, r.event_id,
                 r.round, r.table_no""",
    )
    for side in ("ew", "ns"):
        games = games.join(
            teams.rename({"team_no": f"{side}_team", "player_id": f"{side}_players"}),
            on=["event_id", f"{side}_team"],
            how="left",
            maintain_order="left",
        )
    return games.drop_nulls(["ew_players", "ns_players"])


def _sides(every: Games) -> list[tuple]:
    """Each game's event, margin and its sides' player ids, in order."""
    ids = every.player_ids.to_list()
    sides: list[tuple[list, list]] = [([], []) for _ in range(every.frame.height)]
    for g, p, s in zip(every.g.tolist(), every.p.tolist(), every.s.tolist(), strict=True):
        sides[g][0 if s > 0 else 1].append(ids[p])
    return [
        (e, m, ew, ns)
        for (e, m), (ew, ns) in zip(
            every.frame.select("event_id", "margin").iter_rows(), sides, strict=True
        )
    ]


def _archive(path: Path) -> None:
    build(path, 6, 60, 8, 3)
    with db.writing(path) as con:
        # a team of three (ev1 A2), and a team with nobody registered (ev2 A3)
        con.execute(
            "insert into player_map (event_id, team_no, slot, name, affiliation, "
            "norm_name, player_id) select event_id, team_no, 3, '第三人', "
            "affiliation, '第三人', '第三人' from player_map "
            "where event_id = 'ev1' and team_no = 'A2' and slot = 1"
        )
        con.execute("delete from player_map where event_id = 'ev2' and team_no = 'A3'")


def test_the_seats_read_by_number_are_those_a_join_of_names_reads(tmp_path):
    database = tmp_path / "games.duckdb"
    _archive(database)
    with db.reading(database) as con:
        every = read_games(con)
        expected = _by_names(con)
        unregistered = db.scalar(
            con,
            "select count(*) from results where event_id = 'ev2' and 'A3' in (ew_team, ns_team)",
        )
    assert unregistered and every.frame.height == expected.height
    assert every.side == 0  # a team of three: the seats one by one
    assert _sides(every) == [
        (e, m, ew, ns)
        for e, m, ew, ns in expected.select(
            "event_id", "margin", "ew_players", "ns_players"
        ).iter_rows()
    ]
    assert (
        sum(len(ew) == 3 for _, _, ew, _ in _sides(every))
        + sum(len(ns) == 3 for _, _, _, ns in _sides(every))
        == 3
    )  # its three rounds
    assert every.player_ids.is_unique().all() and every.player_ids.is_sorted()


def test_an_appended_event_s_seats_read_by_number_as_a_whole_read(tmp_path):
    """`extended` (a stale import's games read ahead, this event's appended) seats the
    new event's games as reading every game does."""
    database = tmp_path / "games.duckdb"
    _archive(database)
    with db.writing(database) as con:
        con.execute("update events set event_date = '2030-01-05' where event_id = 'ev3'")
        whole = read_games(con)
        con.execute("create temp table kept as select * from results where event_id = 'ev3'")
        con.execute("delete from results where event_id = 'ev3'")
        before = read_games(con)
        con.execute("insert into results select * from kept")
        appended = extended(con, before, ["ev3"])
    assert _sides(appended) == _sides(whole)
    assert appended.frame.height == whole.frame.height > before.frame.height


def test_an_appended_event_s_teams_are_numbered_after_those_read(tmp_path):
    """The teams of the games read ahead (a pairs' history: each side's two players) are
    kept when an event is appended, its teams numbered after them; a fit reads each game's
    two teams as it reads its four seats."""
    import datetime as dt

    import numpy as np

    from pipeline.history.rating_model import Fit

    database = tmp_path / "games.duckdb"
    build(database, 6, 60, 8, 3)
    with db.writing(database) as con:
        con.execute("update events set event_date = '2030-01-05' where event_id = 'ev3'")
        whole = read_games(con)
        con.execute("create temp table kept as select * from results where event_id = 'ev3'")
        con.execute("delete from results where event_id = 'ev3'")
        before = read_games(con)
        con.execute("insert into results select * from kept")
        assert before.teams is not None
        appended = extended(con, before, ["ev3"])
    members, ew, ns = appended.__dict__["teams"]  # numbered before any fit asked
    assert members.shape[1] > before.teams[0].shape[1] and ew.size == whole.frame.height
    for teams in (appended.teams, whole.teams):
        members, ew, ns = teams
        seats = appended.p.reshape(-1, 4) if teams is appended.teams else whole.p.reshape(-1, 4)
        assert (members[:, ew].T == seats[:, :2]).all() and (members[:, ns].T == seats[:, 2:]).all()
    day = dt.date(2030, 1, 5)
    a, b = Fit(appended, day), Fit(whole, day)
    assert np.allclose(a.r, b.r, rtol=0, atol=1e-12)
