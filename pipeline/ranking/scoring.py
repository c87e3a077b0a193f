"""Standings and round points, computed in DuckDB from the stored results.

The SQL lives in `pipeline/sql/` in layers (stg_results → team_rounds → standings); this
module only stacks the layers as CTEs and binds the ruleset's values as parameters.
"""

from __future__ import annotations

import hashlib
import io
import re
from functools import cache

import duckdb
import polars as pl

from pipeline.base import db
from pipeline.base.events import Event

STANDINGS_COLUMNS = [
    "rank", "team_no", "team_name", "played", "wins", "draws", "losses",
    "match_points", "level_diff_score", "levels", "net_levels",
]
# a Tractor event's group record as people read it (the table view, the phone page): group
# points, game and level difference — Guandan's 级差分 and 升级数 mean nothing there
TRACTOR_COLUMNS = ["rank", "team_no", "team_name", "played", "wins", "losses",
                   "match_points", "game_diff", "level_diff", "status"]


def compose(layers: list[str | tuple[str, str]], final: str, order_by: str,
            keys: list[str] | None = None) -> str:
    """One query: each layer, then the final model, a CTE named after its file (a layer
    given as (name, file) is that file under that name). `keys`, the ranking's keys, are
    written into the layers that hold one expression per key (`key_slots`)."""
    named = [(layer, layer) if isinstance(layer, str) else layer for layer in [*layers, final]]
    ctes = ",\n".join(f"{name} as (\n{_with_keys(db.sql(file), keys)}\n)"
                       for name, file in named)
    return f"with {ctes}\nselect * from {final}" + (f" order by {order_by}" if order_by else "")


def key_slots(keys: list[str]) -> dict[str, str]:
    """What the composer writes into `{key_list}` (key_values.sql: key_value.sql once per
    key, named by it, so that DuckDB keeps the one branch of its CASE: no lambda over
    $ranking_keys per team) and `{sort_key}` (standings.sql: key_list itself, or its values
    with head-to-head's three levels in head-to-head's place) — the values the lambdas over
    $ranking_keys gave, in the keys' order.

    >>> key_slots(["match_points", "team_no"])["{sort_key}"]
    'v.key_list'
    >>> key_slots(["level_points", "head_to_head", "team_no"])["{sort_key}"]
    '[v.key_list[1], -h.h2h_1, -h.h2h_2, -h.h2h_3, v.key_list[3]]::double[]'
    """
    one = db.sql("key_value").strip()
    values = [one.replace("'{key}'", "'" + key.replace("'", "''") + "'") for key in keys]
    sort_key = [("-h.h2h_1, -h.h2h_2, -h.h2h_3" if key == "head_to_head" else f"v.key_list[{i}]")
                for i, key in enumerate(keys, start=1)]
    return {"{key_list}": f"[{', '.join(values)}]::double[]",
            "{sort_key}": (f"[{', '.join(sort_key)}]::double[]" if "head_to_head" in keys
                           else "v.key_list")}


def _with_keys(text: str, keys: list[str] | None) -> str:
    """A layer's text with `key_slots` written in (a layer without a slot as it is)."""
    slots = [slot for slot in ("{key_list}", "{sort_key}") if slot in text]
    if not slots:
        return text
    if keys is None:
        raise ValueError(f"the layer's {slots[0]} needs the ranking's keys (compose(…, keys))")
    filled = key_slots(keys)
    for slot in slots:
        text = text.replace(slot, filled[slot])
    return text


# the keys read from the opponents' totals: their layer is composed only when one is ranked by
OPPONENT_KEYS = frozenset({"buchholz", "buchholz_cut1", "median_buchholz", "sonneborn_berger",
                           "opponents_level_diff"})
RANKING_FILES = ("stg_results", "team_rounds", "h2h_games", "team_sums",
                 "orphan_penalties", "team_totals", "lots", "opponent_keys",
                 "opponent_keys_none", "key_values", "head_to_head", "head_to_head_none",
                 "standings", "final_ranks",
                 # the ranking at an ingest from kept sums (sums.py)
                 "stg_results_since", "penalties_since", "kept_sums_none", "team_sums_kept",
                 "kept_orphans", "key_value")


