"""Quiz (测试题) scores and times (seed 004)."""

from __future__ import annotations

import polars as pl

from pipeline.intake.sheets.kinds.base import check_team_refs
from schemas import checks as ck


def casts() -> list[pl.Expr]:
    """Text cells to typed columns (a cell that does not cast becomes null: its problem is
    already listed by the model)."""
    return [
        ck.normalized("team_no").alias("team_no"),
        ck.as_float("quiz_score").alias("quiz_score"),
        ck.as_float("quiz_seconds").alias("quiz_seconds"),
    ]


check = check_team_refs
