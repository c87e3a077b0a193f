"""Fouls, warnings and violations per team per round (seeds 001 and 003). Rows of one team
and round in one sheet (a team's pairs at two tables, two referees' notes) are added
together: the team's record of the round is their sum, stored once."""

from __future__ import annotations

import polars as pl

from pipeline.intake.sheets.kinds.base import check_team_refs
from schemas import checks as ck


def casts() -> list[pl.Expr]:
    """Text cells to typed columns (a cell that does not cast becomes null: its problem is
    already listed by the model)."""
    return [
        ck.as_int("round").alias("round"),
        ck.normalized("team_no").alias("team_no"),
        *(ck.as_int(c).fill_null(0).alias(c) for c in ("fouls", "warnings", "violations")),
        ck.as_int("table").fill_null(0).alias("table_no"),
    ]


COUNTS = ("fouls", "warnings", "violations")


def check(typed: pl.DataFrame, context, where) -> tuple[pl.DataFrame, list]:
    typed, problems = check_team_refs(typed, context, where)
    rules = context.ruleset
    if rules.team_size > 1 and rules.scoring["fouls_per"] == "pair":
        # a team's pairs sit at different tables and their records never add up (seed
        # 001's limit per pair): a row must say its table, or two pairs' rows would
        for row in where.flagged(typed, pl.col("table_no") == 0, "table"):
            problems.append(where.problem(
                row, "table", None,
                "团体赛每对选手分别计算，须填写桌号（两对的违例不相加） a team event counts "
                "each pair at its table: give the table (桌号), the two pairs' records never "
                "add up"))
    keys = ["round", "team_no", "table_no"]
    summed = typed.group_by(keys, maintain_order=True).agg(
        *(pl.col(c).sum() for c in COUNTS),
        pl.all().exclude(*keys, *COUNTS).first())
    return summed.select(typed.columns), problems
