"""Meets (运动会): several events whose placements add up per affiliation (docs/rules/general.md §8)."""

from __future__ import annotations

import duckdb
import polars as pl

from pipeline.base import db, events
from pipeline.base.errors import PaisaiError, UsageError
from pipeline.ranking import scoring


def create(con: duckdb.DuckDBPyConnection, meet_id: str, name: str) -> None:
    if not events.valid_id(meet_id):
        raise UsageError(f"运动会编号只能用小写字母、数字和 - meet id must match [a-z0-9-]+: {meet_id!r}")
    if db.scalar(con, "select count(*) from meets where meet_id = ?", [meet_id]):
        raise UsageError(f"运动会已存在 meet already exists: {meet_id}")
    con.execute("insert into meets (meet_id, name) values (?, ?)", [meet_id, name])


def _require(con: duckdb.DuckDBPyConnection, meet_id: str) -> str:
    name = db.scalar(con, "select name from meets where meet_id = ?", [meet_id])
    if name is None:
        raise PaisaiError(f"没有这个运动会 no such meet: {meet_id}")
    return name


def parse_points(text: str) -> list[int]:
    """`18,14,12` → [18, 14, 12].

    >>> parse_points("9, 7,6")
    [9, 7, 6]
    """
    try:
        points = [int(p) for p in text.replace("，", ",").split(",") if p.strip()]
    except ValueError:
        raise UsageError(f"名次记分应为逗号分隔的整数 placement points must be whole numbers "
                         f"separated by commas: {text!r}") from None
    if not points or any(p < 0 for p in points):
        raise UsageError("名次记分不能为空或负数 placement points must be ≥ 0")
    return points


def add(con: duckdb.DuckDBPyConnection, meet_id: str, event_id: str, points: list[int],
        deduction: int) -> None:
    _require(con, meet_id)
    events.load(con, event_id)
    con.execute("insert or replace into meet_events values (?, ?, ?, ?)",
                [meet_id, event_id, points, deduction])


def _places(ranking: pl.DataFrame) -> pl.DataFrame:
    """The placement order the prizes follow: teams that share a rank (a knockout's two
    semi-final losers) are taken in the order the awards take them — the group-stage
    record first (issue 38: a meet never gives both 12 points while the prize list gives one
    of them third) — so place n earns the n-th placement points."""
    ranked = ranking.filter(pl.col("rank").is_not_null())
    return ranked.with_columns(pl.int_range(1, ranked.height + 1).alias("rank"))


def standings(con: duckdb.DuckDBPyConnection, meet_id: str) -> tuple[str, pl.DataFrame]:
    name = _require(con, meet_id)
    ids = [r[0] for r in db.rows(con, "select event_id from meet_events where meet_id = ? "
                                      "order by event_id", [meet_id])]
    frames = []
    for event_id in ids:
        event = events.load(con, event_id)
        frames.append(_places(scoring.standings(con, event)).select(
            pl.lit(event_id).alias("event_id"), "rank", "team_no", "affiliation"))
    ranks = pl.concat(frames) if frames else pl.DataFrame(
        schema={"event_id": pl.String, "rank": pl.Int64, "team_no": pl.String,
                "affiliation": pl.String})
    con.register("event_ranks", ranks)
    try:
        table = db.frame(con, scoring.compose(["meet_forfeits"], "meet_standings",
                                              "rank, affiliation"), {"meet_id": meet_id})
    finally:
        con.unregister("event_ranks")
    return name, table


def deductions(con: duckdb.DuckDBPyConnection, meet_id: str) -> pl.DataFrame:
    """Each forfeit deduction with its event, round, team and unit."""
    _require(con, meet_id)
    return db.frame(con, scoring.compose([], "meet_forfeits",
                                         "event_id, round, affiliation, team_no"),
                    {"meet_id": meet_id})
