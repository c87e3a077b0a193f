"""Tractor penalties of a deal: points, levels, a deal lost, the offended side's choice. The
row-spanning checks are in `pipeline.tractor.checks`."""

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
        ck.normalized("team_no").alias("team_no"),
        ck.as_int("points").fill_null(0).alias("points"),
        ck.as_int("levels").fill_null(0).alias("levels"),
        ck.normalized("deal_lost").replace_strict(
            {k.upper(): v for k, v in ck.YES_NO.items()}, default=False,
            return_dtype=pl.Boolean).fill_null(False).alias("deal_lost"),
        ck.as_choice("choice", ck.PENALTY_CHOICE).alias("choice"),
        pl.col("reason").str.strip_chars(),
    ]


check = tractor_only(checks.check_point_penalties)
