"""Pairing a round of a stored event: gathers the ranking so far and who met whom, calls the
pure pairing engine (this package's other modules) and stores the tables, audited. The one
module of the pairing package that opens the database."""

from __future__ import annotations

import secrets
import threading

import duckdb
import polars as pl

from pipeline.base import db, oplog
from pipeline.base.errors import RoundIncomplete, UsageError
from pipeline.base.events import Event
from pipeline.base.order import number_runs
from pipeline.intake import registration
from pipeline.pairing import Pairing, draw_order, pair_round, team_match_tables
from pipeline.ranking import scoring
from pipeline.ranking.rounds import has_results, next_round, summary


def _history(con: duckdb.DuckDBPyConnection, event_id: str, before: int,
             sides: bool = True):
    """Who has met whom (a frame of team pairs, ew_team and ns_team, each pair once), who had
    a bye, and how often each team sat East-West / North-South (`sides`: only the seating
    `balance` reads it — a dict of every team, 0.2 s of a 100,000-team pairing; else {})."""
    params = {"e": event_id, "r": before}
    games = db.frame(con, db.sql("met_before"), params)
    byes = {r[0] for r in db.rows(
        con, "select ew_team from pairings where event_id = $e and round < $r and ns_team is null "
             "and coalesce(bye_kind, 'allocated') = 'allocated'",
        params)}
    if not sides:
        return games, byes, {}
    counts = pl.concat([games.select(pl.col("ew_team").alias("team"), pl.lit(1).alias("ew"),
                                     pl.lit(0).alias("ns")),
                        games.select(pl.col("ns_team").alias("team"), pl.lit(0).alias("ew"),
                                     pl.lit(1).alias("ns"))]).group_by("team").sum()
    seats = {team: (ew, ns) for team, ew, ns in counts.iter_rows()}
    return games, byes, seats


def parse_byes(given: tuple[str, ...] | list[str]) -> dict[str, float | None]:
    """`TEAM` or `TEAM=POINTS` → {team: points or None (the draw points)}.

    >>> parse_byes(["a5", "A7=0"])
    {'A5': None, 'A7': 0.0}
    """
    found: dict[str, float | None] = {}
    for text in given:
        team, _, points = text.partition("=")
        try:
            value = float(points) if points.strip() else None
        except ValueError:
            raise UsageError(f"轮空得分应为数字 a bye's points must be a number: {text!r}") \
                from None
        if value is not None and not (0 <= value <= 1_000):
            raise UsageError(f"轮空得分应在 0 到 1000 之间 a bye's points: {text!r}")
        found[team.strip().upper()] = value
    return found


# The pairings a server made last (issue 53): the console previews a round's pairing (a
# transaction rolled back), then stores it — the pairing previewed, made once: ranking the
# event again for the store cost the organizer 0.3–1.4 s beside a hall of phones. Kept by
# the organizer's choices and by everything a pairing reads (`_made_key`); a command pairs
# once per process and keeps nothing.
_MADE: dict[tuple, tuple[int, Pairing, int | None, str]] = {}
_MADE_LOCK = threading.Lock()
MADE_KEPT = 8


def pair(
    con: duckdb.DuckDBPyConnection, event: Event, round_no: int | None = None,
    seed: int | None = None, force: bool = False, separate_affiliations: bool = False,
    requested_byes: dict[str, float | None] | None = None,
) -> tuple[int, Pairing, int | None]:
    """Pair round `round_no` (default: the next) and store it. Returns (round, pairing, seed).
    `separate_affiliations` keeps teams of one unit apart in this round where possible (as
    the ruleset's `avoid_same_affiliation_rounds` does for its first rounds).
    `requested_byes` are teams that asked not to play this round (FIDE's requested byes):
    left out of the pairing, each stored as a bye of its points (None: the draw points).
    In a server, a pairing made before with the same choices from the same stored event (the
    console's preview) is stored as it was made, not made again."""
    requested_byes = requested_byes or {}
    choices = (event.event_id, round_no, force, separate_affiliations,
               tuple(sorted(requested_byes.items())))
    key = _made_key(con, event, choices) if db.sharing() else None
    with _MADE_LOCK:
        made = _MADE.get((*key, seed)) if key else None
    if made is None:
        made = _make(con, event, round_no, seed, force, separate_affiliations, requested_byes)
        if key:
            with _MADE_LOCK:  # under the seed drawn: storing it with that seed finds it
                _MADE.pop((*key, made[2]), None)
                _MADE[(*key, made[2])] = made
                while len(_MADE) > MADE_KEPT:
                    _MADE.pop(next(iter(_MADE)))
    round_no, pairing, seed, system = made
    _store(con, event.event_id, round_no, pairing, system, seed, force, requested_byes)
    oplog.write_on(con, event.event_id, "paired", f"round {round_no}"
                   + (f", draw seed {seed}" if seed is not None else ""))
    return round_no, pairing, seed


