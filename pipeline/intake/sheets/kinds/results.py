"""Round results (成绩表): one row per table. The cell checks are `schemas.cells`; the checks
that span rows or need the stored event (pairing, stored deals, other tables, the next
round) are here."""

from __future__ import annotations

import polars as pl

from pipeline.base.errors import Problem
from pipeline.base.levels import PASSED_A, format_level
from pipeline.intake.sheets.kinds.base import (
    FILE,
    SHEET,
    EventContext,
    Where,
    resolve_names,
    round_too_far,
    unregistered,
)
from pipeline.intake.sheets.read import ROW
from schemas import checks as ck


def casts() -> list[pl.Expr]:
    """Text cells to typed columns (a cell that does not cast becomes null: its problem is
    already listed by the model)."""
    return [
        ck.as_int("round").alias("round"),
        ck.as_int("table").alias("table_no"),
        ck.normalized("ew_team").alias("ew_team"),
        ck.normalized("ns_team").alias("ns_team"),
        ck.as_level("ew_level").alias("ew_level"),
        ck.as_level("ns_level").alias("ns_level"),
        pl.col("ew_level").is_null().alias("ew_level_empty"),
        pl.col("ns_level").is_null().alias("ns_level_empty"),
        ck.as_int("deals").alias("deals"),
        ck.as_choice("forfeit", ck.FORFEIT_SIDES).alias("forfeit"),
        ck.as_choice("first_to_level", ck.FORFEIT_SIDES).alias("first_to_level"),
        ck.as_choice("last_deal_side", ck.FORFEIT_SIDES).alias("last_deal_side"),
        pl.col("note"),
    ]


def _check_results(
    typed: pl.DataFrame, context: EventContext, where: Where
) -> tuple[pl.DataFrame, list[Problem]]:
    problems: list[Problem] = []
    col = pl.col
    typed = resolve_names(typed, ("ew_team", "ns_team"), context)
    for row in where.flagged(typed, col("round").is_null(), "round"):
        problems.append(where.problem(row, "round", None, "必填：轮次（或 paisai ingest --round N） "
                                                          "required: the round (or --round N)"))
    typed = _tables_from_teams(typed, context)
    for row in where.flagged(typed, col("round").is_not_null() & col("table_no").is_null(),
                             "table"):
        problems.append(where.problem(
            row, "table", None, f"第 {row['round']} 轮编排中 {row['ew_team']} 与 {row['ns_team']} "
            "不同桌，请填桌号 these teams do not meet in the round's pairing: give the table"))
    # teams from the pairing where the sheet leaves them out, and agreement where it gives them
    pairing = context.pairings.rename({"ew_team": "paired_ew", "ns_team": "paired_ns"})
    typed = typed.join(pairing, on=["round", "table_no"], how="left", maintain_order="left")
    keyed = col("round").is_not_null() & col("table_no").is_not_null()
    paired_round = keyed & col("round").is_in(context.pairings["round"].unique().implode())
    for row in where.flagged(typed, paired_round & col("paired_ew").is_null(), "table"):
        problems.append(where.problem(row, "table", row["table_no"],
                                      f"第 {row['round']} 轮编排中没有这个桌号 "
                                      "no such table in the round's pairing"))
    for code, paired in (("ew_team", "paired_ew"), ("ns_team", "paired_ns")):
        for row in where.flagged(typed, paired_round & col("paired_ew").is_not_null()
                                 & col(code).is_not_null() & col(code).ne_missing(col(paired)),
                                 code):
            problems.append(where.problem(
                row, code, row[code],
                f"与编排不符，本桌应为 {row['paired_ew']} 对 {row['paired_ns']} "
                f"does not match the pairing of this table"))
        for row in where.flagged(typed, keyed & ~paired_round & col(code).is_null(), code):
            problems.append(where.problem(row, code, None,
                                          "本轮尚未编排，必须填写队号 required: the round "
                                          "is not paired, so the team must be given"))
    typed = typed.with_columns(
        pl.coalesce("ew_team", "paired_ew").alias("ew_team"),
        pl.coalesce("ns_team", "paired_ns").alias("ns_team"),
    ).drop("paired_ew", "paired_ns")
    for code in ("ew_team", "ns_team"):
        problems += unregistered(typed, code, context, where)
    for row in where.flagged(typed, col("ew_team") == col("ns_team"), "ns_team"):
        problems.append(where.problem(row, "ns_team", row["ns_team"],
                                      "东西和南北是同一队 both sides are the same team"))
    played = col("forfeit").is_null()
    for code in ("ew_level", "ns_level"):
        for row in where.flagged(typed, played & col(f"{code}_empty"), code):
            problems.append(where.problem(row, code, None,
                                          "必填：没有弃权时须填写级数 required: the level "
                                          "(empty only on a forfeited table)"))
    if context.ruleset.scoring["equal_levels"] == "first_to_reach":
        for row in where.flagged(typed, played & (col("ew_level") == col("ns_level"))
                                 & col("first_to_level").is_null(), "first_to_level"):
            problems.append(where.problem(row, "first_to_level", None,
                                          "级数相同时须填写先到方（东西/南北） required: "
                                          "who reached the level first, when levels are equal"))
    if context.ruleset.scoring["equal_levels"] == "last_deal":
        for row in where.flagged(typed, played & (col("ew_level") == col("ns_level"))
                                 & col("last_deal_side").is_null(), "last_deal_side"):
            problems.append(where.problem(row, "last_deal_side", None,
                                          "级数相同时须填写末副上游方（东西/南北） required: "
                                          "the side that won the last deal, when levels are "
                                          "equal"))
    for row in where.flagged(typed, played & (col("ew_level") == PASSED_A)
                             & (col("ns_level") == PASSED_A), "ns_level"):
        problems.append(where.problem(row, "ns_level", "过A",
                                      "双方都过A是不可能的 both sides cannot pass A"))
    gained = col("ew_level") - 2 + col("ns_level") - 2
    guandan = context.ruleset.discipline == "guandan"  # a Tractor deal may gain 5 levels and more
    for row in where.flagged(typed.with_columns(gained.alias("_gained")),
                             played & (col("_gained") > 3 * col("deals")) & guandan, "deals"):
        ew, ns = row["ew_level"], row["ns_level"]
        problems.append(where.problem(
            row, "deals", row["deals"],
            f"{row['deals']} 副牌最多共升 {3 * row['deals']} 级，但两队共升了 {row['_gained']} 级"
            f"（{format_level(ew)} / {format_level(ns)}） levels impossible in "
            f"{row['deals']} deals"))
    problems += _against_stored_deals(typed, context, where)
    problems += round_too_far(typed, context, where)
    problems += _duplicate_tables(typed, where)
    typed = typed.unique(subset=["round", "table_no", "ew_team", "ns_team", "ew_level",
                                 "ns_level", "deals", "forfeit"], keep="first",
                         maintain_order=True)
    problems += _team_twice(typed, context, where)
    return typed, problems


