"""Validation: raw sheets → typed frames, or every problem of the file at once.

Cell checks come from the pandera schemas in `schemas/`; checks spanning rows or needing the
event's stored data (registered teams, the round's pairing, other tables of the round) are
polars expressions here. Each problem names file, sheet, spreadsheet row, column as written.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import polars as pl

from pipeline.deals import Deal, RoundState, play
from pipeline.errors import REPORT_LIMIT, Problem
from pipeline.levels import PASSED_A, format_level
from pipeline.ruleset import Ruleset
from pipeline.sheets.headers import ALIASES
from pipeline.sheets.read import ROW, RawSheet
from pipeline.tractor import sheets as tractor_sheets
from schemas import SCHEMAS
from schemas import checks as ck
from schemas._pandera import pa

SHEET = "_sheet"
FILE = "_file"


@dataclass(frozen=True)
class EventContext:
    """What validation needs to know of the event as stored."""

    teams: frozenset[str]
    pairings: pl.DataFrame  # round, table_no, ew_team, ns_team (byes excluded)
    results: pl.DataFrame  # round, table_no, ew_team, ns_team, ew_level, ns_level, has_deals
    ruleset: Ruleset
    tractor: object = None  # pipeline.tractor.sheets.TractorContext for Tractor events
    any_round: bool = False  # --force: results for a round beyond the next one are taken


@dataclass
class Checked:
    """Typed rows of one kind from one file, with the problems found."""

    kind: str
    frame: pl.DataFrame
    problems: list[Problem]
    more: dict[str, int]  # failures not built, by column as written (beyond REPORT_LIMIT)


class _Where:
    """Turns a row of a typed frame and a code name into a Problem as the user sees it, and
    counts the failures beyond the report's limit by column instead of building them."""

    def __init__(self, sheets: list[RawSheet]):
        self.written = {s.sheet: s.written for s in sheets}
        self.kind = sheets[0].kind
        self.more: dict[str, int] = {}

    def flagged(self, frame: pl.DataFrame, mask: pl.Expr, code: str) -> Iterator[dict]:
        """The rows where a check on column `code` fails (the checks run column-wise; only
        failures are visited, and only the first REPORT_LIMIT of them)."""
        failing = frame.filter(mask.fill_null(False))
        if failing.height > REPORT_LIMIT:
            self.count_more(code, failing.height - REPORT_LIMIT)
            failing = failing.head(REPORT_LIMIT)
        return failing.iter_rows(named=True)

    def count_more(self, code: str, n: int) -> None:
        column = self.column(next(iter(self.written), ""), code)
        self.more[column] = self.more.get(column, 0) + n

    def column(self, sheet: str, code: str) -> str:
        written = self.written.get(sheet, {})
        return written.get(code) or ALIASES[self.kind][code][0]

    def problem(self, row: dict, code: str, value: object, message: str) -> Problem:
        shown = "" if value is None else str(value)
        return Problem(row[FILE], row[SHEET], row[ROW], self.column(row[SHEET], code), shown,
                       message)


@cache
def _schema(kind: str) -> pa.DataFrameSchema:
    return SCHEMAS[kind].to_schema()


def schema_passes(kind: str, frame: pl.DataFrame) -> bool:
    """True when every cell passes the kind's pandera schema, found in one polars query.

    The schema's own definitions (each column's dtype, `nullable` and checks) are evaluated
    together instead of one pandera step per column and check. Anything this shortcut does
    not cover (frame-level checks, unique, coerce, another dtype) answers False, and so
    does a failing cell: pandera then validates the sheet itself and names every failure.
    """
    schema = _schema(kind)
    if schema.checks or schema.unique or schema.coerce:
        return False
    lazy = frame.lazy()
    verdicts = []
    for name, column in schema.columns.items():
        if (frame.schema.get(name) != pl.String or str(column.dtype) != "String"
                or column.unique or column.coerce or column.regex):
            return False
        if not column.nullable:
            verdicts.append(lazy.select(pl.col(name).is_not_null().all().alias(f"{name}:n")))
        for number, check in enumerate(column.checks):
            function = getattr(check, "_check_fn", None)  # pandera's own check function
            if function is None or check.element_wise or not check.ignore_na:
                return False
            verdicts.append(function(pa.PolarsData(lazy, name))
                            .select(pl.all().all().name.suffix(f":{number}")))
    if not verdicts:
        return True
    return all(pl.concat(verdicts, how="horizontal").collect().row(0))