def ranking_layers(keys: list[str]) -> list[str | tuple[str, str]]:
    """The layers `standings.sql` stands on for these keys: the opponents' keys and
    head-to-head only where the chain has them (else a layer of the same columns without a
    row: every team's value 0, as it is when the keys do not use them), so a ranking by
    points and levels plans and runs neither.

    >>> ranking_layers(["match_points", "team_no"])[-3:]
    [('opponent_keys', 'opponent_keys_none'), 'key_values', ('head_to_head', 'head_to_head_none')]
    >>> ranking_layers(["level_points", "head_to_head", "buchholz"])[2]
    'h2h_games'
    """
    h2h = "head_to_head" in keys
    return ["stg_results", "team_rounds", *(["h2h_games"] if h2h else []),
            "team_sums", "orphan_penalties", "team_totals",
            "lots", "opponent_keys" if OPPONENT_KEYS & set(keys) else
            ("opponent_keys", "opponent_keys_none"), "key_values",
            "head_to_head" if h2h else ("head_to_head", "head_to_head_none")]


def ranking_query(keys: list[str], order_by: str) -> str:
    """The ranking by `keys`, as one query (`compose` of its layers and `standings.sql`)."""
    return compose(ranking_layers(keys), "standings", order_by, keys)


def ranked(con: duckdb.DuckDBPyConnection, query: str, params: dict) -> pl.DataFrame:
    """The rows of a ranking query composed without an order (`ranking_query(keys, "")`), in
    the ranking's order — rank, then team-number order — sorted by polars once fetched:
    DuckDB's ORDER BY carried every wide column (names, players) through its sort
    (100,000 teams: about 0.03 s CPU more). team_order is unique within the event: the
    same rows in the same order."""
    return db.frame(con, query, params).sort("rank", "team_order")


def latest_round(con: duckdb.DuckDBPyConnection, event_id: str) -> int:
    """The latest round with any result (0 before the first)."""
    found = db.scalar(con, "select max(round) from results where event_id = ?", [event_id])
    return int(found or 0)


def ranking_params(event: Event, max_round: int, keys: list[str]) -> dict:
    return {
        "event_ids": [event.event_id],  # the layers rank a set of events: this one
        "max_round": max_round,
        "ranking_keys": keys,
        **event.ruleset.sql_params,
    }


def bind(query: str, params: dict) -> dict:
    """The parameters a query uses (DuckDB refuses any it does not).

    >>> bind("select $a + $ab", {"a": 1, "ab": 2, "b": 3})
    {'a': 1, 'ab': 2}
    """
    used = set(re.findall(r"\$(\w+)", query))
    return {k: v for k, v in params.items() if k in used}


def h2h_games(con: duckdb.DuckDBPyConnection, event: Event, max_round: int) -> pl.DataFrame:
    """Every game between two teams with its head-to-head credit, as the ranking counts it
    (`h2h_games.sql`, the one definition `standings.sql` sums)."""
    query = compose(["stg_results", "team_rounds"], "h2h_games", "round, team_no")
    return db.frame(con, query, bind(query, ranking_params(event, max_round, []))).drop("event_id")


def team_rounds(con: duckdb.DuckDBPyConnection, event: Event, max_round: int) -> pl.DataFrame:
    """One row per team per round up to max_round, with the round's points."""
    query = compose(["stg_results"], "team_rounds", "round, team_no")
    return db.frame(con, query, bind(query, ranking_params(event, max_round, []))).drop("event_id")


def standings(
    con: duckdb.DuckDBPyConnection,
    event: Event,
    max_round: int | None = None,
    keys: list[str] | None = None,
) -> pl.DataFrame:
    """The ranking after round max_round (default: the latest round with a result).

    `keys` defaults to the ruleset's ranking keys; pairing passes its own chain.
    """
    if max_round is None:
        max_round = latest_round(con, event.event_id)
    keys = list(keys or published_keys(event, max_round))
    ranking = _cached(con, event, max_round, keys)
    if ranking is None:
        ranking = _rank(con, event, max_round, keys)
    if not event.ruleset.fractional_points:  # whole points print as whole numbers
        ranking = ranking.with_columns(pl.col(c).cast(pl.Int64) for c in WHOLE_WHEN_WHOLE)
    if not event.ruleset.is_swiss:
        return bracket_ranking(con, event, ranking)
    return ranking


def provisional(con: duckdb.DuckDBPyConnection, event: Event, round_no: int,
                tables: pl.DataFrame) -> pl.DataFrame:
    """The ranking after round `round_no` if the round ended now: the stored results and,
    for the tables still playing, `tables` (round, table_no, ew_team, ns_team, ew_level,
    ns_level, deals, first_to_level, last_deal_side) as if stored. The same SQL as the
    ranking — the results it reads are the stored ones and these — never cached."""
    keys = published_keys(event, round_no)
    db.register(con, "provisional_results", tables.with_columns(
        pl.lit(event.event_id).alias("event_id")))
    try:
        query = ranking_query(keys, "")
        query = query.replace("with ", "with results as (select * from main.results union "
                              "all by name select * from provisional_results),\n", 1)
        ranking = ranked(con, query, bind(query, ranking_params(event, round_no, keys))
                         ).drop("event_id")
    finally:
        con.unregister("provisional_results")
    if not event.ruleset.fractional_points:
        ranking = ranking.with_columns(pl.col(c).cast(pl.Int64) for c in WHOLE_WHEN_WHOLE)
    return ranking


