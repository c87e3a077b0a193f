"""Which names the player map reads again after a change (issue 52): `identity.refresh`
brings up only the names of the events whose registration changed since the map was last
made (a fingerprint per event, `identity_events`), the names whose member-id claim changed,
and those of their partners whose seats now say otherwise — reading only the teams two
partners away, not the whole archive. A test (tests/test_incremental_history.py) checks that
this ends where a rebuild of every name ends."""

from __future__ import annotations

import duckdb
import polars as pl

from pipeline.base import db
from pipeline.base.names import normalize_name
from pipeline.history.seatreads import (
    KEY,
    MEMBERS,
    TEAMS,
    each,
    insert_rows,
    member_claims,
    seats,
    with_partners,
)


def changed_part(con: duckdb.DuckDBPyConnection, names: set[str]):
    """The seats to read again after a change: (their frame with claims applied, the
    claims, the names whose rows are made again, the events whose fingerprint changed), or
    None when nothing changed. The names: `names`, those of the changed events (now and as the map
    had them), those whose member-id claim changed, and every partner of those (whose
    units' explanation may change). The frame: every seat of the teams those names and
    their partners played in, two partners away (what `with_partners` reads)."""
    now = db.frame(con, db.sql("identity_fingerprints"))
    stored = db.frame(con, "select event_id, fingerprint from identity_events")
    differ = pl.concat([now.join(stored, on=["event_id", "fingerprint"], how="anti"),
                        stored.join(now, on=["event_id", "fingerprint"], how="anti")])
    if stored.is_empty() and db.scalar(con, "select count(*) from player_map"):
        differ = unlike_map(con)  # a map made before the fingerprints were kept
        insert_rows(con, "identity_events", now.rows())  # the others' stand from now on
    events = sorted(set(differ["event_id"].to_list()))
    # a member id's owner is decided by every seat giving it: those seats are read each time
    given = db.frame(con, TEAMS + " where " + " or ".join(
        f"nullif(trim(t.{m}), '') is not null" for m in MEMBERS))
    claims = pl.DataFrame(schema={"event_id": pl.String, "team_no": pl.String,
                                  "slot": pl.Int64, "claim": pl.String})
    if given.height:
        read, claims = member_claims(seats(given))
        read = read.filter(~pl.col("event_id").is_in(events)).join(claims, on=KEY, how="left")
        was = db.frame(con, "select event_id, team_no, slot, member_id as was, note from "
                            "player_map where member_id is not null or note like '会员号%'")
        compared = read.join(was, on=KEY, how="left")
        moved = compared.filter(  # a claim made, dropped or reworded since the map was made
            pl.col("member_id").ne_missing(pl.col("was"))
            | (pl.col("claim").is_not_null() & pl.col("claim").ne_missing(pl.col("note")))
            | (pl.col("claim").is_null() & pl.col("note").str.contains("一向是").fill_null(False)))
        names |= set(moved["norm_name"].to_list())
    if not events and not names:
        return None
    new_teams = db.frame(con, TEAMS + " where t.event_id in (select unnest($e))",
                         {"e": events})
    new_seats = seats(new_teams)
    names |= set(new_seats["norm_name"].to_list()) | {n for n, in db.rows(
        con, "select distinct norm_name from player_map where event_id in (select unnest(?))",
        [events])}

    def teams_of(found: set[str]) -> pl.DataFrame:
        """The (event, team) of every seat of these names: the map's, outside the changed
        events, and the changed events' own."""
        db.register(con, "hop_names", pl.DataFrame({"norm_name": sorted(found)},
                                                   schema={"norm_name": pl.String}))
        try:
            old = db.frame(con, "select distinct event_id, team_no from player_map where "
                                "norm_name in (select norm_name from hop_names) and "
                                "event_id not in (select unnest($e))", {"e": events})
        finally:
            con.unregister("hop_names")
        here = new_seats.filter(pl.col("norm_name").is_in(sorted(found))).select(
            "event_id", "team_no").unique()
        return pl.concat([old, here]).unique()

    def names_in(teams: pl.DataFrame) -> set[str]:
        db.register(con, "hop_teams", teams)
        try:
            old = {n for n, in db.rows(con, "select distinct m.norm_name from player_map m "
                                            "join hop_teams using (event_id, team_no)")}
        finally:
            con.unregister("hop_teams")
        return old | set(new_seats.join(teams, on=["event_id", "team_no"], how="semi")
                         ["norm_name"].to_list())

    mates = names_in(teams_of(names)) - names  # partners: their units' explanation may change
    reach = names_in(teams_of(names | mates))  # the partners' partners
    wanted = teams_of(reach)
    db.register(con, "hop_teams", wanted.filter(~pl.col("event_id").is_in(events)))
    try:
        old_teams = db.frame(con, TEAMS + " join hop_teams as h on h.event_id = t.event_id "
                                          "and h.team_no = t.team_no")
        folded = db.frame(con, "select distinct m.name, m.norm_name from player_map m join "
                               "hop_teams using (event_id, team_no)")
    finally:
        con.unregister("hop_teams")
    old_teams = old_teams.select(new_teams.columns)
    kept = seats(old_teams, folded)
    frame = pl.concat([kept, new_seats])
    if claims.height:
        frame = frame.join(claims.select(*KEY, pl.lit(True).alias("wrong")), on=KEY,
                           how="left", maintain_order="left").with_columns(
            pl.when(pl.col("wrong")).then(None).otherwise(pl.col("member_id"))
            .alias("member_id")).drop("wrong")
    if mates:  # a partner's seats read again only where what they say of them changed
        was = db.frame(con, "select event_id, team_no, slot, norm_name, affiliation from "
                            "player_map where event_id in (select unnest(?))", [events])
        was = was.with_columns(each(was["affiliation"].fill_null(""), normalize_name)
                               .alias("unit"), pl.col("slot").cast(pl.Int64))
        columns = [*KEY, "norm_name", "unit"]
        side = pl.Series("norm_name", sorted(mates), pl.String)

        def said(everyone: pl.DataFrame) -> pl.DataFrame:
            return with_partners(everyone, side).select(
                *KEY, "norm_name", pl.col("partners").list.sort(), "explained")

        before = said(pl.concat([kept.select(columns), was.select(columns)]))
        after = said(frame.select(columns))
        on = [*KEY, "norm_name", "partners", "explained"]
        differ = pl.concat([before.join(after, on=on, how="anti"),
                            after.join(before, on=on, how="anti")])
        names |= set(differ["norm_name"].to_list())
    return frame, claims, pl.Series("norm_name", sorted(names), pl.String), \
        sorted(set(events))


