"""One row per player (个人报名表): partners share a pair marker."""

from __future__ import annotations

import polars as pl

from pipeline.base.errors import Problem
from pipeline.intake.sheets.kinds.base import EventContext, Where
from pipeline.intake.sheets.read import ROW
from schemas import checks as ck


def casts() -> list[pl.Expr]:
    """Text cells to typed columns (a cell that does not cast becomes null: its problem is
    already listed by the model)."""
    return [
        pl.col("player").str.strip_chars(),
        pl.col("affiliation").str.strip_chars(),
        ck.normalized("pair").alias("pair"),
    ]


def _check_players(
    typed: pl.DataFrame, context: EventContext, where: Where
) -> tuple[pl.DataFrame, list[Problem]]:
    """Partners share a marker: a marker used once or more than twice names its rows."""
    problems = []
    rows_of: dict[str, list[dict]] = {}
    for row in typed.iter_rows(named=True):
        if row["pair"]:
            rows_of.setdefault(row["pair"], []).append(row)
    for marker, rows in rows_of.items():
        if len(rows) != 2:
            numbers = "、".join(str(r[ROW]) for r in rows)
            for row in rows:
                problems.append(where.problem(
                    row, "pair", marker,
                    f"配对标记 {marker} 出现 {len(rows)} 次（第 {numbers} 行），应恰好两人 a pair "
                    f"marker must mark exactly two players"))
    return typed, problems


check = _check_players
