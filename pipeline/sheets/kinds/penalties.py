"""Penalties (罚分表): a deduction from one total of one team in one round."""

from __future__ import annotations

import polars as pl

from pipeline.sheets.kinds.base import check_team_refs
from schemas import checks as ck
from schemas.penalties import PenaltiesSheet

MODEL = PenaltiesSheet


def casts() -> list[pl.Expr]:
    """Text cells to typed columns (a cell that does not cast becomes null: its problem is
    already listed by the model)."""
    return [
        ck.as_int("round").alias("round"),
        ck.normalized("team_no").alias("team_no"),
        ck.as_choice("target", ck.PENALTY_TARGETS).alias("target"),
        ck.as_int("amount").alias("amount"),
        pl.col("reason").fill_null("").str.strip_chars(),
    ]


check = check_team_refs
