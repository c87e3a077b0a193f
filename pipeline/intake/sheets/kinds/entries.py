"""Registration (报名表): team numbers unique and none that reads like another team's."""

from __future__ import annotations

from collections.abc import Iterator

import polars as pl

from pipeline.base.errors import Problem
from pipeline.base.store import MEMBERS
from pipeline.intake.sheets.kinds.base import EventContext, Where
from pipeline.intake.sheets.read import ROW
from schemas import checks as ck

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
    _alike_units(typed, context, where)
    _member_names(typed, context, where)
    return typed, problems


def _member_names(typed: pl.DataFrame, context: EventContext, where: Where) -> None:
    """A member id given for a name other than the one it was registered with (李四 given
    张三's id) is flagged with both names: the id would hold both men's games."""
    from pipeline.base.names import member_key, person_key

    known = context.member_names or {}
    if not known:
        return
    for row in typed.iter_rows(named=True):
        for slot, member in zip(SLOTS, MEMBERS, strict=True):
            given, name = member_key(row.get(member)), row.get(slot)
            registered = known.get(given) if given else None
            if registered and name and person_key(registered) != person_key(name):
                where.warn(row, member, f"会员号 {given} 登记的是“{registered}”，这里写的是“{name}”："
                                        f"请核对 member id {given} is {registered}'s, given "
                                        f"here for {name}")


# what tells numbered siblings apart (炼油运行一部/二部/三部, 1队/2队, 甲队/乙队, A组/B组):
# units that differ only in these are different units, not one misspelt (issue 51)
SIBLING_MARKS = set("0123456789０１２３４５６７８９一二三四五六七八九十百零〇两壹贰叁肆伍陆柒捌玖拾"
                    "甲乙丙丁戊己庚辛壬癸ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                    "东南西北上下前后左右")


def siblings(a: str, b: str) -> bool:
    """Two names that differ only where numbered siblings differ: their number.

    >>> siblings("炼油运行一部", "炼油运行二部"), siblings("一车间1队", "一车间2队")
    (True, True)
    >>> siblings("甲队", "乙队"), siblings("昆山海官", "昆山海关"), siblings("十一部", "十二部")
    (True, False, True)
    """
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    left, right = a[start:len(a) - end], b[start:len(b) - end]
    return bool(left and right) and set(left + right) <= SIBLING_MARKS


def near(a: str, b: str) -> bool:
    """Two spellings within one character of each other (two in a name of six or more):
    昆山海官 beside 昆山海关 — but not numbered siblings (一部 beside 二部, 1队 beside 2队).

    >>> near("昆山海官", "昆山海关"), near("恒通", "华信"), near("苏州恒格关务", "苏州恒隔关物")
    (True, False, True)
    >>> near("炼油运行一部", "炼油运行三部"), near("机关甲队", "机关乙队")
    (False, False)
    """
    if a == b or min(len(a), len(b)) < 3 or abs(len(a) - len(b)) > 2 or siblings(a, b):
        return False
    return distance(a, b) <= (2 if min(len(a), len(b)) >= 6 else 1)


def distance(a: str, b: str) -> int:
    """The characters to add, drop or change to make one spelling the other.

    >>> distance("炼油运行二布", "炼油运行二部"), distance("炼油运行二布", "炼油运行一部")
    (1, 2)
    """
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        current = [i]
        for j, y in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def _alike_units(typed: pl.DataFrame, context: EventContext, where: Where) -> None:
    """A unit spelled within a character or two of another is flagged for review ("是否同一
    单位？"), once per pair: kept apart as written until the organizer folds one into the
    other (`paisai units --event E --fold 写错的=正确的`, or the console's button)."""
    from itertools import combinations

    from pipeline.base.names import normalize_name

    def keys(text: str) -> set[str]:  # deletion neighbourhood: near spellings share a key
        drop = 2 if len(text) >= 6 else 1
        return {"".join(c for i, c in enumerate(text) if i not in gone)
                for n in range(drop + 1) for gone in combinations(range(len(text)), n)}

    by_key: dict[str, set[str]] = {}
    spelled: dict[str, str] = {}
    first_rows = typed.filter(pl.col("affiliation").is_not_null()).unique(
        "affiliation", keep="first", maintain_order=True)
    new = [(normalize_name(r["affiliation"]), r) for r in first_rows.iter_rows(named=True)]
    for folded, unit in [(normalize_name(u), u) for u in context.units if u] + \
            [(f, r["affiliation"]) for f, r in new]:
        spelled.setdefault(folded, unit)
        for key in keys(folded) if len(folded) >= 3 else ():
            by_key.setdefault(key, set()).add(folded)
    def alike(text: str) -> dict[str, int]:
        return {o: distance(text, o) for key in keys(text) if len(text) >= 3
                for o in by_key.get(key, ()) if o != text and near(text, o)}

    # a pair is asked about when each is the other's nearest (炼油运行二布 beside 二部, not
    # beside 一部 and 三部 too)
    nearest: dict[str, int] = {}
    said: set[frozenset] = set()
    for folded, row in new:
        candidates = alike(folded)
        for other in sorted(candidates):
            pair = frozenset((folded, other))
            for side in (folded, other):
                if side not in nearest:
                    nearest[side] = min(alike(side).values())
            if pair in said or candidates[other] > min(nearest[folded], nearest[other]):
                continue
            said.add(pair)
            unit, shown = row["affiliation"], spelled[other]
            where.warn(row, "affiliation", f"单位“{unit}”与“{shown}”只差一两个字：是否同一单位？"
                                           f"（是则合并 fold: {unit}={shown}） the unit is "
                                           f"spelled within a character of {shown}: the same "
                                           "unit?")


def _one_person_two_teams(typed: pl.DataFrame, where: Where) -> Iterator[Problem]:
    """A member id given twice (one person in two teams) and one name twice in one team are
    refused. Namesakes never block a registration (issue 39): the same name with the same
    unit in two teams are two people — stored, and flagged for review in the preview."""
    from pipeline.base.names import member_key, normalize_name, person_key

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
