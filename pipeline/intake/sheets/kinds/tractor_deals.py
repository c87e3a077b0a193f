"""Tractor deals (拖拉机逐盘记分), replayed into games. The row-spanning checks are in
`pipeline.tractor.checks`."""

from __future__ import annotations

import polars as pl

from pipeline.intake.sheets.kinds.base import match_keys, tractor_only
from pipeline.tractor import checks
from schemas import checks as ck


def casts() -> list[pl.Expr]:
    """Text cells to typed columns (a cell that does not cast becomes null: its problem is
    already listed by the model)."""
    return [
        *match_keys(deal=True),
        ck.normalized("declarer_team").alias("declarer_team"),
        ck.as_int("points").alias("points"),
        ck.as_int("trump_cards").alias("trump_cards"),
    ]


check = tractor_only(checks.check_deals)
