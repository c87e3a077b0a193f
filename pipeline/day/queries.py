"""Read-only queries for the dashboard and the static site: each opens a short read-only
connection (see `pipeline.db` for the locking design) and returns plain frames."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from pipeline.base import db, events
from pipeline.base.levels import format_level
from pipeline.base.names import as_typed, team_number
from pipeline.day import tablestore
from pipeline.ranking import awards, rounds, scoring


@dataclass(frozen=True)
class LiveView:
    event_id: str
    event_name: str
    ruleset: str
    round: int
    reported: int
    expected: int
    updated_at: dt.datetime | None
    standings: pl.DataFrame
    rounds: list[int]
    over: bool = False  # every planned round reported: the ranking is final
    latest_results: list[tuple] = ()  # (round, table, EW, EW level, NS, NS level), newest first
    in_play: list[dict] = ()  # the tables keeping their own sheet, as they stand (tablestore)
    # (round, table) → the confirmed ruling that decides it: (kind, team), ("ruled_loss", "A3")
    ruled: dict = field(default_factory=dict)


def event_formats(database: Path) -> dict[str, bool]:
    """Every event → whether it is Swiss (ranking and pairings) or a Tractor bracket."""
    with db.reading(database) as con:
        ids = [r[0] for r in db.rows(con, "select event_id from events")]
        return {e: events.load(con, e).ruleset.is_swiss for e in ids}


def event_list(database: Path) -> pl.DataFrame:
    with db.reading(database) as con:
        return events.listing(con)


def event_names(database: Path) -> pl.DataFrame:
    """Every event's id and name, the most recent first (`event_list` without its counts)."""
    with db.reading(database) as con:
        return events.names(con)


def default_event(database: Path) -> str | None:
    with db.reading(database) as con:
        return events.most_recent(con)


def live(database: Path, event_id: str, round_no: int | None = None,
         in_play: bool = True) -> LiveView:
    """The ranking as the projector shows it; with `in_play` False the tables in play are
    left to the caller (read apart: they change far more often than the ranking)."""
    with db.reading(database) as con:
        event = events.load(con, event_id)
        latest = scoring.latest_round(con, event_id)
        after = latest if round_no is None else min(round_no, latest)
        table = scoring.standings(con, event, after)
        summary = rounds.summary(con, event_id)
        paired = rounds.latest_paired_round(con, event_id)
        # before any result: the round being played (its tables reported so far: none)
        this = summary.filter(pl.col("round") == (after or paired or 0))
        updated = db.scalar(con, "select max(updated_at) from results where event_id = ?",
                            [event_id])
        newest = db.rows(con, "select round, table_no, ew_team, ew_level, ns_team, ns_level, "
                              "forfeit from results where event_id = ? order by updated_at "
                              "desc, round desc, table_no limit 6", [event_id])
        over = awards.unfinished(con, event) is None and bool(event.ruleset.rounds) \
            and latest >= event.ruleset.rounds
        playing = tablestore.tables_in_play(con, event, paired) if in_play else []
        ruled = {(r, tb): (kind, team) for r, tb, kind, team in db.rows(
            con, "select round, table_no, kind, team_no from official_rulings where event_id = ? and "
                 "status = 'confirmed' and table_no is not null and kind in ('ruled_loss', "
                 "'levels_down', 'opponent_up', 'forfeit') order by ruling_id", [event_id])}
    reported = int(this["reported"][0]) if this.height else 0
    expected = int(this["expected"][0]) if this.height else 0
    return LiveView(
        event_id, event.name, event.ruleset.name, after, reported, expected,
        updated, table, list(range(1, latest + 1)), over,
        [(r, tb, ew, format_level(el) if el else "弃权" if f == "ew" else "",
          ns, format_level(nl) if nl else "弃权" if f == "ns" else "")
         for r, tb, ew, el, ns, nl, f in newest],
        playing, ruled,
    )


def last_change(database: Path, event_id: str) -> dt.datetime | None:
    """When the event last changed as the projector shows it, in this machine's time: a
    result stored, a deal on a sheet, a ruling decided, a round paired or its clock started
    (never a time before the round began)."""
    with db.reading(database) as con:
        found = db.rows(con, db.sql("last_change"), {"event_id": event_id})[0]
    stored, paired, sheets_utc, started = found
    times = [t for t in (stored, paired) if t is not None]
    if sheets_utc is not None:
        times.append(sheets_utc.replace(tzinfo=dt.UTC).astimezone().replace(tzinfo=None))
    if started is not None:
        times.append(dt.datetime.fromtimestamp(started))
    return max(times, default=None)