def published_keys(event: Event, max_round: int) -> list[str]:
    """The keys of the ranking published after `max_round`: the ruleset's `interim_keys`
    before its last round where it has them (seed 004), else its ranking keys."""
    ranking = event.ruleset.ranking
    if ranking["interim_keys"] and max_round < event.ruleset.rounds:
        return list(ranking["interim_keys"])
    return list(ranking["keys"])


def _rank(con: duckdb.DuckDBPyConnection, event: Event, max_round: int,
          keys: list[str]) -> pl.DataFrame:
    query = ranking_query(keys, "")
    return ranked(con, query, bind(query, ranking_params(event, max_round, keys))).drop("event_id")


def _fingerprint(con: duckdb.DuckDBPyConnection, event: Event, max_round: int) -> str:
    """What the event's ranking reads, and the SQL that ranks it (a new version of paisai
    never serves a ranking an older one cached)."""
    found = db.scalar(con, fingerprint_query("standings_fingerprint"),
                      {"event_id": event.event_id, "max_round": max_round})
    return f"{ranking_code()};{found}"


@cache
def fingerprint_query(name: str) -> str:
    """`standings_fingerprint` (after one round) or `standings_fingerprints_by_round` (after
    each), composed after the event-wide parts they share (`standings_fingerprint_parts`)."""
    order = "round" if name == "standings_fingerprints_by_round" else "fingerprint"
    return compose(["standings_fingerprint_parts"], name, order)


@cache
def ranking_code() -> str:
    """A digest of the SQL that ranks."""
    text = "".join(db.sql(n) for n in RANKING_FILES)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _cached(con: duckdb.DuckDBPyConnection, event: Event, max_round: int,
            keys: list[str]) -> pl.DataFrame | None:
    """The ranking an ingest kept (`sums.remember`), if nothing it reads has changed since."""
    found = db.rows(con, "select fingerprint, ranking from standings_cache where event_id = ? "
                         "and max_round = ? and keys = ?",
                    [event.event_id, max_round, ",".join(keys)])
    if not found or found[0][0] != _fingerprint(con, event, max_round):
        return None
    return pl.read_ipc(io.BytesIO(found[0][1]))


RANKS_ONLY = ""  # standings_cache's `keys` of a round's ranks alone (team_no, rank)
SUMS = "#sums"  # standings_cache's `keys` of the sums after a round (team_sums.sql)


def kept_ranks(
    con: duckdb.DuckDBPyConnection, event: Event, fingerprints: dict[int, str]
) -> dict[int, pl.DataFrame]:
    """The ranks (team_no, rank) after each round of `fingerprints` ({round: its
    standings_fingerprints_by_round.sql value}) that an ingest kept (`sums.remember`), of the
    rounds whose ranking reads today what it read then; a round missing has none."""
    if not fingerprints:
        return {}
    code = ranking_code()
    found = db.rows(
        con,
        "select max_round, fingerprint, ranking from standings_cache where event_id = ? "
        "and keys = ? and list_contains(?, max_round)",
        [event.event_id, RANKS_ONLY, list(fingerprints)],
    )
    return {
        r: pl.read_ipc(io.BytesIO(blob))
        for r, kept, blob in found
        if kept == f"{code};{fingerprints[r]}"
    }


def suspended(con: duckdb.DuckDBPyConnection, event: Event) -> list[tuple[str, int]]:
    """Teams that lost `suspend_after_ruled_losses` rounds or more by ruling (fouls,
    violations; seed 001: "兩次判負要判停賽"), with the count; [] when the setting is off."""
    limit = event.ruleset.scoring["suspend_after_ruled_losses"]
    if not limit or not event.ruleset.is_swiss:
        return []
    rounds = team_rounds(con, event, latest_round(con, event.event_id))
    ruled = rounds.filter(pl.col("ruled") & (pl.col("outcome") == "loss")).group_by(
        "team_no").len().filter(pl.col("len") >= limit).sort("team_no")
    return [(team, int(n)) for team, n in ruled.iter_rows()]