SWAPPED = {"ew_team": "ns_team", "ns_team": "ew_team", "ew_level": "ns_level",
           "ns_level": "ew_level", "ew_level_empty": "ns_level_empty",
           "ns_level_empty": "ew_level_empty"}


def _tables_from_teams(typed: pl.DataFrame, context: EventContext) -> pl.DataFrame:
    """A sheet without table numbers: each row's table is found in the round's pairing from
    its two teams (sides turned to the pairing's where the sheet has them the other way);
    in a round not paired, tables are numbered in sheet order."""
    missing = pl.col("table_no").is_null() & pl.col("round").is_not_null()
    if not typed.select(missing.any()).item():
        return typed
    pairs = context.pairings.filter(pl.col("ns_team").is_not_null())
    lookup = pl.concat([
        pairs.select("round", pl.col("ew_team").alias("_a"), pl.col("ns_team").alias("_b"),
                     pl.col("table_no").alias("_table"), pl.lit(False).alias("_swap")),
        pairs.select("round", pl.col("ns_team").alias("_a"), pl.col("ew_team").alias("_b"),
                     pl.col("table_no").alias("_table"), pl.lit(True).alias("_swap")),
    ])
    typed = typed.join(lookup, left_on=["round", "ew_team", "ns_team"],
                       right_on=["round", "_a", "_b"], how="left", maintain_order="left")
    swap = missing & pl.col("_swap").fill_null(False)
    flip = {"ew": "ns", "ns": "ew"}
    typed = typed.with_columns(
        *(pl.when(swap).then(pl.col(other)).otherwise(pl.col(code)).alias(code)
          for code, other in SWAPPED.items()),
        *(pl.when(swap).then(pl.col(c).replace(flip)).otherwise(pl.col(c)).alias(c)
          for c in ("forfeit", "first_to_level", "last_deal_side")),
        pl.when(missing).then(pl.col("_table")).otherwise(pl.col("table_no")).alias("table_no"),
    ).drop("_table", "_swap")
    paired_rounds = pairs["round"].unique().implode()
    after = context.results.group_by("round").agg(pl.col("table_no").max().alias("_last"))
    numbered = missing & ~pl.col("round").is_in(paired_rounds)
    return typed.join(after, on="round", how="left", maintain_order="left").with_columns(
        pl.when(numbered).then(pl.col("_last").fill_null(0) + numbered.cum_sum().over("round"))
        .otherwise(pl.col("table_no")).alias("table_no")).drop("_last")


