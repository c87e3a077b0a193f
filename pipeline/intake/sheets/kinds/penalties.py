"""Penalties (罚分表): a deduction from one total of one team in one round."""

from __future__ import annotations

import polars as pl

from pipeline.base.errors import Problem
from pipeline.intake.sheets.kinds.base import EventContext, Where, unregistered
from schemas import checks as ck


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


# the ranking keys each penalty target changes
AFFECTS = {
    "match_points": {"match_points", "buchholz", "buchholz_cut1", "median_buchholz",
                     "sonneborn_berger", "progressive"},
    "level_diff_score": {"level_diff_score", "opponents_level_diff"},
    "levels": {"levels", "level_points", "levels_gained"},
}
# head-to-head reads the total its games count
HEAD_TO_HEAD = {"match_points": "match_points", "level_points": "levels"}
TARGET_WORDS = {"match_points": "积分 match_points", "level_diff_score": "级差分 level_diff_score",
                "levels": "升级数/牌级积分 levels"}


def check(typed: pl.DataFrame, context: EventContext, where: Where
          ) -> tuple[pl.DataFrame, list[Problem]]:
    """Registered teams, and a target the event's ranking reads: a deduction from a total
    no ranking key uses would change nothing (hengquan ranks by level points, not 积分)."""
    problems = list(unregistered(typed, "team_no", context, where))
    keys = set(context.ruleset.ranking["keys"])
    useful = [t for t, affected in AFFECTS.items() if affected & keys]
    counted = HEAD_TO_HEAD.get(context.ruleset.ranking["head_to_head"]["counts"])
    if "head_to_head" in keys and counted and counted not in useful:
        useful.append(counted)
    for row in where.flagged(typed, ~pl.col("target").is_in(useful), "target"):
        problems.append(where.problem(
            row, "target", row["target"],
            f"本赛事的排名不看 {TARGET_WORDS.get(row['target'], row['target'])}，这项罚分不会改变"
            f"名次；请改为 {'、'.join(TARGET_WORDS[t] for t in useful) or '（无）'} the ranking of "
            f"this event does not use {row['target']}: the penalty would change nothing"))
    return typed, problems
