"""Validation: raw sheets → typed frames, or every problem of the file at once.

Cell checks come from the pandera schemas in `schemas/`; checks spanning rows or needing the
event's stored data (registered teams, the round's pairing, other tables of the round) are
polars expressions here. Each problem names file, sheet, spreadsheet row, column as written.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pandera.polars as pa
import polars as pl

from pipeline.errors import Problem
from pipeline.levels import PASSED_A, format_level
from pipeline.sheets.headers import ALIASES
from pipeline.sheets.read import ROW, RawSheet
from schemas import SCHEMAS
from schemas import checks as ck

SHEET = "_sheet"
FILE = "_file"


@dataclass(frozen=True)
class EventContext:
    """What validation needs to know of the event as stored."""

    teams: frozenset[str]
    pairings: pl.DataFrame  # round, table_no, ew_team, ns_team (byes excluded)
    results: pl.DataFrame  # round, table_no, ew_team, ns_team


@dataclass
class Checked:
    """Typed rows of one kind from one file, with the problems found."""

    kind: str
    frame: pl.DataFrame
    problems: list[Problem]


class _Where:
    """Turns a row of a typed frame and a code name into a Problem as the user sees it."""

    def __init__(self, sheets: list[RawSheet]):
        self.written = {s.sheet: s.written for s in sheets}
        self.kind = sheets[0].kind

    def column(self, sheet: str, code: str) -> str:
        written = self.written.get(sheet, {})
        return written.get(code) or ALIASES[self.kind][code][0]

    def problem(self, row: dict, code: str, value: object, message: str) -> Problem:
        shown = "" if value is None else str(value)
        return Problem(row[FILE], row[SHEET], row[ROW], self.column(row[SHEET], code), shown,
                       message)


def _schema_problems(sheet: RawSheet, frame: pl.DataFrame) -> list[Problem]:
    schema = SCHEMAS[sheet.kind]
    try:
        schema.validate(frame, lazy=True)
    except pa.errors.SchemaErrors as exc:
        failures = exc.failure_cases
    else:
        return []
    problems = []
    for case in failures.iter_rows(named=True):
        index = case["index"]
        row = int(frame[ROW][index]) if index is not None else None
        code = case["column"] or ""
        written = sheet.written.get(code) or (ALIASES[sheet.kind][code][0] if code in
                                              ALIASES[sheet.kind] else code)
        message = ck.MESSAGES.get(case["check"], str(case["check"]))
        problems.append(Problem(sheet.file, sheet.sheet, row, written,
                                case["failure_case"] or "", message))
    return problems


def _complete(sheet: RawSheet) -> pl.DataFrame:
    """Every column of the kind present (absent optional ones empty)."""
    missing = [c for c in ALIASES[sheet.kind] if c not in sheet.frame.columns]
    return sheet.frame.with_columns(pl.lit(None, pl.String).alias(c) for c in missing)


CASTS = {
    "results": lambda: [
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
        pl.col("note"),
    ],
    "entries": lambda: [
        ck.normalized("team_no").alias("team_no"),
        *(pl.col(c).str.strip_chars() for c in ("team_name", "player1", "player2",
                                                "affiliation")),
    ],
    "penalties": lambda: [
        ck.as_int("round").alias("round"),
        ck.normalized("team_no").alias("team_no"),
        ck.as_choice("target", ck.PENALTY_TARGETS).alias("target"),
        ck.as_int("amount").alias("amount"),
        pl.col("reason").fill_null("").str.strip_chars(),
    ],
    "quiz": lambda: [
        ck.normalized("team_no").alias("team_no"),
        ck.as_float("quiz_score").alias("quiz_score"),
        ck.as_float("quiz_seconds").alias("quiz_seconds"),
    ],
}


def _typed(sheet: RawSheet, frame: pl.DataFrame) -> pl.DataFrame:
    """Cast text cells; a cell that does not cast becomes null (its problem is already listed)."""
    return frame.select(*CASTS[sheet.kind](), pl.col(ROW)).with_columns(
        pl.lit(sheet.file).alias(FILE), pl.lit(sheet.sheet).alias(SHEET)
    )


def check_sheets(sheets: list[RawSheet], context: EventContext) -> Checked:
    """Validate all sheets of one kind from one file together."""
    kind = sheets[0].kind
    problems: list[Problem] = []
    typed_frames = []
    for sheet in sheets:
        frame = _complete(sheet)
        problems += _schema_problems(sheet, frame)
        typed_frames.append(_typed(sheet, frame))
    typed = pl.concat(typed_frames, how="vertical_relaxed")
    where = _Where(sheets)
    cross = CROSS_CHECKS[kind]
    typed, more = cross(typed, context, where)
    problems += more
    problems.sort(key=lambda p: (p.sheet, p.row or 0, p.column))
    return Checked(kind, typed, problems)


def _unregistered(rows: Iterable[dict], code: str, context: EventContext, where: _Where):
    for row in rows:
        team = row[code]
        if team is not None and team not in context.teams:
            yield where.problem(row, code, team, "队号未报名 team is not registered")


def _check_results(
    typed: pl.DataFrame, context: EventContext, where: _Where
) -> tuple[pl.DataFrame, list[Problem]]:
    problems: list[Problem] = []
    # teams from the pairing where the sheet leaves them out, and agreement where it gives them
    pairing = context.pairings.rename({"ew_team": "paired_ew", "ns_team": "paired_ns"})
    paired_rounds = set(context.pairings["round"].to_list())
    typed = typed.join(pairing, on=["round", "table_no"], how="left")
    for row in typed.iter_rows(named=True):
        if row["round"] is None or row["table_no"] is None:
            continue
        if row["round"] in paired_rounds:
            if row["paired_ew"] is None:
                problems.append(where.problem(row, "table", row["table_no"],
                                              f"第 {row['round']} 轮编排中没有这个桌号 "
                                              "no such table in the round's pairing"))
                continue
            for code, paired in (("ew_team", row["paired_ew"]), ("ns_team", row["paired_ns"])):
                if row[code] is not None and row[code] != paired:
                    problems.append(where.problem(
                        row, code, row[code],
                        f"与编排不符，本桌应为 {row['paired_ew']} 对 {row['paired_ns']} "
                        f"does not match the pairing of this table"))
        else:
            for code in ("ew_team", "ns_team"):
                if row[code] is None:
                    problems.append(where.problem(row, code, None,
                                                  "本轮尚未编排，必须填写队号 required: the round "
                                                  "is not paired, so the team must be given"))
    typed = typed.with_columns(
        pl.coalesce("ew_team", "paired_ew").alias("ew_team"),
        pl.coalesce("ns_team", "paired_ns").alias("ns_team"),
    ).drop("paired_ew", "paired_ns")
    rows = list(typed.iter_rows(named=True))
    problems += _unregistered(rows, "ew_team", context, where)
    problems += _unregistered(rows, "ns_team", context, where)
    for row in rows:
        if row["ew_team"] is not None and row["ew_team"] == row["ns_team"]:
            problems.append(where.problem(row, "ns_team", row["ns_team"],
                                          "东西和南北是同一队 both sides are the same team"))
        if row["forfeit"] is None:
            for code in ("ew_level", "ns_level"):
                if row[f"{code}_empty"]:
                    problems.append(where.problem(row, code, None,
                                                  "必填：没有弃权时须填写级数 required: the level "
                                                  "(empty only on a forfeited table)"))
            ew, ns = row["ew_level"], row["ns_level"]
            if ew == PASSED_A and ns == PASSED_A:
                problems.append(where.problem(row, "ns_level", "过A",
                                              "双方都过A是不可能的 both sides cannot pass A"))
            if ew is not None and ns is not None and row["deals"] is not None:
                gained = (ew - 2) + (ns - 2)
                if gained > 3 * row["deals"]:
                    problems.append(where.problem(
                        row, "deals", row["deals"],
                        f"{row['deals']} 副牌最多共升 {3 * row['deals']} 级，但两队共升了 {gained} 级"
                        f"（{format_level(ew)} / {format_level(ns)}） levels impossible in "
                        f"{row['deals']} deals"))
    problems += _duplicate_tables(rows, where)
    typed = typed.unique(subset=["round", "table_no", "ew_team", "ns_team", "ew_level",
                                 "ns_level", "deals", "forfeit"], keep="first",
                         maintain_order=True)
    problems += _team_twice(typed, context, where)
    return typed, problems


def _duplicate_tables(rows: list[dict], where: _Where) -> list[Problem]:
    problems = []
    seen: dict[tuple, dict] = {}
    values = ("ew_team", "ns_team", "ew_level", "ns_level", "deals", "forfeit")
    for row in rows:
        key = (row["round"], row["table_no"])
        if None in key:
            continue
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


def _team_twice(typed: pl.DataFrame, context: EventContext, where: _Where) -> list[Problem]:
    """A team at two tables of one round, in this file or against stored tables it keeps."""
    incoming = typed.select("round", "table_no", "ew_team", "ns_team", ROW, FILE, SHEET)
    kept = context.results.join(incoming.select("round", "table_no"), on=["round", "table_no"],
                                how="anti")
    sides = []
    for code in ("ew_team", "ns_team"):
        sides.append(incoming.select("round", "table_no", pl.col(code).alias("team"), ROW, FILE,
                                     SHEET, pl.lit(code).alias("code")))
        sides.append(kept.select("round", "table_no", pl.col(code).alias("team"),
                                 pl.lit(None, pl.Int64).alias(ROW), pl.lit(None, pl.String)
                                 .alias(FILE), pl.lit(None, pl.String).alias(SHEET),
                                 pl.lit(code).alias("code")))
    seats = pl.concat(sides).drop_nulls(["round", "team", "table_no"])
    clashes = seats.filter(pl.col("table_no").n_unique().over("round", "team") > 1)
    problems = []
    for row in clashes.filter(pl.col(ROW).is_not_null()).iter_rows(named=True):
        others = sorted(set(clashes.filter((pl.col("round") == row["round"])
                                           & (pl.col("team") == row["team"])
                                           & (pl.col("table_no") != row["table_no"]))
                            ["table_no"].to_list()))
        problems.append(where.problem(
            row, row["code"], row["team"],
            f"该队在第 {row['round']} 轮出现两次（另在 {','.join(map(str, others))} 号桌） "
            f"team plays twice in the round"))
    return problems


def _check_entries(
    typed: pl.DataFrame, context: EventContext, where: _Where
) -> tuple[pl.DataFrame, list[Problem]]:
    problems = []
    first_row: dict[str, int] = {}
    for row in typed.iter_rows(named=True):
        team = row["team_no"]
        if team is None:
            continue
        if team in first_row:
            problems.append(where.problem(row, "team_no", team,
                                          f"队号重复（另见第 {first_row[team]} 行） "
                                          "duplicate team number"))
        else:
            first_row[team] = row[ROW]
    return typed, problems


def _check_team_refs(
    typed: pl.DataFrame, context: EventContext, where: _Where
) -> tuple[pl.DataFrame, list[Problem]]:
    return typed, list(_unregistered(typed.iter_rows(named=True), "team_no", context, where))


CROSS_CHECKS = {
    "results": _check_results,
    "entries": _check_entries,
    "penalties": _check_team_refs,
    "quiz": _check_team_refs,
}
