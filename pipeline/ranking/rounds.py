"""A stored event's rounds as the ranking and the screens read them: the reporting summary,
the next round's number, a round's tables, the latest paired round; and the removal of a
round's results (while no later round is paired). Pairing a round is the pairing stage's
(`pipeline.pairing.event_round`)."""

from __future__ import annotations

import duckdb
import polars as pl

from pipeline.base import db, store
from pipeline.base.errors import PaisaiError, UsageError

PAIRING_COLUMNS = ["round", "table", "ew_team", "ns_team"]


def summary(con: duckdb.DuckDBPyConnection, event_id: str) -> pl.DataFrame:
    """One row per round: tables reported and expected."""
    return db.frame(con, db.sql("rounds"), {"event_id": event_id})


def next_round(con: duckdb.DuckDBPyConnection, event_id: str) -> int:
    found = db.scalar(
        con,
        "select greatest(coalesce((select max(round) from results where event_id = $e), 0),"
        " coalesce((select max(round) from pairings where event_id = $e), 0))",
        {"e": event_id},
    )
    return int(found or 0) + 1


def pairings(con: duckdb.DuckDBPyConnection, event_id: str, round_no: int) -> pl.DataFrame:
    """A stored round's tables in order, the bye last, with names for lists and exports;
    `bye` says which kind of bye a table without an opponent is (a pairing bye, or one the
    team asked for: `pair --bye`, zero points or other)."""
    found = db.frame(
        con,
        """
        select p.round, p.table_no as "table", p.ew_team, p.ns_team,
               e.team_name as ew_name, e.player1 as ew_player1, e.player2 as ew_player2,
               n.team_name as ns_name, n.player1 as ns_player1, n.player2 as ns_player2,
               case when p.ns_team is not null then null
                    when coalesce(p.bye_kind, 'allocated') = 'allocated' then '轮空 bye'
                    when p.bye_points = 0 then '零分轮空（请求） zero-point bye (requested)'
                    when p.bye_points is null
                        then '请求轮空（平局分） requested bye (the draw points)'
                    else '请求轮空（' || p.bye_points || ' 分） requested bye ('
                         || p.bye_points || ' points)'
               end as bye
        from pairings p
        left join teams e on e.event_id = p.event_id and e.team_no = p.ew_team
        left join teams n on n.event_id = p.event_id and n.team_no = p.ns_team
        where p.event_id = $e and p.round = $r
        order by p.table_no nulls last
        """,
        {"e": event_id, "r": round_no},
    )
    if found.is_empty():
        raise PaisaiError(f"第 {round_no} 轮还没有编排 round {round_no} is not paired yet")
    return found


def latest_paired_round(con: duckdb.DuckDBPyConnection, event_id: str) -> int | None:
    return db.scalar(con, "select max(round) from pairings where event_id = ?", [event_id])


def has_results(con: duckdb.DuckDBPyConnection, event_id: str, round_no: int) -> bool:
    """Whether any result of the round is stored (a round with one is never paired again)."""
    return bool(db.scalar(con, "select count(*) from results where event_id = ? and round = ?",
                          [event_id, round_no]))


def delete_results(con: duckdb.DuckDBPyConnection, event_id: str, round_no: int,
                   table_no: int | None) -> int:
    """Remove results of a round (or one table of it) while no later round is paired."""
    later = db.scalar(con, "select max(round) from pairings where event_id = ? and round > ?",
                      [event_id, round_no])
    if later is not None:
        raise UsageError(f"第 {later} 轮已编排，不能再删除第 {round_no} 轮的成绩 round {later} is "
                         f"paired already: the results of round {round_no} can no longer be "
                         "removed")
    removed = store.delete_results(con, event_id, round_no, table_no, "删除 delete")
    if not removed:
        where = f"第 {table_no} 桌" if table_no else ""
        raise UsageError(f"第 {round_no} 轮{where}没有已保存的成绩 no stored results for round "
                         f"{round_no}" + (f", table {table_no}" if table_no else ""))
    return removed