def _schema_problems(sheet: RawSheet, frame: pl.DataFrame, where: _Where) -> list[Problem]:
    if schema_passes(sheet.kind, frame):
        return []
    schema = SCHEMAS[sheet.kind]
    try:
        schema.validate(frame, lazy=True)
    except pa.errors.SchemaErrors as exc:
        failures = exc.failure_cases
    else:
        return []
    # each column's failures of one check: the first REPORT_LIMIT named, the rest counted
    rank = pl.int_range(pl.len()).over("column", "check")
    for code, n in failures.filter(rank >= REPORT_LIMIT).group_by("column").len().iter_rows():
        where.count_more(code or "", n)
    problems = []
    for case in failures.filter(rank < REPORT_LIMIT).iter_rows(named=True):
        index = case["index"]
        row = int(frame[ROW][index]) if index is not None else None
        code = case["column"] or ""
        written = sheet.written.get(code) or (ALIASES[sheet.kind][code][0] if code in
                                              ALIASES[sheet.kind] else code)
        message = ck.message(str(case["check"]))
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
        ck.as_choice("first_to_level", ck.FORFEIT_SIDES).alias("first_to_level"),
        ck.as_choice("last_deal_side", ck.FORFEIT_SIDES).alias("last_deal_side"),
        pl.col("note"),
    ],
    "deals": lambda: [
        ck.as_int("round").alias("round"),
        ck.as_int("table").alias("table_no"),
        ck.as_int("deal").alias("deal"),
        ck.as_choice("winner_side", ck.FORFEIT_SIDES).alias("winner_side"),
        ck.as_choice("partner_finish", ck.PARTNER_FINISH).cast(pl.Int64).alias("partner_finish"),
        ck.normalized("ew_team").alias("ew_team"),
        ck.normalized("ns_team").alias("ns_team"),
    ],
    "matches": lambda: [
        pl.col("stage").str.strip_chars().alias("stage"),
        ck.as_int("match").alias("match_no"),
        ck.as_int("game").alias("game"),
        ck.normalized("team_a").alias("team_a"),
        ck.normalized("team_b").alias("team_b"),
        ck.as_level("a_level").alias("a_level"),
        ck.as_level("b_level").alias("b_level"),
        ck.normalized("winner").alias("winner"),
        ck.normalized("forfeit").alias("forfeit"),
        ck.normalized("disqualified").alias("disqualified"),
    ],
    "tractor_deals": lambda: [
        pl.col("stage").str.strip_chars().alias("stage"),
        ck.as_int("match").alias("match_no"),
        ck.as_int("game").alias("game"),
        ck.as_int("deal").alias("deal"),
        ck.normalized("declarer_team").alias("declarer_team"),
        ck.as_int("points").alias("points"),
        ck.as_int("trump_cards").alias("trump_cards"),
    ],
    "point_penalties": lambda: [
        pl.col("stage").str.strip_chars().alias("stage"),
        ck.as_int("match").alias("match_no"),
        ck.as_int("game").alias("game"),
        ck.as_int("deal").alias("deal"),
        ck.normalized("team_no").alias("team_no"),
        ck.as_int("points").fill_null(0).alias("points"),
        ck.as_int("levels").fill_null(0).alias("levels"),
        ck.normalized("deal_lost").replace_strict(
            {k.upper(): v for k, v in ck.YES_NO.items()}, default=False,
            return_dtype=pl.Boolean).fill_null(False).alias("deal_lost"),
        ck.as_choice("choice", ck.PENALTY_CHOICE).alias("choice"),
        pl.col("reason").str.strip_chars(),
    ],
    "fouls": lambda: [
        ck.as_int("round").alias("round"),
        ck.normalized("team_no").alias("team_no"),
        *(ck.as_int(c).fill_null(0).alias(c) for c in ("fouls", "warnings", "violations")),
    ],
    "entries": lambda: [
        ck.normalized("team_no").alias("team_no"),
        *(pl.col(c).str.strip_chars() for c in ("team_name", "player1", "player2",
                                                "player3", "player4", "affiliation")),
    ],
    "players": lambda: [
        pl.col("player").str.strip_chars(),
        pl.col("affiliation").str.strip_chars(),
        ck.normalized("pair").alias("pair"),
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
    where = _Where(sheets)
    problems: list[Problem] = []
    typed_frames = []
    for sheet in sheets:
        frame = _complete(sheet)
        problems += _schema_problems(sheet, frame, where)
        typed_frames.append(_typed(sheet, frame))
    typed = pl.concat(typed_frames, how="vertical_relaxed")
    cross = CROSS_CHECKS[kind]
    typed, more = cross(typed, context, where)
    problems += more
    problems.sort(key=lambda p: (p.sheet, p.row or 0, p.column))
    return Checked(kind, typed, problems, where.more)


def _unregistered(frame: pl.DataFrame, code: str, context: EventContext, where: _Where):
    registered = pl.Series(sorted(context.teams), dtype=pl.String).implode()
    for row in where.flagged(frame, pl.col(code).is_not_null() & ~pl.col(code).is_in(registered),
                              code):
        yield where.problem(row, code, row[code], "队号未报名 team is not registered")


def _check_results(
    typed: pl.DataFrame, context: EventContext, where: _Where
) -> tuple[pl.DataFrame, list[Problem]]:
    problems: list[Problem] = []
    col = pl.col
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
        problems += _unregistered(typed, code, context, where)
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
    problems += _round_too_far(typed, context, where)
    problems += _duplicate_tables(typed, where)
    typed = typed.unique(subset=["round", "table_no", "ew_team", "ns_team", "ew_level",
                                 "ns_level", "deals", "forfeit"], keep="first",
                         maintain_order=True)
    problems += _team_twice(typed, context, where)
    return typed, problems


def _against_stored_deals(typed: pl.DataFrame, context: EventContext, where: _Where):
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


def allowed_rounds(known: set[int], incoming: set[int]) -> set[int]:
    """The rounds a sheet may report: paired or reported ones, and each next round in turn.

    >>> sorted(allowed_rounds({1}, {1, 2, 3, 5}))
    [1, 2, 3]
    >>> sorted(allowed_rounds(set(), {3}))
    []
    """
    allowed = set(known)
    latest = max(known, default=0)
    for round_no in sorted(incoming):
        if round_no <= latest + 1:
            allowed.add(round_no)
            latest = max(latest, round_no)
    return allowed


def _round_too_far(typed: pl.DataFrame, context: EventContext, where: _Where):
    """Results for a round that is neither paired nor the next one (round 3 while round 1 is
    unreported) could never be paired around: refused unless forced."""
    if context.any_round:
        return
    known = set(context.pairings["round"].to_list()) | set(context.results["round"].to_list())
    incoming = set(typed["round"].drop_nulls().to_list())
    allowed = pl.Series(sorted(allowed_rounds(known, incoming)), dtype=pl.Int64).implode()
    latest = max(known, default=0)
    for row in where.flagged(typed, ~pl.col("round").is_in(allowed), "round"):
        yield where.problem(
            row, "round", row["round"],
            f"第 {row['round']} 轮既未编排也不是下一轮（已到第 {latest} 轮）；确需录入请加 --force "
            f"round {row['round']} is neither paired nor the next round (the event is at round "
            f"{latest}); add --force to store it anyway")


def _duplicate_tables(typed: pl.DataFrame, where: _Where) -> list[Problem]:
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


def _team_twice(typed: pl.DataFrame, context: EventContext, where: _Where) -> list[Problem]:
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


def _check_entries(
    typed: pl.DataFrame, context: EventContext, where: _Where
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
    return typed, problems


def _confusable(typed: pl.DataFrame, context: EventContext, where: _Where,
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


def _check_players(
    typed: pl.DataFrame, context: EventContext, where: _Where
) -> tuple[pl.DataFrame, list[Problem]]:
    """Partners share a marker: a marker used once or more than twice names its rows."""
    problems = []
    rows_of: dict[str, list[dict]] = {}
    for row in typed.iter_rows(named=True):
        if row["pair"]:
            rows_of.setdefault(row["pair"], []).append(row)
    for marker, rows in rows_of.items():
        if len(rows) != 2:
            numbers = "、".join(str(r[ROW]) for r in rows)
            for row in rows:
                problems.append(where.problem(
                    row, "pair", marker,
                    f"配对标记 {marker} 出现 {len(rows)} 次（第 {numbers} 行），应恰好两人 a pair "
                    f"marker must mark exactly two players"))
    return typed, problems


def _check_team_refs(
    typed: pl.DataFrame, context: EventContext, where: _Where
) -> tuple[pl.DataFrame, list[Problem]]:
    return typed, list(_unregistered(typed, "team_no", context, where))


def _check_deals(
    typed: pl.DataFrame, context: EventContext, where: _Where
) -> tuple[pl.DataFrame, list[Problem]]:
    """Replay each table's deals (RULES 2); the derived levels go with every deal row."""
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
            if rules["max_deals"] and r["deal"] > rules["max_deals"]:
                problems.append(where.problem(r, "deal", r["deal"],
                                              f"超过每轮最多 {rules['max_deals']} 副 beyond the "
                                              "deal limit of the round"))
                failed = True
                break
            if state.finished:
                problems.append(where.problem(r, "deal", r["deal"],
                                              "本轮已有一方过A结束，不能再有这一副 the round "
                                              "ended when a side passed A"))
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
        levels = (state.levels["ew"], state.levels["ns"])
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
                        "ns_team": teams[1], "table_ew_level": levels[0],
                        "table_ns_level": levels[1], "table_deals": len(rows),
                        "table_first_to_level": state.first_to_level,
                        "table_last_deal_side": state.last_winner})
    first_rows = typed.unique(["round", "table_no"], keep="first", maintain_order=True)
    problems += _round_too_far(first_rows, context, where)
    problems += _unregistered(first_rows, "ew_team", context, where)
    problems += _unregistered(first_rows, "ns_team", context, where)
    derived_frame = pl.DataFrame(derived, schema={
        "round": pl.Int64, "table_no": pl.Int64, "ew_team": pl.String, "ns_team": pl.String,
        "table_ew_level": pl.Int64, "table_ns_level": pl.Int64, "table_deals": pl.Int64,
        "table_first_to_level": pl.String, "table_last_deal_side": pl.String})
    typed = typed.drop("ew_team", "ns_team").join(derived_frame, on=["round", "table_no"],
                                                  how="inner")
    return typed, problems


def _tractor_only(check):
    def run(typed, context, where):
        if context.tractor is None:
            file, sheet = (typed[FILE][0], typed[SHEET][0]) if typed.height else ("", "")
            return typed, [Problem(file, sheet, None, "", "", "这是拖拉机的表，本赛事不是拖拉机赛事 "
                                   "a Tractor sheet for an event that is not Tractor")]
        return check(typed, context, where)

    return run


CROSS_CHECKS = {
    "matches": _tractor_only(tractor_sheets.check_matches),
    "tractor_deals": _tractor_only(tractor_sheets.check_deals),
    "point_penalties": _tractor_only(tractor_sheets.check_point_penalties),
    "deals": _check_deals,
    "fouls": _check_team_refs,
    "results": _check_results,
    "entries": _check_entries,
    "players": _check_players,
    "penalties": _check_team_refs,
    "quiz": _check_team_refs,
}