def _made_key(con: duckdb.DuckDBPyConnection, event: Event, choices: tuple) -> tuple:
    """What a pairing is made from: the organizer's choices and everything the pairing
    reads — the ranking's fingerprint (results, penalties, fouls, rulings, quiz, teams with
    their withdrawals and check-in, carried totals, the lot, the ruleset) over every round's
    results and pairings, so the byes and who met whom as well. One small query."""
    found = db.scalar(con, scoring.fingerprint_query("standings_fingerprint"),
                      {"event_id": event.event_id, "max_round": 1 << 30})
    return (*choices, found)


def _make(
    con: duckdb.DuckDBPyConnection, event: Event, round_no: int | None, seed: int | None,
    force: bool, separate_affiliations: bool, requested_byes: dict[str, float | None],
) -> tuple[int, Pairing, int | None, str]:
    """The pairing of the round, not stored: (round, pairing, seed, system as stored)."""
    event_id = event.event_id
    rules = event.ruleset.pairing
    if not event.ruleset.is_swiss:
        raise UsageError(f"{event_id} 是小组赛与淘汰赛（拖拉机），不按轮编排：请用 paisai bracket "
                         f"{event_id} plays groups and a knockout: draw it with paisai bracket")
    if round_no is None:
        round_no = next_round(con, event_id)
    if round_no < 1:
        raise UsageError("轮次应为正整数 round must be a positive number")
    if event.ruleset.rounds and round_no > event.ruleset.rounds:
        raise UsageError(f"本赛事只有 {event.ruleset.rounds} 轮 the event has "
                         f"{event.ruleset.rounds} rounds")
    if has_results(con, event_id, round_no):
        raise UsageError(f"第 {round_no} 轮已有成绩，不能重新编排 round {round_no} has results "
                         "and cannot be paired again")
    teams = registration.playing(con, event_id, round_no)
    unknown = [t for t in requested_byes if t not in teams]
    if unknown:
        raise UsageError(f"请求轮空的队不在本轮 not playing this round: {', '.join(unknown)}")
    teams = [t for t in teams if t not in requested_byes]
    if len(teams) < 2:
        waiting = registration.unnumbered(con, event_id)
        if waiting:
            raise UsageError(registration.unnumbered_hint(waiting, event_id))
        raise UsageError("报名队伍不足两队 fewer than two registered teams")
    if round_no > 1:
        _require_complete(con, event_id, round_no - 1, force)
    affiliations = None
    if separate_affiliations or round_no <= rules["avoid_same_affiliation_rounds"]:
        affiliations = dict(db.rows(con, "select team_no, affiliation from teams "
                                         "where event_id = ?", [event_id]))
    played, byes, seat_counts = _history(con, event_id, round_no, rules["seats"] == "balance")
    carried = round_no == 1 and bool(db.scalar(
        con, "select count(*) from carried_totals where event_id = ?", [event_id]))
    if round_no == 1 and not carried:
        if rules["draw"] == "random" and seed is None:
            seed = secrets.randbelow(10**6)
        ranked = draw_order(teams, rules["draw"], seed)
        pairing = pair_round(ranked, "monrad", played=played, had_bye=byes,
                             affiliations=affiliations,
                             seats="draw_number" if rules["seats"] == "draw_number" else "rank")
    else:  # on the ranking so far — for round 1 of a carry-over event, the carried one
        keys = list(event.ruleset.ranking["pairing_keys"])
        if "team_no" not in keys:
            keys.append("team_no")
        ranking = scoring.standings(con, event, round_no - 1, keys).filter(
            pl.col("team_no").is_in(teams))
        pairing = pair_round(
            ranking["team_no"].to_list(), rules["system"],
            scores=ranking["match_points"].cast(pl.Float64).to_list(),
            played=played, had_bye=byes, affiliations=affiliations, seats=rules["seats"],
            seat_counts=seat_counts,
        )
    pairing = team_match_tables(pairing, event.ruleset.team_size)
    system = rules["system"] if round_no > 1 or carried else f"draw:{rules['draw']}"
    return round_no, pairing, seed, system


