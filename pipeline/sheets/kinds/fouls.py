"""Fouls, warnings and violations per team per round (seeds 001 and 003)."""

from __future__ import annotations

import polars as pl

from pipeline.sheets.kinds.base import check_team_refs
from schemas import checks as ck
from schemas.fouls import FoulsSheet

MODEL = FoulsSheet


def casts() -> list[pl.Expr]:
    """Text cells to typed columns (a cell that does not cast becomes null: its problem is
    already listed by the model)."""
    return [
        ck.as_int("round").alias("round"),
        ck.normalized("team_no").alias("team_no"),
        *(ck.as_int(c).fill_null(0).alias(c) for c in ("fouls", "warnings", "violations")),
    ]


check = check_team_refs