@dataclass(frozen=True)
class Provisional:
    """The ranking if the round ended now (issue 42): the round, its tables reported and
    expected, and the ranking."""

    round: int
    reported: int
    expected: int
    standings: pl.DataFrame


def if_round_ended_now(database: Path, event_id: str) -> Provisional | None:
    """While tables keep their own sheets: the stored results and the tables in play as the
    ranking would count them if the round ended now (nothing stored); else None."""
    with db.reading(database) as con:
        event = events.load(con, event_id)
        paired = rounds.latest_paired_round(con, event_id)
        in_play = tablestore.tables_in_play(con, event, paired)
        if not in_play or not event.ruleset.is_swiss:
            return None
        found = rounds.summary(con, event_id).filter(pl.col("round") == paired)
        standings = scoring.provisional(con, event, paired,
                                        tablestore.as_results(paired, in_play))
    reported, expected = (int(found["reported"][0]), int(found["expected"][0])) \
        if found.height else (0, 0)
    return Provisional(paired, reported, expected, standings)


def unplayed_round(database: Path, event_id: str) -> int | None:
    """The latest paired round while it has no result at all, else None."""
    with db.reading(database) as con:
        latest = rounds.latest_paired_round(con, event_id)
        if latest is None or rounds.has_results(con, event_id, latest):
            return None
    return int(latest)


def missing_tables(database: Path, event_id: str, round_no: int) -> list[str]:
    """The round's paired tables without a result yet, in table order."""
    with db.reading(database) as con:
        found = rounds.summary(con, event_id).filter(pl.col("round") == round_no)
    text = found["missing"][0] if found.height else ""
    return [t for t in text.split(",") if t]


def why_here(database: Path, event_id: str, language: str = "zh",
             ranking: pl.DataFrame | None = None) -> dict[str, str]:
    """For every team of the latest ranking (`ranking`, when the caller has it already):
    why it sits where it does, in one language (pipeline.ranking.explain)."""
    from pipeline.ranking.explain import why_here as explain_places

    with db.reading(database) as con:
        event = events.load(con, event_id)
        after = scoring.latest_round(con, event_id)
        if ranking is None:
            ranking = scoring.standings(con, event, after)
    return explain_places(ranking, scoring.published_keys(event, after), language)


def rank_progression(database: Path, event_id: str,
                     known: MutableMapping[tuple, pl.DataFrame] | None = None) -> pl.DataFrame:
    """team_no, round, rank: the ranking after each round (for the bump chart). With `known`,
    the caller's memory of rankings after a round (kept by what each read: the fingerprint of
    `standings_fingerprints_by_round.sql`), a round whose ranking reads nothing new is not
    ranked again — storing round 7 ranks after round 7 alone, pairing round 8 nothing — and
    a round not in it is read from the ranks its ingest kept (`scoring.kept_ranks`) while
    they are current: a server started at round 7 ranks nothing for its first reader."""
    with db.reading(database) as con:
        event = events.load(con, event_id)
        latest = scoring.latest_round(con, event_id)
        marks: dict[int, str] = {}
        if known is not None and event.ruleset.is_swiss:
            by_round = scoring.fingerprint_query("standings_fingerprints_by_round")
            marks = dict(db.rows(con, by_round, {"event_id": event_id}))
            for key in list(known):  # what an older version of a round read: forgotten
                if key[:2] == (str(database), event_id) and marks.get(key[2]) != key[3]:
                    known.pop(key, None)
        keys = {r: (str(database), event_id, r, marks.get(r)) for r in range(1, latest + 1)}
        wanted = {r: marks[r] for r, key in keys.items() if r in marks and key not in known}
        kept = scoring.kept_ranks(con, event, wanted)
        frames = []
        for r, key in keys.items():
            found = known.get(key) if known is not None and key[3] is not None else None
            if found is None:
                ranks = kept.get(r)
                if ranks is None:
                    ranks = scoring.standings(con, event, r).select("team_no", "rank")
                found = ranks.with_columns(pl.lit(r).alias("round"))
                if known is not None and key[3] is not None:
                    known[key] = found
            frames.append(found)
    if not frames:
        return pl.DataFrame(schema={"team_no": pl.String, "rank": pl.Int64, "round": pl.Int32})
    return pl.concat(frames)