def same_unit_tables(con: duckdb.DuckDBPyConnection, event_id: str, round_no: int
                     ) -> list[tuple[int, str, str, str]]:
    """The tables of a round where both teams are of one unit (folded spelling):
    (table, EW team, NS team, unit). Each distinct unit is folded once; the tables are
    matched in SQL (a 100,000-team round has 50,000 tables and a few such)."""
    from pipeline.base.names import normalize_name

    units = [r[0] for r in db.rows(con, "select distinct affiliation from teams where "
                                        "event_id = ? and affiliation is not null",
                                   [event_id])]
    folded = pl.DataFrame({"affiliation": units,
                           "folded": [normalize_name(u) for u in units]},
                          schema={"affiliation": pl.String, "folded": pl.String})
    db.register(con, "folded_units", folded)
    try:
        return db.rows(con, """
            select p.table_no, p.ew_team, p.ns_team, e.affiliation
            from pairings p
            join teams e on e.event_id = p.event_id and e.team_no = p.ew_team
            join teams n on n.event_id = p.event_id and n.team_no = p.ns_team
            join folded_units fe on fe.affiliation = e.affiliation
            join folded_units fn on fn.affiliation = n.affiliation
            where p.event_id = ? and p.round = ? and p.table_no is not null
              and fe.folded <> '' and fe.folded = fn.folded
            order by p.table_no""", [event_id, round_no])
    finally:
        con.unregister("folded_units")


def _require_complete(con, event_id: str, round_no: int, force: bool) -> None:
    found = summary(con, event_id).filter(pl.col("round") == round_no)
    if found.is_empty():
        if force:
            return
        raise UsageError(f"第 {round_no} 轮还没有编排或成绩 round {round_no} has not been "
                         "played yet (use --force to pair anyway)")
    reported, expected = found["reported"][0], found["expected"][0]
    if reported < expected and not force:
        missing = db.rows(
            con,
            "select p.table_no from pairings p where p.event_id = $e and p.round = $r "
            "and p.table_no is not null and not exists (select 1 from results r where "
            "r.event_id = $e and r.round = $r and r.table_no = p.table_no) order by 1",
            {"e": event_id, "r": round_no},
        )
        raise RoundIncomplete(round_no, reported, expected,
                              number_runs(m[0] for m in missing))


def _store(con, event_id: str, round_no: int, pairing: Pairing, system: str,
           seed: int | None, force: bool,
           requested_byes: dict[str, float | None] | None = None) -> None:
    con.execute("delete from pairings where event_id = ? and round = ?", [event_id, round_no])
    con.execute("delete from pairing_rounds where event_id = ? and round = ?",
                [event_id, round_no])
    rows = [(t.table, t.ew_team, t.ns_team, None, None) for t in pairing.tables]
    if pairing.bye:
        rows.append((None, pairing.bye, None, "allocated", None))
    rows += [(None, team, None, "requested", points)
             for team, points in (requested_byes or {}).items()]
    tables = pl.DataFrame(rows, schema={"table_no": pl.Int32, "ew_team": pl.String,
                                        "ns_team": pl.String, "bye_kind": pl.String,
                                        "bye_points": pl.Float64}, orient="row")
    db.register(con, "new_tables", tables)
    try:
        con.execute("insert into pairings (event_id, round, table_no, ew_team, ns_team, "
                    "bye_kind, bye_points) select ?, ?, table_no, ew_team, ns_team, "
                    "coalesce(bye_kind, 'allocated'), bye_points from new_tables",
                    [event_id, round_no])
    finally:
        con.unregister("new_tables")
    con.execute("insert into pairing_rounds (event_id, round, system, seed, rematches, forced) "
                "values (?, ?, ?, ?, ?, ?)",
                [event_id, round_no, system, seed, len(pairing.rematches), force])
