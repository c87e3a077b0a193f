"""Results as other tools and halls write them, turned into the results layout (one row per
table, East-West and North-South) before validation:

- one row per table by side: `队伍A, 队伍B, 结果A, 级数A, 结果B, 级数B` (or 甲方/乙方 …), results
  胜/负/平, W/L/D or 1/0; a result that contradicts the levels is an error;
- one row per team per round: `轮次, 队号, 对手, 本方级数, 对方级数`, paired up into tables, the
  two halves of a table checked against each other.

Problems name the row and the column as the sheet wrote them.
"""

from __future__ import annotations

import polars as pl

from pipeline.base.errors import Problem
from pipeline.base.levels import parse_level
from pipeline.intake.sheets.read import ROW, RawSheet

RESULT_WORDS = {"胜": "win", "赢": "win", "W": "win", "WIN": "win", "1": "win",
                "负": "loss", "输": "loss", "L": "loss", "LOSS": "loss", "0": "loss",
                "平": "draw", "和": "draw", "D": "draw", "DRAW": "draw", "0.5": "draw"}
OPPOSITE = {"win": "loss", "loss": "win", "draw": "draw"}
LAYOUTS = {"results_sides", "results_by_team"}


def _result(text: str | None) -> str | None:
    if text is None:
        return None
    folded = text.strip().upper()
    return RESULT_WORDS.get(folded, "?")


def _sheet(sheet: RawSheet, rows: list[dict], written: dict[str, str]) -> RawSheet:
    codes = ["round", "table", "ew_team", "ns_team", "ew_level", "ns_level", "first_to_level",
             "last_deal_side"]
    codes = [c for c in codes if c not in ("round", "table") or c in sheet.frame.columns]
    frame = pl.DataFrame({**{c: [r.get(c) for r in rows] for c in codes},
                          ROW: [r[ROW] for r in rows]},
                         schema={**dict.fromkeys(codes, pl.String), ROW: pl.Int64})
    return RawSheet(sheet.file, sheet.sheet, "results", sheet.header_row,
                    {c: w for c, w in written.items() if w}, frame)


def _problem(sheet: RawSheet, row: dict, code: str, value: object, message: str) -> Problem:
    return Problem(sheet.file, sheet.sheet, row[ROW], sheet.written.get(code, code),
                   "" if value is None else str(value), message)


def from_sides(sheet: RawSheet) -> tuple[RawSheet, list[Problem]]:
    """One row per table with per-side columns → results rows (side A East-West)."""
    problems: list[Problem] = []
    out = []
    for row in sheet.frame.iter_rows(named=True):
        a, b = _result(row.get("result_a")), _result(row.get("result_b"))
        for code, found in (("result_a", a), ("result_b", b)):
            if found == "?":
                problems.append(_problem(sheet, row, code, row[code],
                                         "结果应为 胜/负/平（W/L/D，1/0） expected a result: "
                                         "win, loss or draw"))
        if "?" in (a, b):
            continue
        if a and b and OPPOSITE[a] != b:
            problems.append(_problem(sheet, row, "result_b", row["result_b"],
                                     "两方结果矛盾 the two sides' results contradict each other"))
            continue
        outcome = a or (OPPOSITE[b] if b else None)
        level_a, level_b = parse_level(row.get("level_a")), parse_level(row.get("level_b"))
        first = None
        if outcome and level_a is not None and level_b is not None:
            by_levels = "win" if level_a > level_b else "loss" if level_a < level_b else None
            if by_levels and by_levels != outcome:
                problems.append(_problem(
                    sheet, row, "result_a" if a else "result_b", row["result_a"] if a else
                    row["result_b"], "结果与级数不符 the result contradicts the levels"))
                continue
            if by_levels is None and outcome != "draw":
                first = "ew" if outcome == "win" else "ns"  # equal levels: who won them
        out.append({"round": row.get("round"), "table": row.get("table"),
                    "ew_team": row.get("team_a"), "ns_team": row.get("team_b"),
                    "ew_level": row.get("level_a"), "ns_level": row.get("level_b"),
                    "first_to_level": first, "last_deal_side": first, ROW: row[ROW]})
    written = {"round": sheet.written.get("round"), "table": sheet.written.get("table"),
               "ew_team": sheet.written.get("team_a"), "ns_team": sheet.written.get("team_b"),
               "ew_level": sheet.written.get("level_a"), "ns_level": sheet.written.get("level_b"),
               "first_to_level": sheet.written.get("result_a"),
               "last_deal_side": sheet.written.get("result_a")}
    return _sheet(sheet, out, written), problems


