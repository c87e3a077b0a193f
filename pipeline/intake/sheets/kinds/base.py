"""What every sheet kind's checks share: the event as stored, where a problem is, and the
checks more than one kind runs (unregistered teams, a round too far ahead)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

import polars as pl

from pipeline.base.errors import REPORT_LIMIT, Problem
from pipeline.base.ruleset import Ruleset
from pipeline.intake.sheets.headers import ALIASES
from pipeline.intake.sheets.read import ROW, RawSheet
from schemas import checks as ck

SHEET = "_sheet"
FILE = "_file"


@dataclass(frozen=True)
class EventContext:
    """What validation needs to know of the event as stored."""

    teams: frozenset[str]
    pairings: pl.DataFrame  # round, table_no, ew_team, ns_team (byes excluded)
    results: pl.DataFrame  # round, table_no, ew_team, ns_team, ew_level, ns_level, has_deals
    ruleset: Ruleset
    tractor: object = None  # pipeline.tractor.checks.TractorContext for Tractor events
    any_round: bool = False  # --force: results for a round beyond the next one are taken
    named: pl.DataFrame | None = None  # team_no, team_name, player1…player4 as registered
    units: frozenset[str] = frozenset()  # the units (affiliations) registered so far
    member_names: dict | None = None  # member id → the name it was registered with

    @cached_property
    def registered(self) -> pl.Series:
        """The registered team numbers as one list value, for `is_in` (built once; in no
        order: sorting 100,000 numbers in Python for each check cost more than the check)."""
        return pl.Series(list(self.teams), dtype=pl.String).implode()

    @cached_property
    def names(self) -> dict[str, frozenset[str]]:
        """Folded team and player names → the team numbers they belong to (built on demand,
        once: only a sheet with a cell that is not a team number needs it)."""
        if self.named is None or self.named.is_empty():
            return {}
        long = self.named.unpivot(index="team_no", value_name="name").drop_nulls("name")
        folded = long.select("team_no", ck.normalized("name").alias("name")).filter(
            pl.col("name") != "")
        grouped = folded.group_by("name").agg(pl.col("team_no").unique())
        return {name: frozenset(teams) for name, teams in grouped.iter_rows()}


class Where:
    """Turns a row of a typed frame and a code name into a Problem as the user sees it, and
    counts the failures beyond the report's limit by column instead of building them."""

    def __init__(self, sheets: list[RawSheet]):
        self.written = {s.sheet: s.written for s in sheets}
        self.sheets = {s.sheet: s for s in sheets}
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

    def warn(self, row: dict, code: str, message: str) -> None:
        """A note for the organizer to review on the preview and the report: the row is
        stored all the same."""
        sheet = self.sheets.get(row[SHEET]) or next(iter(self.sheets.values()))
        sheet.warnings.append(f"第 {row[ROW]} 行 row {row[ROW]}, {self.column(row[SHEET], code)}："
                              f"{message}")

    def problem(self, row: dict, code: str, value: object, message: str) -> Problem:
        shown = "" if value is None else str(value)
        return Problem(row[FILE], row[SHEET], row[ROW], self.column(row[SHEET], code), shown,
                       message)


def unregistered(frame: pl.DataFrame, code: str, context: EventContext, where: Where):
    failing = frame.filter(pl.col(code).is_not_null() & ~pl.col(code).is_in(context.registered))
    if failing.is_empty():
        return
    names = context.names
    for row in where.flagged(failing, pl.lit(True), code):
        candidates = sorted(names.get(row[code], ()))
        if len(candidates) > 1:
            message = (f"这个名字对应多支队伍：{'、'.join(candidates)}，请填队号 the name matches "
                       f"several teams ({', '.join(candidates)}): give the team number")
        else:
            message = ("队号未报名，也不是已报名的队名或队员名 team is not registered (neither a "
                       "team number nor a registered team or player name)")
        yield where.problem(row, code, row[code], message)


def resolve_names(frame: pl.DataFrame, codes: tuple[str, ...], context: EventContext
                  ) -> pl.DataFrame:
    """Team cells holding a team name or a player's name, where that name belongs to one team
    of the event, become that team's number (other tools key results by name)."""
    registered = context.registered
    unknown = pl.any_horizontal(pl.col(c).is_not_null() & ~pl.col(c).is_in(registered)
                                for c in codes)
    if not frame.select(unknown.any()).item():
        return frame  # every cell is a team number: no names to look up
    unique = {name: next(iter(teams)) for name, teams in context.names.items()
              if len(teams) == 1 and name not in context.teams}
    if not unique:
        return frame
    return frame.with_columns(pl.col(c).replace(unique) for c in codes)


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


def round_too_far(typed: pl.DataFrame, context: EventContext, where: Where):
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


def check_team_refs(
    typed: pl.DataFrame, context: EventContext, where: Where
) -> tuple[pl.DataFrame, list[Problem]]:
    return typed, list(unregistered(typed, "team_no", context, where))


def tractor_only(check):
    def run(typed, context, where):
        if context.tractor is None:
            file, sheet = (typed[FILE][0], typed[SHEET][0]) if typed.height else ("", "")
            return typed, [Problem(file, sheet, None, "", "", "这是拖拉机的表，本赛事不是拖拉机赛事 "
                                   "a Tractor sheet for an event that is not Tractor")]
        return check(typed, context, where)

    return run


def match_keys(*, deal: bool) -> list[pl.Expr]:
    """The columns that name a Tractor match (and game, and deal) on every Tractor sheet."""
    keys = [pl.col("stage").str.strip_chars().alias("stage"),
            ck.as_int("match").alias("match_no"), ck.as_int("game").alias("game")]
    return [*keys, ck.as_int("deal").alias("deal")] if deal else keys