def level_differences(database: Path, event_id: str) -> pl.DataFrame:
    """round, level_diff: one row per played table (byes and forfeits excluded)."""
    with db.reading(database) as con:
        return db.frame(con, "select round, abs(ew_level - ns_level) as level_diff "
                             "from results where event_id = $e and forfeit is null",
                        {"e": event_id})


def current_pairings(database: Path, event_id: str) -> tuple[int | None, pl.DataFrame]:
    with db.reading(database) as con:
        latest = rounds.latest_paired_round(con, event_id)
        if latest is None:
            return None, pl.DataFrame()
        return latest, rounds.pairings(con, event_id, latest)


def paired_tables(database: Path, event_id: str) -> tuple[int | None, int]:
    """The latest paired round and its number of tables (the bye left out): one small read,
    not the round's pairings with every name (`current_pairings`)."""
    with db.reading(database) as con:
        latest = rounds.latest_paired_round(con, event_id)
        tables = 0 if latest is None else db.scalar(
            con, "select count(*) from pairings where event_id = ? and round = ? and "
                 "table_no is not null", [event_id, latest])
    return latest, tables


def results_table(database: Path, event_id: str, round_no: int) -> pl.DataFrame:
    with db.reading(database) as con:
        found = db.frame(con, "select table_no, ew_team, ns_team, ew_level, ns_level, forfeit "
                              "from results where event_id = $e and round = $r order by table_no",
                         {"e": event_id, "r": round_no})
    return found.with_columns(
        pl.col("ew_level").map_elements(format_level, return_dtype=pl.String),
        pl.col("ns_level").map_elements(format_level, return_dtype=pl.String),
    )


SEARCHED = ("ew_team", "ns_team", "ew_name", "ns_name", "ew_player1", "ew_player2",
            "ns_player1", "ns_player2")


def exact_rows(pairs: pl.DataFrame) -> dict[str, list[int]]:
    """Where each searched value stands exactly: any searched column's value, upper-cased →
    the rows (in order) holding it — `find_table`'s exact search, made once for a snapshot's
    pairings (the phones' pages) or for one search.

    >>> p = pl.DataFrame({c: [None, None] for c in SEARCHED}).with_columns(
    ...     ew_team=pl.Series(["A1", "A2"]), ew_name=pl.Series(["a2", None]))
    >>> exact_rows(p) == {"A1": [0], "A2": [0, 1]}
    True
    """
    values = pairs.select(*SEARCHED).with_row_index("row").unpivot(
        index="row", on=list(SEARCHED)).select(
        "row", pl.col("value").cast(pl.String).str.to_uppercase()).drop_nulls()
    return {value: sorted(rows) for value, rows in
            values.group_by("value").agg(pl.col("row").unique()).iter_rows()}


def find_table(pairs: pl.DataFrame, query: str) -> pl.DataFrame:
    """Tables of a team number, team name or player name: exact first, else part of a name.

    >>> p = pl.DataFrame({c: [None] for c in SEARCHED}).with_columns(
    ...     ew_team=pl.lit("A1"), ns_team=pl.lit("A10"), ew_name=pl.lit("雄鹰队"))
    >>> find_table(p, "a1").height, find_table(p, "雄鹰").height, find_table(p, "A").height
    (1, 1, 0)
    """
    typed = as_typed(query)
    wanted = typed.upper()
    if not wanted:
        return pairs.head(0)
    known = exact_rows(pairs)
    exact = pairs[known.get(wanted, known.get(team_number(query), []))]
    if exact.height or len(wanted) < 2:
        return exact
    names = [c for c in SEARCHED if not c.endswith("_team")]
    return pairs.filter(pl.any_horizontal(pl.col(c).cast(pl.String).str.contains(typed, literal=True)
                                          for c in names))


@dataclass
class RoundStatus:
    """Where the current round stands, for the organizer's console."""

    round: int | None
    reported: int
    expected: int
    missing: list[tuple[int, str, str | None]]  # table, EW team, NS team
    pending_reports: int
    rounds_planned: int
    next_step: str  # "register", "pair", "enter", "pair_next", "done"
    suspended: str = ""  # teams the rules suspend after ruled losses (seed 001), for the referee


