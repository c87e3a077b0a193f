"""Carried-over totals (带入成绩表): every team must be registered; never taken as a
registration sheet."""

from __future__ import annotations

import polars as pl

from pipeline.intake.sheets.kinds.base import check_team_refs
from schemas import checks as ck


def casts() -> list[pl.Expr]:
    """Text cells to typed columns (a cell that does not cast becomes null: its problem is
    already listed by the model)."""
    return [
        ck.normalized("team_no").alias("team_no"),
        ck.as_float("match_points").alias("match_points"),
        *(ck.as_int(c).fill_null(0).alias(c)
          for c in ("level_diff_score", "net_levels", "levels_gained", "levels")),
    ]


check = check_team_refs