def suspension_note(found: list[tuple[str, int]]) -> str:
    """The warning for the organizer, '' when no team is concerned.

    >>> suspension_note([("A3", 2)])
    'A3 已被判负 2 轮，按规则应停赛，请裁判处理 A3 lost 2 rounds by ruling: the rules suspend the team; the referee decides'
    """
    if not found:
        return ""
    teams = "、".join(f"{team} 已被判负 {n} 轮" for team, n in found)
    counts = ", ".join(f"{team} lost {n} rounds by ruling" for team, n in found)
    return f"{teams}，按规则应停赛，请裁判处理 {counts}: the rules suspend the team; the referee decides"


def bracket_ranking(con: duckdb.DuckDBPyConnection, event: Event,
                    ranking: pl.DataFrame) -> pl.DataFrame:
    """A knockout event's ranking: the bracket's places (docs/rules/general.md §8, the order of the awards;
    a disqualified team has none), and before the final the group-stage record (points, game
    and level difference; equal records share a rank). Matches played, won and lost, group
    points as match_points and the games' level difference as net_levels."""
    from pipeline.tractor import stages

    played = stages.matches(con, event).filter(pl.col("team_b").is_not_null()
                                               & pl.col("winner").is_not_null())
    sides = pl.concat([
        played.select(pl.col("team_a").alias("team_no"), "winner",
                      pl.col("level_diff_a").alias("net")),
        played.select(pl.col("team_b").alias("team_no"), "winner",
                      (-pl.col("level_diff_a")).alias("net"))])
    record = sides.group_by("team_no").agg(
        pl.len().cast(pl.Int64).alias("played"),
        (pl.col("winner") == pl.col("team_no")).sum().cast(pl.Int64).alias("wins"),
        (pl.col("winner") != pl.col("team_no")).sum().cast(pl.Int64).alias("losses"),
        pl.col("net").sum().cast(pl.Int64).alias("net_levels"))
    groups = stages.group_tables(con, event).group_by("team_no").agg(
        pl.col("points").sum().alias("group_points"), pl.col("game_diff").sum(),
        pl.col("level_diff").sum())
    from pipeline.tractor.places import without

    out = set(stages.disqualified(con, event))
    placed = without(stages.places(con, event, as_played=True), out)
    places = {p.team_no: p.rank for p in placed}
    # teams sharing a place keep the bracket's order (the group record, or the organizer's
    # play-off or lot): the order the prizes and a meet's placement points follow
    order = pl.col("team_no").replace_strict({p.team_no: n for n, p in enumerate(placed)},
                                             default=None, return_dtype=pl.Int64)
    merged = ranking.drop("played", "wins", "losses", "net_levels").join(
        record, on="team_no", how="left").join(groups, on="team_no", how="left").with_columns(
        pl.col("played", "wins", "losses", "net_levels", "group_points", "game_diff",
               "level_diff").fill_null(0))
    if places:
        rank = pl.col("team_no").replace_strict(places, default=None, return_dtype=pl.Int64)
    else:
        rank = pl.struct(-pl.col("group_points"), -pl.col("game_diff"),
                         -pl.col("level_diff")).rank("min").cast(pl.Int64)
    match_points = pl.col("group_points").cast(ranking.schema["match_points"])
    return merged.with_columns(
        rank.alias("rank"), match_points.alias("match_points"),
        pl.when(pl.col("team_no").is_in(sorted(out))).then(pl.lit("disqualified"))
        .otherwise(pl.col("status")).alias("status"),
    ).with_columns(
        pl.when(pl.col("status") == "disqualified").then(None).otherwise(pl.col("rank"))
        .alias("rank"),
    ).sort(["rank", order, "team_order"], nulls_last=True).select(
        *ranking.columns, "game_diff", "level_diff")


# points columns that are whole numbers when the ruleset's points are
WHOLE_WHEN_WHOLE = ["match_points", "buchholz", "buchholz_cut1", "median_buchholz",
                    "progressive", "head_to_head", "carried_points"]


def published(ranking: pl.DataFrame, event: Event) -> pl.DataFrame:
    """The ranking's columns as `paisai standings` and the JSON API give them: the standard
    ones, each extra key of the ruleset, carried points where there are any, the status."""
    keys = event.ruleset.ranking["keys"]
    carried = ["carried_points"] if ranking["carried_points"].is_not_null().any() else []
    record = [] if event.ruleset.is_swiss else ["game_diff", "level_diff"]  # Tractor groups
    return ranking.select(STANDINGS_COLUMNS + record + key_columns(keys) + carried
                          + ["status"])


def key_columns(keys: list[str]) -> list[str]:
    """The columns that show each ranking key's value, in the ruleset's order, after the
    standard columns (team_no and the standard ones are there already).

    >>> key_columns(["level_points", "head_to_head", "net_levels", "team_no"])
    ['level_points', 'head_to_head']
    """
    return [k for k in keys if k not in STANDINGS_COLUMNS]
