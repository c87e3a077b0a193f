"""The ranking from kept sums (issue 53): where every key of the chain is a team's own total,
the ranking after round r is computed from the teams' sums after round r − 1, kept by that
round's ingest (`remember`), and round r's results alone — `team_sums_kept.sql` adds them
up; a full ranking and the history read none of this path's layers. The same frame as the
ranking from every round (tests/test_ranking_from_sums.py); kept sums are read only while
everything the ranking after round r − 1 read is unchanged."""

from __future__ import annotations

import io
import threading

import duckdb
import polars as pl

from pipeline.base import db
from pipeline.base.events import Event
from pipeline.ranking.scoring import (
    OPPONENT_KEYS,
    RANKS_ONLY,
    SUMS,
    bind,
    compose,
    fingerprint_query,
    latest_round,
    published_keys,
    ranked,
    ranking_code,
    ranking_layers,
    ranking_params,
    ranking_query,
)


def from_sums(keys: list[str]) -> bool:
    """Whether the ranking by `keys` can be computed from the sums kept after the round
    before and the latest round's results alone (`team_sums.sql`): every key a team's own
    total. The opponents' keys (an opponent's total changes with its later games) and
    head-to-head read every game.

    >>> from_sums(["match_points", "level_diff_score", "levels", "team_no"])
    True
    >>> from_sums(["match_points", "buchholz", "team_no"]), from_sums(["head_to_head"])
    (False, False)
    """
    return not (OPPONENT_KEYS & set(keys)) and "head_to_head" not in keys


def kept(
    con: duckdb.DuckDBPyConnection, event: Event, kept_round: int, found: str | None
) -> pl.DataFrame | None:
    """The sums an ingest kept after `kept_round`, if what they read is unchanged since
    (`found`: that round's fingerprint now, standings_fingerprints_by_round.sql)."""
    if kept_round < 1 or found is None:
        return None
    row = db.rows(
        con,
        "select fingerprint, ranking from standings_cache where event_id = ? "
        "and max_round = ? and keys = ?",
        [event.event_id, kept_round, SUMS],
    )
    if not row or row[0][0] != f"{ranking_code()};{found}":
        return None
    return pl.read_ipc(io.BytesIO(row[0][1]))


def rank(
    con: duckdb.DuckDBPyConnection,
    event: Event,
    max_round: int,
    keys: list[str],
    kept: pl.DataFrame | None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The ranking by `keys` (each a team's own total) and the teams' sums it stands on
    (team_sums_kept.sql): from `kept`, the sums after the round before, and this round's
    results alone; without them, from every round. The same frame as `scoring._rank`. The
    second aggregation (kept and new sums added) is this path's alone: a full ranking and
    the history read team_sums as it is."""
    params = ranking_params(event, max_round, keys)
    params["first_round"] = 1 if kept is None else max_round
    layers: list[str | tuple[str, str]] = [
        ("stg_results_all", "stg_results"),
        ("stg_results", "stg_results_since"),
        ("penalties", "penalties_since"),
        "team_rounds",
        "team_sums",
        "orphan_penalties",
    ]
    if kept is None:
        layers.append(("kept_sums", "kept_sums_none"))
    else:
        db.register(con, "kept_sums", kept)
    try:
        query = compose(layers, "team_sums_kept", "")
        sums = db.frame(con, query, bind(query, params))
    finally:
        if kept is not None:
            con.unregister("kept_sums")
    above = ranking_layers(keys)
    above = [("orphan_penalties", "kept_orphans"), *above[above.index("team_totals") :]]
    db.register(con, "team_sums", sums)
    try:
        query = compose(above, "standings", "", keys)
        ranking = ranked(con, query, bind(query, params))
    finally:
        con.unregister("team_sums")
    return ranking.drop("event_id"), sums


def remember(con: duckdb.DuckDBPyConnection, event: Event) -> None:
    """Rank the event after its latest round and keep the ranking for the readers that come
    next (the standings, the projector, the pairing when it ranks by the same keys): one
    ranking query for all of them. The round's ranks alone (team_no, rank) are kept besides,
    and those of earlier rounds stay: the bump chart's rankings after each round are ranked
    once, at the ingest of their round (`kept_ranks`). In the ingest's transaction.

    Where every key is a team's own total (`from_sums`), the teams' sums after the round are
    kept too, and the next round is ranked from them and its own results alone — while
    everything the ranking after this round read is unchanged (its fingerprint: a result,
    a pairing, a penalty, a foul, a ruling, a team changed since ranks every round again)."""
    if not event.ruleset.is_swiss:
        return
    max_round = latest_round(con, event.event_id)
    keys = published_keys(event, max_round)
    code = ranking_code()
    prints = dict(
        db.rows(
            con, fingerprint_query("standings_fingerprints_by_round"), {"event_id": event.event_id}
        )
    )
    fingerprint = f"{code};{prints.get(max_round)}"
    sums = None
    if from_sums(keys):
        ranking, sums = rank(
            con, event, max_round, keys, kept(con, event, max_round - 1, prints.get(max_round - 1))
        )
    else:
        query = ranking_query(keys, "")
        params = bind(query, ranking_params(event, max_round, keys))
        ranking = ranked(con, query, params).drop("event_id")
    con.execute(  # the sums after the round before stay: a correction of this round reads them
        "delete from standings_cache where event_id = ? and (max_round >= ? or keys <> ? and "
        "not (keys = ? and max_round = ? - 1))",
        [event.event_id, max_round, RANKS_ONLY, SUMS, max_round],
    )
    ranks = ranking.select("team_no", "rank")
    kept_rows = [(max_round, ",".join(keys), ranking), (max_round, RANKS_ONLY, ranks)]
    if sums is not None:
        kept_rows.append((max_round, SUMS, sums))
    blobs = _ipc_each([f for _, _, f in kept_rows])
    con.executemany(
        "insert into standings_cache values (?, ?, ?, ?, ?)",
        [[event.event_id, r, k, fingerprint, b]
         for (r, k, _), b in zip(kept_rows, blobs, strict=True)],
    )


def _ipc_each(frames: list[pl.DataFrame]) -> list[bytes]:
    """`_ipc` of each frame, side by side in threads (polars compresses without holding the
    interpreter): 100,000 teams' three frames, 0.11 s CPU, on both cores. What one raises
    is raised here."""
    blobs: list[bytes | None] = [None] * len(frames)
    failed: list[BaseException] = []

    def write(index: int) -> None:
        try:
            blobs[index] = _ipc(frames[index])
        except BaseException as exc:  # raised again below, in the caller's thread
            failed.append(exc)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(1, len(frames))]
    for thread in threads:
        thread.start()
    write(0)  # the largest (the ranking) in this thread
    for thread in threads:
        thread.join()
    if failed:
        raise failed[0]
    return blobs  # type: ignore[return-value]


def _ipc(frame: pl.DataFrame) -> bytes:
    """The frame as kept in standings_cache: zstd, half lz4's size (100,000 teams' ranking
    4.0 MB, not 7.6), for 0.03 s more to write — the ingest's commit writes every byte of
    it at its checkpoint (about 0.03 s CPU a MB). A kept lz4 blob reads all the same."""
    return frame.write_ipc(None, compression="zstd").getvalue()
