"""Registration (报名表): team numbers unique and none that reads like another team's."""

from __future__ import annotations

from collections.abc import Iterator

import polars as pl

from pipeline.errors import Problem
from pipeline.sheets.kinds.base import EventContext, Where
from pipeline.sheets.read import ROW
from pipeline.store import MEMBERS
from schemas import checks as ck
from schemas.entries import EntriesSheet

MODEL = EntriesSheet
SLOTS = ("player1", "player2", "player3", "player4")


def casts() -> list[pl.Expr]:
    """Text cells to typed columns (a cell that does not cast becomes null: its problem is
    already listed by the model)."""
    return [
        ck.normalized("team_no").alias("team_no"),
        *(pl.col(c).str.strip_chars() for c in ("team_name", "player1", "player2",
                                                "player3", "player4", "affiliation",
                                                *MEMBERS)),
    ]


def _check_entries(
    typed: pl.DataFrame, context: EventContext, where: Where
) -> tuple[pl.DataFrame, list[Problem]]:
    problems = []
    first_row: dict[str, int] = {}
    for row in typed.iter_rows(named=True):
        team = row["team_no"]
        if team is None:
            if not (row["player1"] or row["team_name"]):
                problems.append(where.problem(row, "player1", None,
                                              "没有队号时须有队员或队名 required: a player or a "
                                              "team name when there is no team number"))
            continue
        if team in first_row:
            problems.append(where.problem(row, "team_no", team,
                                          f"队号重复（另见第 {first_row[team]} 行） "
                                          "duplicate team number"))
        else:
            first_row[team] = row[ROW]
    problems += _confusable(typed, context, where, first_row)
    problems += _one_person_two_teams(typed, where)
    return typed, problems


def _one_person_two_teams(typed: pl.DataFrame, where: Where) -> Iterator[Problem]:
    """A member id given twice (one person in two teams) and one name twice in one team are
    refused. Namesakes never block a registration (issue 39): the same name with the same
    unit in two teams are two people — stored, and flagged for review in the preview."""
    from pipeline.history.identity import member_key, normalize_name, person_key

    seen: dict[tuple, int] = {}
    for row in typed.iter_rows(named=True):
        in_team: dict[str, str] = {}
        for slot, member in zip(SLOTS, MEMBERS, strict=True):
            name = row.get(slot)
            if not name:
                continue
            given = member_key(row.get(member))
            folded = person_key(name)
            if folded in in_team and not (given and given != in_team[folded]):
                yield where.problem(row, slot, name, f"{name} 在同一队出现两次 the same person "
                                                     "twice in one team")
                continue
            in_team[folded] = given
            unit = normalize_name(row.get("affiliation"))
            if given:
                first = seen.setdefault(("member", given), row[ROW])
                if first != row[ROW]:
                    yield where.problem(row, member, given, f"会员号 {given} 已在第 {first} 行 "
                                                            f"member id already on row {first}")
            elif unit:
                first = seen.setdefault(("name", folded, unit), row[ROW])
                if first != row[ROW]:
                    where.warn(row, slot, f"{name} 与第 {first} 行同名同单位，按两人登记，请核对"
                                          f"（是同一人请改正，两人可填会员号区分） a namesake of row "
                                          f"{first} in one unit: registered as two people, "
                                          "flagged for review")


def _confusable(typed: pl.DataFrame, context: EventContext, where: Where,
                first_row: dict[str, int]) -> Iterator[Problem]:
    """Two team numbers that read alike (A1O beside A10) are refused: one would be typed for
    the other on every results sheet."""
    seen: dict[str, set[str]] = {}
    for team in context.teams | set(first_row):
        seen.setdefault(ck.confusable_key(team), set()).add(team)
    for row in typed.filter(pl.col("team_no").is_not_null()).iter_rows(named=True):
        alike = sorted(seen[ck.confusable_key(row["team_no"])] - {row["team_no"]})
        if alike:
            yield where.problem(row, "team_no", row["team_no"],
                                f"队号与 {'、'.join(alike)} 容易混淆（O 与 0、I/L 与 1） the team "
                                f"number is confusable with {', '.join(alike)}")


check = _check_entries