def _against_stored_deals(typed: pl.DataFrame, context: EventContext, where: Where):
    """A table replayed deal by deal keeps the levels its deals give."""
    replayed = context.results.filter(pl.col("has_deals")).select(
        "round", "table_no", pl.col("ew_level").alias("replayed_ew"),
        pl.col("ns_level").alias("replayed_ns"))
    joined = typed.join(replayed, on=["round", "table_no"], how="inner", maintain_order="left")
    for row in where.flagged(joined, pl.col("forfeit").is_null()
                             & (pl.col("ew_level").ne_missing(pl.col("replayed_ew"))
                                | pl.col("ns_level").ne_missing(pl.col("replayed_ns"))),
                             "ew_level"):
        yield where.problem(
            row, "ew_level", f"{format_level(row['ew_level'])} / {format_level(row['ns_level'])}",
            f"与逐副记分推算的 {format_level(row['replayed_ew'])} / "
            f"{format_level(row['replayed_ns'])} 不符 "
            "does not match the levels replayed from the deals")


def _duplicate_tables(typed: pl.DataFrame, where: Where) -> list[Problem]:
    problems = []
    seen: dict[tuple, dict] = {}
    values = ("ew_team", "ns_team", "ew_level", "ns_level", "deals", "forfeit")
    repeated = pl.len().over("round", "table_no") > 1
    for row in typed.filter((pl.col("round").is_not_null() & pl.col("table_no").is_not_null()
                             & repeated).fill_null(False)).iter_rows(named=True):
        key = (row["round"], row["table_no"])
        first = seen.setdefault(key, row)
        if first is row:
            continue
        if (first["ew_team"], first["ns_team"]) != (row["ew_team"], row["ns_team"]):
            problems.append(where.problem(
                row, "table", row["table_no"],
                f"第 {key[0]} 轮 {key[1]} 号桌出现两次且队伍不同（另见第 {first[ROW]} 行） "
                f"table number used twice in the round with different teams"))
        elif any(first[v] != row[v] for v in values):
            problems.append(where.problem(
                row, "table", row["table_no"],
                f"同一桌两行成绩不同（另见第 {first[ROW]} 行） the same table twice with "
                "different results"))
    return problems


def _team_twice(typed: pl.DataFrame, context: EventContext, where: Where) -> list[Problem]:
    """A team at two tables of one round, in this file or against stored tables it keeps."""
    incoming = typed.select("round", "table_no", "ew_team", "ns_team", ROW, FILE, SHEET)
    rounds = incoming["round"].drop_nulls().unique().implode()
    kept = context.results.filter(pl.col("round").is_in(rounds)).join(
        incoming.select("round", "table_no"), on=["round", "table_no"], how="anti")
    sides = []
    for code in ("ew_team", "ns_team"):
        sides.append(incoming.select("round", "table_no", pl.col(code).alias("team"), ROW, FILE,
                                     SHEET, pl.lit(code).alias("code")))
        sides.append(kept.select("round", "table_no", pl.col(code).alias("team"),
                                 pl.lit(None, pl.Int64).alias(ROW), pl.lit(None, pl.String)
                                 .alias(FILE), pl.lit(None, pl.String).alias(SHEET),
                                 pl.lit(code).alias("code")))
    seats = pl.concat(sides).drop_nulls(["round", "team", "table_no"])
    # a team seated once in its round clashes with nothing: only the others are looked at
    seats = seats.filter(pl.len().over("round", "team") > 1)
    if seats.is_empty():
        return []
    opponents = pl.concat([
        frame.select("round", "table_no", pl.col(a).alias("team"), pl.col(b).alias("opponent"))
        for frame in (incoming, kept) for a, b in (("ew_team", "ns_team"), ("ns_team", "ew_team"))
    ]).unique()
    seats = seats.join(opponents, on=["round", "table_no", "team"], how="left")
    size = context.ruleset.team_size
    clashes = seats.filter((pl.col("table_no").n_unique().over("round", "team") > size)
                           | (pl.col("opponent").n_unique().over("round", "team") > 1))
    shown = 5  # the other tables named in a message (a team on every row has thousands)
    tables = clashes.group_by("round", "team").agg(
        pl.col("table_no").unique().sort().head(shown + 1).alias("_tables"),
        pl.col("table_no").n_unique().alias("_n_tables"))
    named = clashes.join(tables, on=["round", "team"])
    problems = []
    for row in (row for code in ("ew_team", "ns_team") for row in where.flagged(
            named, pl.col(ROW).is_not_null() & (pl.col("code") == code), code)):
        others = [str(t) for t in row["_tables"] if t != row["table_no"]][:shown]
        if row["_n_tables"] - 1 > len(others):
            others.append(f"…共 {row['_n_tables']} 桌 {row['_n_tables']} tables")
        problems.append(where.problem(
            row, row["code"], row["team"],
            f"该队在第 {row['round']} 轮出现两次（另在 {','.join(others)} 号桌） "
            f"team plays twice in the round"))
    return problems


check = _check_results