def from_team_rows(sheet: RawSheet) -> tuple[RawSheet, list[Problem]]:
    """One row per team per round → one results row per table; the two halves must agree."""
    problems: list[Problem] = []
    tables: dict[tuple, list[dict]] = {}
    for row in sheet.frame.iter_rows(named=True):
        team, opponent = (row.get("team") or "").upper(), (row.get("opponent") or "").upper()
        key = (row.get("round"), frozenset((team, opponent)))
        tables.setdefault(key, []).append(row)
    out = []
    for rows in tables.values():
        first = rows[0]
        if len(rows) > 2:
            for extra in rows[2:]:
                problems.append(_problem(sheet, extra, "team", extra["team"],
                                         f"这两队本轮已有两行（第 {first[ROW]}、{rows[1][ROW]} 行） "
                                         "the two teams already have two rows this round"))
            continue
        if len(rows) == 2:
            second = rows[1]
            own = (parse_level(first.get("own_level")), parse_level(first.get("opponent_level")))
            other = (parse_level(second.get("opponent_level")),
                     parse_level(second.get("own_level")))
            if own != other:
                problems.append(_problem(
                    sheet, second, "own_level", second.get("own_level"),
                    f"与第 {first[ROW]} 行（同一桌的另一方）不符 does not match row {first[ROW]}, "
                    "the other half of the same table"))
                continue
        results = [(r, _result(r.get("result"))) for r in rows if r.get("result")]
        if any(found == "?" for _, found in results):
            bad = next(r for r, found in results if found == "?")
            problems.append(_problem(sheet, bad, "result", bad["result"],
                                     "结果应为 胜/负/平（W/L/D，1/0） expected win, loss or draw"))
            continue
        seen = {found if r is first else OPPOSITE[found] for r, found in results}
        if len(seen) > 1:  # each half's result, as seen from the first row's team
            problems.append(_problem(sheet, rows[1], "result", rows[1].get("result"),
                                     f"与第 {first[ROW]} 行的结果矛盾 contradicts the result "
                                     f"of row {first[ROW]}"))
            continue
        outcome = next(iter(seen), None)
        own, opp = parse_level(first.get("own_level")), parse_level(first.get("opponent_level"))
        side = None
        if outcome and own is not None and opp is not None:
            by_levels = "win" if own > opp else "loss" if own < opp else None
            if by_levels and by_levels != outcome:
                problems.append(_problem(sheet, first, "result", first.get("result"),
                                         "结果与级数不符 the result contradicts the levels"))
                continue
            if by_levels is None and outcome != "draw":
                side = "ew" if outcome == "win" else "ns"
        out.append({"round": first.get("round"), "table": first.get("table"),
                    "ew_team": first.get("team"), "ns_team": first.get("opponent"),
                    "ew_level": first.get("own_level"), "ns_level": first.get("opponent_level"),
                    "first_to_level": side, "last_deal_side": side, ROW: first[ROW]})
    written = {"round": sheet.written.get("round"), "table": sheet.written.get("table"),
               "ew_team": sheet.written.get("team"), "ns_team": sheet.written.get("opponent"),
               "ew_level": sheet.written.get("own_level"),
               "ns_level": sheet.written.get("opponent_level"),
               "first_to_level": sheet.written.get("result"),
               "last_deal_side": sheet.written.get("result")}
    return _sheet(sheet, out, written), problems


def with_round(sheet: RawSheet, round_no: int | None) -> RawSheet:
    """`paisai ingest --round N`: the round of a results sheet that has no round column."""
    if round_no is None or sheet.kind != "results" or "round" in sheet.frame.columns:
        return sheet
    frame = sheet.frame.with_columns(pl.lit(str(round_no)).alias("round"))
    return RawSheet(sheet.file, sheet.sheet, sheet.kind, sheet.header_row,
                    {**sheet.written, "round": "--round"}, frame)


def normalise(sheets: list[RawSheet], round_no: int | None) -> tuple[list[RawSheet],
                                                                       list[Problem]]:
    """Every results layout as the results layout, with the round given on the command line."""
    out, problems = [], []
    for sheet in sheets:
        if sheet.kind == "results_sides":
            sheet, found = from_sides(sheet)
            problems += found
        elif sheet.kind == "results_by_team":
            sheet, found = from_team_rows(sheet)
            problems += found
        out.append(with_round(sheet, round_no))
    return out, problems
