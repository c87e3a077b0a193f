"""Statistics across events, in DuckDB SQL over `history_games` (one row per player per game)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
import polars as pl

from pipeline.base import db, events
from pipeline.ranking import scoring
from pipeline.ranking.finishes import FINAL_RANK_SCHEMA, final_rank_frame

if TYPE_CHECKING:
    from typing import Protocol, Self

    class RanksReadAhead(Protocol):
        """What `refresh_event_ranks` reads of ranks made ahead (`RanksAhead`, which imports
        this module for its fingerprints: named here by what it offers, not imported)."""

        fingerprints: dict[str, str]
        ranks: pl.DataFrame

        def wait(self) -> Self: ...


def _games() -> str:
    return f"with history_games as ({db.sql('history_games')}) "


def _mine() -> str:
    return f"with history_games as ({db.sql('history_player_games')}) "


def player_profile(con: duckdb.DuckDBPyConnection, player_id: str) -> dict:
    summary = db.frame(con, _mine() + """
        select (select count(distinct event_id) from player_map where player_id = $player_id)
                   as events,  -- every event entered, a Tractor one too
               count(*) as rounds,
               count(*) filter (where outcome = 'win') as wins,
               count(*) filter (where outcome = 'draw') as draws,
               count(*) filter (where outcome = 'loss') as losses,
               round(avg(level_diff), 2) as avg_level_diff
        from history_games""", {"player_id": player_id}).to_dicts()[0]
    names = db.rows(con, "select arg_max(name, event_id), string_agg(distinct affiliation, ', ')"
                         " from player_map where player_id = ?", [player_id])[0]
    finishes = db.frame(con, """
        select m.event_id, e.name as event_name, e.event_date, r.rank, r.field_size
        from player_map m join events e using (event_id)
        left join event_ranks r on r.event_id = m.event_id and r.team_no = m.team_no
        where m.player_id = $p
        order by e.event_date desc nulls last, e.created_at desc""", {"p": player_id})
    ranked = finishes.drop_nulls("rank")
    best = ranked.sort(["rank", "field_size"], descending=[False, True]).head(1).to_dicts()
    partners = db.frame(con, _mine() + """
        select p.player_id as partner_id, any_value(pm.name) as partner,
               count(distinct g.event_id) as events, count(*) as rounds,
               count(*) filter (where g.outcome = 'win') as wins,
               count(*) filter (where g.outcome = 'draw') as draws,
               count(*) filter (where g.outcome = 'loss') as losses
        from history_games g
        join player_map pm on pm.event_id = g.event_id and pm.team_no = g.team_no
             and pm.player_id <> g.player_id
        join (select distinct player_id from player_map) p on p.player_id = pm.player_id
        group by p.player_id order by rounds desc, partner_id""", {"player_id": player_id})
    rating = db.frame(con, """
        select h.event_id, h.round, h.mu, h.sigma, h.ordinal
        from rating_history h join events e using (event_id)
        where h.player_id = $p
        order by coalesce(e.event_date, e.created_at::date), e.created_at, h.event_id""",
                      {"p": player_id})
    rated = db.scalar(con, "select games from ratings where player_id = ?", [player_id]) or 0
    # the rating as the list shows it (one value everywhere: list, profile, /history)
    listed = db.scalar(con, "select ordinal::bigint from ratings where player_id = ?",
                       [player_id])
    return {"player_id": player_id, "name": names[0], "affiliations": names[1], **summary,
            "rating": listed,
            "best_finish": best[0] if best else None,
            "latest_finish": ranked.head(1).to_dicts()[0] if ranked.height else None,
            "finishes": finishes, "partners": partners, "rating_history": rating,
            "games_rated": rated,
            "review": db.frame(con, db.sql("player_review"), {"p": player_id})}


def head_to_head(con: duckdb.DuckDBPyConnection, player_id: str, other_id: str) -> dict:
    """Games in which the player's team met a team with the other player."""
    return db.frame(con, _games() + """
        select count(*) as rounds,
               count(*) filter (where g.outcome = 'win') as wins,
               count(*) filter (where g.outcome = 'draw') as draws,
               count(*) filter (where g.outcome = 'loss') as losses
        from history_games g
        join player_map o on o.event_id = g.event_id and o.team_no = g.opponent
        where g.player_id = $p and o.player_id = $o""", {"p": player_id, "o": other_id}
    ).to_dicts()[0]


