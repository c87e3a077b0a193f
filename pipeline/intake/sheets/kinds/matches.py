"""Tractor games (拖拉机比赛结果), and matches decided without play. The row-spanning checks are in
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
        *match_keys(deal=False),
        ck.normalized("team_a").alias("team_a"),
        ck.normalized("team_b").alias("team_b"),
        ck.as_level("a_level").alias("a_level"),
        ck.as_level("b_level").alias("b_level"),
        ck.normalized("winner").alias("winner"),
        ck.normalized("forfeit").alias("forfeit"),
        ck.normalized("disqualified").alias("disqualified"),
        ck.normalized("time_winner").alias("time_winner"),
    ]


check = tractor_only(checks.check_matches)
