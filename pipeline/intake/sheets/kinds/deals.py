"""Deal by deal (逐副记分): the deals of each table replayed (docs/rules/general.md §2); the levels they give go
with every deal row."""

from __future__ import annotations

import polars as pl

from pipeline.base.errors import Problem
from pipeline.base.levels import format_level
from pipeline.intake.sheets.kinds.base import EventContext, Where, round_too_far, unregistered
from pipeline.ranking.deals import Deal, RoundState, play, refusal, result
from schemas import checks as ck


def casts() -> list[pl.Expr]:
    """Text cells to typed columns (a cell that does not cast becomes null: its problem is
    already listed by the model)."""
    return [
        ck.as_int("round").alias("round"),
        ck.as_int("table").alias("table_no"),
        ck.as_int("deal").alias("deal"),
        ck.as_choice("winner_side", ck.FORFEIT_SIDES).alias("winner_side"),
        ck.as_choice("partner_finish", ck.PARTNER_FINISH).cast(pl.Int64).alias("partner_finish"),
        ck.normalized("ew_team").alias("ew_team"),
        ck.normalized("ns_team").alias("ns_team"),
    ]


def _check_deals(
    typed: pl.DataFrame, context: EventContext, where: Where
) -> tuple[pl.DataFrame, list[Problem]]:
    """Replay each table's deals (docs/rules/general.md §2); the derived levels go with every deal row."""
    problems: list[Problem] = []
    rules = context.ruleset.deals
    paired = {(r["round"], r["table_no"]): (r["ew_team"], r["ns_team"])
              for r in context.pairings.iter_rows(named=True)}
    stored = {(r["round"], r["table_no"]): r for r in context.results.iter_rows(named=True)}
    derived = []
    complete = typed.drop_nulls(["round", "table_no", "deal", "winner_side", "partner_finish"])
    for (round_no, table_no), group in complete.sort("deal").group_by(
            ["round", "table_no"], maintain_order=True):
        rows = list(group.iter_rows(named=True))
        numbers = [r["deal"] for r in rows]
        if numbers != list(range(1, len(rows) + 1)):
            problems.append(where.problem(rows[-1], "deal", ",".join(map(str, numbers)),
                                          "副次应从 1 起连续且不重复 deals must be numbered "
                                          "1, 2, 3 … without gaps or repeats"))
            continue
        state = RoundState()
        failed = False
        for r in rows:
            why = refusal(state, rules["max_deals"])
            if why:
                problems.append(where.problem(r, "deal", r["deal"], why))
                failed = True
                break
            play(state, Deal(r["winner_side"], r["partner_finish"]), rules["a_fail_limit"])
        if failed:
            continue
        teams = paired.get((round_no, table_no))
        given = (rows[0]["ew_team"], rows[0]["ns_team"])
        if teams is None:
            if None in given:
                problems.append(where.problem(rows[0], "ew_team", None,
                                              "本轮尚未编排，必须填写队号 required: the round is "
                                              "not paired, so the teams must be given"))
                continue
            teams = given
        elif None not in given and given != teams:
            problems.append(where.problem(rows[0], "ew_team", f"{given[0]} / {given[1]}",
                                          f"与编排不符，本桌应为 {teams[0]} 对 {teams[1]} "
                                          "does not match the pairing of this table"))
            continue
        table = result(state)
        levels = (table.ew_level, table.ns_level)
        before = stored.get((round_no, table_no))
        if (before is not None and before["ew_level"] is not None
                and (before["ew_level"], before["ns_level"]) != levels):
            problems.append(where.problem(
                rows[-1], "deal", rows[-1]["deal"],
                f"逐副推算为 {format_level(levels[0])} / {format_level(levels[1])}，与已报的 "
                f"{format_level(before['ew_level'])} / {format_level(before['ns_level'])} 不符 "
                "the deals give other levels than the table's reported result"))
            continue
        derived.append({"round": round_no, "table_no": table_no, "ew_team": teams[0],
                        "ns_team": teams[1], "table_ew_level": table.ew_level,
                        "table_ns_level": table.ns_level, "table_deals": table.deals,
                        "table_first_to_level": table.first_to_level,
                        "table_last_deal_side": table.last_deal_side})
    first_rows = typed.unique(["round", "table_no"], keep="first", maintain_order=True)
    problems += round_too_far(first_rows, context, where)
    problems += unregistered(first_rows, "ew_team", context, where)
    problems += unregistered(first_rows, "ns_team", context, where)
    derived_frame = pl.DataFrame(derived, schema={
        "round": pl.Int64, "table_no": pl.Int64, "ew_team": pl.String, "ns_team": pl.String,
        "table_ew_level": pl.Int64, "table_ns_level": pl.Int64, "table_deals": pl.Int64,
        "table_first_to_level": pl.String, "table_last_deal_side": pl.String})
    typed = typed.drop("ew_team", "ns_team").join(derived_frame, on=["round", "table_no"],
                                                  how="inner")
    return typed, problems


check = _check_deals