def partnership(con: duckdb.DuckDBPyConnection, first: str, second: str) -> dict:
    """The games two players played as one team."""
    return db.frame(con, _games() + """
        select count(distinct g.event_id) as events, count(*) as rounds,
               count(*) filter (where g.outcome = 'win') as wins,
               count(*) filter (where g.outcome = 'draw') as draws,
               count(*) filter (where g.outcome = 'loss') as losses,
               round(avg(g.level_diff), 2) as avg_level_diff
        from history_games g
        join player_map o on o.event_id = g.event_id and o.team_no = g.team_no
        where g.player_id = $a and o.player_id = $b""", {"a": first, "b": second}
    ).to_dicts()[0]


def units(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Participation and results per affiliation per event, oldest event first."""
    return db.frame(con, f"with history_games as ({db.sql('history_games')}), history_units as "
                         f"({db.sql('history_units')}) select * from history_units "
                         "order by affiliation, event_date, event_id")


def unit_totals(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Each unit across all events, its spellings folded together (恒通贸易 = 恒通貿易),
    named as most recently written: events, teams, games, wins, draws, losses, win share,
    best rank."""
    from pipeline.base.names import normalize_name

    per_event = units(con).filter(pl.col("affiliation") != "")
    if per_event.is_empty():
        return pl.DataFrame(schema={"affiliation": pl.String, "events": pl.Int64})
    folded = per_event.with_columns(pl.col("affiliation").map_elements(
        normalize_name, return_dtype=pl.String).alias("unit_key"))
    totals = folded.sort("event_date", "event_id", nulls_last=False).group_by(
        "unit_key", maintain_order=True).agg(
        pl.col("affiliation").last(), pl.col("event_id").n_unique().alias("events"),
        pl.col("teams").sum(), pl.col("games").sum(), pl.col("wins").sum(),
        pl.col("draws").sum(), pl.col("losses").sum(), pl.col("best_rank").min())
    return totals.with_columns(
        (pl.col("wins") / pl.col("games")).round(3).alias("win_share")).sort(
        ["wins", "games", "affiliation"], descending=[True, False, False]).select(
        "affiliation", "events", "teams", "games", "wins", "draws", "losses", "win_share",
        "best_rank")


def compare(con: duckdb.DuckDBPyConnection, first: str, second: str) -> pl.DataFrame:
    """Two events side by side: field, rounds, level differences, share of upsets."""
    from pipeline.history import ratings

    fitted = ratings.current(con) if db.scalar(con, "select count(*) from results") else None
    rows = [{**event_summary(con, e), **_field(con, e, fitted)} for e in (first, second)]
    return pl.DataFrame(rows)


def round_chances(con: duckdb.DuckDBPyConnection, event_id: str, round_no: int) -> pl.DataFrame:
    """A round's tables with each pair's rating on the list (the sum of its players') and
    East-West's chance of winning (`chances.win_probability`); a player not on the list
    counts as the list's average. An event whose games are on the list already (a past
    event, or a round of today's after results were stored) is rated from the list as it
    stood the day before the event: its own results never predict themselves."""
    from pipeline.history import ratings
    from pipeline.history.chances import win_probability

    entering = _list_entering(con, event_id)
    rows = []
    for table, ew, ns, ew_r, ns_r, ew_p, ns_p in db.rows(con, db.sql("round_tables_rated"),
                                                         {"e": event_id, "r": round_no}):
        if entering is not None:
            ew_r, ns_r = ([entering.get(p) for p in players or []] for players in (ew_p, ns_p))
        ew_r, ns_r = ew_r or [], ns_r or []
        rows.append({
            "table_no": table, "ew_team": ew, "ns_team": ns,
            "ew_rating": round(sum(ratings.BASE if r is None else r for r in ew_r)),
            "ns_rating": round(sum(ratings.BASE if r is None else r for r in ns_r)),
            "ew_win_probability": round(win_probability(ew_r, ns_r), 3)})
    return pl.DataFrame(rows, schema={"table_no": pl.Int64, "ew_team": pl.String,
                                      "ns_team": pl.String, "ew_rating": pl.Int64,
                                      "ns_rating": pl.Int64,
                                      "ew_win_probability": pl.Float64})


def _list_entering(con: duckdb.DuckDBPyConnection, event_id: str) -> dict[str, int] | None:
    """The ratings as of the day before the event (player id → rating) when the event has
    rated games (they are on the stored list); None when it has none (the stored list is
    the one entering it)."""
    from pipeline.history import ratings

    day = db.scalar(con, """
        select coalesce(e.event_date, e.created_at::date) from events as e
        where e.event_id = $e and exists (
            select 1 from results as r where r.event_id = e.event_id and r.forfeit is null
              and r.ew_level is not null and r.ns_level is not null)""", {"e": event_id})
    if day is None:
        return None
    every = ratings.read_games(con)
    before = ratings.Fit(every, day - dt.timedelta(days=1)).frame()
    return dict(zip(before["player_id"].to_list(), before["rating"].to_list(), strict=True))


def _field(con: duckdb.DuckDBPyConnection, event_id: str, fitted: pl.DataFrame | None) -> dict:
    """Who came: players, those who had played an earlier event, newcomers; the field's
    strength (the mean rating of its players on today's list) and the podium."""
    found = db.rows(con, """
        with here as (select distinct player_id from player_map where event_id = $e),
             day as (select coalesce(event_date, created_at::date) as d from events
                     where event_id = $e),
             before as (select distinct m.player_id from player_map m join events e
                        using (event_id) where coalesce(e.event_date, e.created_at::date)
                        < (select d from day))
        select count(*), count(*) filter (where player_id in (select player_id from before))
        from here""", {"e": event_id})[0]
    podium = db.rows(con, "select coalesce(t.team_name, r.team_no) from event_ranks r join "
                          "teams t using (event_id, team_no) where r.event_id = ? and "
                          "r.rank <= 3 order by r.rank, r.team_no", [event_id])
    strength = None
    if fitted is not None:
        here = db.frame(con, "select distinct player_id from player_map where event_id = $e",
                        {"e": event_id}).join(fitted, on="player_id")
        strength = round(here["rating"].mean(), 1) if here.height else None
    return {"players": found[0], "returning": found[1], "newcomers": found[0] - found[1],
            "field_strength": strength, "podium": "、".join(r[0] for r in podium)}


def event_summary(con: duckdb.DuckDBPyConnection, event_id: str) -> dict:
    event = events.load(con, event_id)
    base = db.rows(con, """
        select (select count(*) from teams where event_id = $e),
               (select coalesce(max(round), 0) from results where event_id = $e),
               (select round(avg(abs(ew_level - ns_level)), 2) from results
                where event_id = $e and forfeit is null)""", {"e": event_id})[0]
    spread = db.rows(con, "select abs(ew_level - ns_level) d, count(*) from results where "
                          "event_id = ? and forfeit is null group by d order by d", [event_id])
    decided = upsets = 0
    for round_no in range(2, base[1] + 1):
        ranks = dict(scoring.standings(con, event, round_no - 1).select("team_no", "rank")
                     .iter_rows())
        for ew, ns, a, b in db.rows(con, "select ew_team, ns_team, ew_level, ns_level from "
                                         "results where event_id = ? and round = ? and "
                                         "forfeit is null and ew_level <> ns_level",
                                    [event_id, round_no]):
            winner, loser = (ew, ns) if a > b else (ns, ew)
            if ranks[winner] == ranks[loser]:
                continue
            decided += 1
            upsets += ranks[winner] > ranks[loser]
    return {"event_id": event_id, "name": event.name, "teams": base[0], "rounds": base[1],
            "avg_level_diff": base[2],
            "level_diffs": ", ".join(f"{d}:{n}" for d, n in spread),
            "upset_share": round(upsets / decided, 3) if decided else None}


def rank_fingerprints(con: duckdb.DuckDBPyConnection, event_ids: list[str] | None = None
                      ) -> dict[str, str]:
    """What each event's ranking reads, as a fingerprint (`rank_fingerprints.sql`): every
    event's, or only the given events' (their rows alone are read)."""
    return dict(db.rows(con, db.sql("rank_fingerprints"), {"events": event_ids}))


def stale_rank_events(con: duckdb.DuckDBPyConnection, event_ids: list[str] | None = None
                      ) -> list[str]:
    """Events whose cached ranks (event_ranks) no longer match what their ranking reads
    (of `event_ids` only, when given)."""
    return stale_of(con, rank_fingerprints(con, event_ids))


def stale_of(con: duckdb.DuckDBPyConnection, now: dict[str, str]) -> list[str]:
    """The events of `now` (their fingerprints) whose cached ranks were computed from
    something else, or never."""
    stored = dict(db.rows(con, "select event_id, fingerprint from event_rank_state"))
    return sorted(e for e, fingerprint in now.items() if stored.get(e) != fingerprint)


def latest_rounds(con: duckdb.DuckDBPyConnection, event_ids: list[str]) -> dict[str, int]:
    """Each event's latest round with a result (an event with none is not there)."""
    return {e: int(r) for e, r in db.rows(
        con, "select event_id, max(round) from results where event_id in "
             "(select unnest($ids)) group by event_id", {"ids": event_ids}) if r is not None}


def refresh_event_ranks(con: duckdb.DuckDBPyConnection, event_ids: list[str],
                        step: Callable[[str], None] = lambda event_id: None,
                        fingerprints: dict[str, str] | None = None,
                        ahead: RanksReadAhead | None = None) -> None:
    """Rewrite the cached latest ranking of the given events (Swiss events only; a Tractor
    bracket has no overall ranking) and note what it was computed from (the given events'
    fingerprints, read in this transaction: `fingerprints` when the caller has them).
    The events are ranked set-based (`scoring.final_ranks`: one pass for all the events
    of one ruleset and round, not a query each), `step` called with each once ranked.
    `ahead`: ranks computed beforehand on another connection (`RanksAhead`), taken for each
    event whose fingerprint then was the one it has now."""
    if not event_ids:
        return
    if fingerprints is None:
        fingerprints = rank_fingerprints(con, event_ids)
    done = pl.DataFrame(schema=FINAL_RANK_SCHEMA)
    if ahead is not None:
        ahead = ahead.wait()
        same = [e for e in event_ids if e in ahead.fingerprints
                and ahead.fingerprints[e] == fingerprints.get(e)]
        done = ahead.ranks.filter(pl.col("event_id").is_in(same))
        event_ids_left = sorted(set(event_ids) - set(same))
    else:
        event_ids_left = event_ids
    latest = latest_rounds(con, event_ids_left)
    loaded = events.load_many(con, event_ids_left) if event_ids_left else []
    swiss = [(e, latest.get(e.event_id, 0)) for e in loaded if e.ruleset.is_swiss]
    ranks = pl.concat([done, final_rank_frame(con, swiss)])
    con.execute("delete from event_ranks where event_id in (select unnest($ids))",
                {"ids": event_ids})
    db.register(con, "new_ranks", ranks)
    try:
        con.execute("insert into event_ranks select event_id, team_no, rank, "
                    "count(*) over (partition by event_id) from new_ranks")
    finally:
        con.unregister("new_ranks")
    for event_id in event_ids:
        step(event_id)
    known = [e for e in event_ids if e in fingerprints]
    noted = pl.DataFrame({"event_id": known, "fingerprint": [fingerprints[e] for e in known]},
                         schema={"event_id": pl.String, "fingerprint": pl.String})
    db.register(con, "noted_ranks", noted)
    try:
        con.execute("insert or replace into event_rank_state select * from noted_ranks")
    finally:
        con.unregister("noted_ranks")


# events ranked in one write (set-based: well under a second of CPU for 250 events of 100
# teams): other writers get their turn between
RANK_BATCH = 250
PROGRESS_AT = 20  # more stale events than this: the command line shows its progress


def keep_ranks_current(path: Path, step: Callable[[str], None] = lambda event_id: None,
                       stale: list[str] | None = None) -> None:
    """Before reading event_ranks: refresh the events whose results changed since (a short
    write, only when something is stale; ingest does not pay for it). Many stale events (a
    database written by other tools, or by an earlier version) are ranked in batches of
    RANK_BATCH, each its own write, `step` called with each event (a progress bar).
    `stale`: the events found stale just before (`stale_rank_events`), not looked for again.
    Each batch checks its own events again in its write (another process may have ranked
    them meanwhile): only their rows are read, never the whole archive's."""
    if stale is None:
        with db.reading(path) as con:
            stale = stale_rank_events(con)
    for start in range(0, len(stale), RANK_BATCH):
        with db.writing(path) as con:
            now = rank_fingerprints(con, stale[start:start + RANK_BATCH])
            refresh_event_ranks(con, stale_of(con, now), step, now)


def stale_rank_count(path: Path) -> int:
    with db.reading(path) as con:
        return len(stale_rank_events(con))