def unlike_map(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """The events whose seats differ from the player map's (a map made by an earlier
    version, before `identity_events` was kept: read once, seat by seat). Only the teams
    whose seats are not plainly the map's rows (`identity_unplain_teams.sql`: every team
    giving a member id among them, so each claim is decided by all its seats) are read as
    the map reads them; a 1,000-event archive's 200,000 seats are compared in SQL."""
    unplain = db.frame(con, db.sql("identity_unplain_teams"))
    if unplain.is_empty():
        return unplain.select("event_id")
    db.register(con, "unplain_teams", unplain)
    try:
        teams = db.frame(con, TEAMS + " semi join unplain_teams as u on u.event_id = "
                                      "t.event_id and u.team_no = t.team_no")
        old = db.frame(con, "select event_id, team_no, slot, name, affiliation, norm_name, "
                            "member_id from player_map as m semi join unplain_teams as u "
                            "on u.event_id = m.event_id and u.team_no = m.team_no")
    finally:
        con.unregister("unplain_teams")
    # names as the map folds them; one it folds two ways is folded again (either way some
    # of its rows then differ, and their events are read again)
    folded = db.frame(con, "select name, min(norm_name) as norm_name from player_map "
                           "group by name having min(norm_name) = max(norm_name)")
    frame = member_claims(seats(teams, folded))[0]
    on = [*KEY, "name", "affiliation", "norm_name", "member_id"]
    return pl.concat([frame.join(old, on=on, how="anti", nulls_equal=True).select("event_id"),
                      old.join(frame, on=on, how="anti", nulls_equal=True).select("event_id")
                      ]).unique()