def round_status(database: Path, event_id: str) -> RoundStatus:
    with db.reading(database) as con:
        event = events.load(con, event_id)
        latest = rounds.latest_paired_round(con, event_id)
        teams = db.scalar(con, "select count(*) from teams where event_id = ?", [event_id])
        pending = db.scalar(con, "select count(*) from pending_reports where event_id = ? and "
                                 "status = 'pending'", [event_id]) or 0
        if latest is None:
            return RoundStatus(None, 0, 0, [], pending, event.ruleset.rounds,
                               "pair" if teams >= 2 else "register")
        summary = rounds.summary(con, event_id).filter(pl.col("round") == latest)
        pairs = rounds.pairings(con, event_id, latest)
        suspended = scoring.suspension_note(scoring.suspended(con, event))
    missing_tables = {int(t) for t in (summary["missing"][0] or "").split(",") if t}
    missing = [(r["table"], r["ew_team"], r["ns_team"]) for r in pairs.iter_rows(named=True)
               if r["table"] in missing_tables]
    reported = int(summary["reported"][0]) if summary.height else 0
    expected = int(summary["expected"][0]) if summary.height else 0
    planned = event.ruleset.rounds
    if missing:
        step = "enter"
    elif planned and latest >= planned:
        step = "done"
    else:
        step = "pair_next"
    return RoundStatus(latest, reported, expected, missing, pending, planned, step, suspended)


def event_version(con, event_id: str) -> str:
    """A value that changes whenever anything a public page shows of the event changes
    (one small query: pages redraw from their cache until it changes): "R.S", where R
    changes with the stored results, pairings, teams, penalties, fouls, quiz, carried totals,
    the lot, the bracket's matches and the event's own row — the rows' contents, not their
    counts (a round paired again in place or a name corrected keeps every count) — and S with the tables' and the
    matches' own sheets (a full hall changes S every second: what only shows the ranking
    waits for R alone, see `results_part`)."""
    found = db.rows(con, """
        select (select count(*) from results where event_id = $e),
               (select max(updated_at)::varchar from results where event_id = $e),
               (select bit_xor(hash(x)) from pairings as x where event_id = $e),
               (select bit_xor(hash(x)) from teams as x where event_id = $e),
               (select max(changed_at)::varchar from result_audit where event_id = $e),
               (select count(*) from tractor_games where event_id = $e),
               (select count(*) from tractor_decisions where event_id = $e),
               (select bit_xor(hash(x)) from penalties as x where event_id = $e),
               (select string_agg(ruling_id || status, ',') from official_rulings
                where event_id = $e and status in ('confirmed', 'reversed')),
               (select bit_xor(hash(x)) from fouls as x where event_id = $e),
               (select bit_xor(hash(x)) from quiz as x where event_id = $e),
               (select bit_xor(hash(x)) from carried_totals as x where event_id = $e),
               (select bit_xor(hash(x)) from event_lots as x where event_id = $e),
               (select bit_xor(hash(x)) from tractor_matches as x where event_id = $e),
               (select hash(x) from events as x where event_id = $e),
               (select count(*) from table_sheet_deals where event_id = $e),
               (select max(coalesce(answered_at, entered_at))::varchar from table_sheet_deals
                where event_id = $e),
               (select count(*) from tractor_sheet_deals where event_id = $e),
               (select max(coalesce(answered_at, entered_at))::varchar from tractor_sheet_deals
                where event_id = $e),
               (select count(*) from sheet_takeoffs where event_id = $e),
               (select count(*) from table_sheet_results where event_id = $e),
               (select count(*) from tractor_sheet_results where event_id = $e)""",
                    {"e": event_id})[0]
    results, sheets = found[:15], found[15:]
    return (hashlib.sha256(repr(results).encode()).hexdigest()[:16] + "." +
            hashlib.sha256(repr(sheets).encode()).hexdigest()[:8])


def results_part(version: str) -> str:
    """The part of an event's version that changes with its results, not its sheets."""
    return version.split(".")[0]


def tables_in_play(database: Path, event_id: str) -> list[dict]:
    """The latest paired round's tables keeping their own sheet, as they stand (one read)."""
    with db.reading(database) as con:
        event = events.load(con, event_id)
        return tablestore.tables_in_play(con, event, rounds.latest_paired_round(con, event_id))
