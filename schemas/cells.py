"""The cell rules of every sheet kind, as plain data: the one source of the cell checks.

For each kind: its columns (code names, see GLOSSARY.md), whether each may be empty, and
the checks of its cells. Two things are derived from it and from nothing else:

- `schemas.models`: the pandera schemas, which validate a sheet with something to report and
  name every failure (file, sheet, row, column, why);
- `cells_pass`: one vectorised polars query that says whether a sheet is clean, so that a
  clean sheet never needs pandera (importing it costs about 0.2 s of CPU at every ingest).

`tests/test_schema_shortcut.py` checks that both agree on good and bad sheets.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from schemas import checks


@dataclass(frozen=True)
class Rule:
    """One check of text cells: its name (what `checks.message` reads, and pandera reports),
    what it tests (`checks.TESTS`) and with what, and the columns it applies to."""

    name: str
    test: str
    args: tuple
    columns: tuple[str, ...]


@dataclass(frozen=True)
class Sheet:
    """One kind's cells: each column with whether it may be empty, and the rules."""

    doc: str
    nullable: dict[str, bool]
    rules: tuple[Rule, ...] = ()


def whole(bounds: tuple[int, int], *columns: str) -> Rule:
    return Rule(checks.whole_name(*bounds), "whole", bounds, columns)


def number(bounds: tuple[float, float], *columns: str) -> Rule:
    return Rule(checks.number_name(*bounds), "number", bounds, columns)


def level(*columns: str) -> Rule:
    return Rule("level_spelling", "level", (), columns)


def one_of(name: str, choices: dict[str, str], *columns: str) -> Rule:
    return Rule(name, "one_of", tuple(choices), columns)


def _fields(required: str, optional: str) -> dict[str, bool]:
    """Columns in the sheet's order: `required` ones may not be empty (space-separated)."""
    return {**dict.fromkeys(required.split(), False), **dict.fromkeys(optional.split(), True)}


def _ordered(nullable: dict[str, bool], order: str) -> dict[str, bool]:
    return {name: nullable[name] for name in order.split()}


SIDES = checks.FORFEIT_SIDES

CELLS: dict[str, Sheet] = {
    "entries": Sheet(
        "`team_no, team_name, player1, player2, affiliation`, and the players' association "
        "member ids `member1…member4` where given; team_no unique where given (a team "
        "without one gets it at the draw).",
        _fields("", "team_no team_name player1 player2 player3 player4 affiliation member1 "
                    "member2 member3 member4")),
    "players": Sheet(
        "`player, affiliation, pair`: two rows with the same marker are one team; rows "
        "without a marker are singles, paired at the draw.",
        _fields("player", "affiliation pair")),
    "results": Sheet(
        "`round, table, ew_team, ns_team, ew_level, ns_level[, deals, forfeit, note]`. Team "
        "columns may be empty once the round is paired (the table number finds them); a "
        "level may be empty only on a forfeited table. Those rules span columns and the "
        "stored pairing, so they are checked in `pipeline.intake.validate`.",
        _fields("", "round table ew_team ns_team ew_level ns_level deals forfeit "
                    "first_to_level last_deal_side note"),
        (whole(checks.ROUND, "round"), whole(checks.TABLE, "table"),
         level("ew_level", "ns_level"), whole(checks.DEALS, "deals"),
         one_of("forfeit_side", SIDES, "forfeit", "first_to_level", "last_deal_side"))),
    "deals": Sheet(
        "`round, table, deal, winner_side, partner_finish[, ew_team, ns_team]`.",
        _fields("round table deal winner_side partner_finish", "ew_team ns_team"),
        (whole(checks.ROUND, "round"), whole(checks.TABLE, "table"),
         whole(checks.DEAL, "deal"), one_of("winner_side", SIDES, "winner_side"),
         one_of("partner_finish", checks.PARTNER_FINISH, "partner_finish"))),
    "penalties": Sheet(
        "`round, team_no, target (match_points|level_diff_score|levels), amount, reason`.",
        _fields("round team_no target amount", "reason"),
        (whole(checks.ROUND, "round"),
         one_of("penalty_target", checks.PENALTY_TARGETS, "target"),
         whole(checks.PENALTY, "amount"))),
    "fouls": Sheet(
        "`round, team_no[, fouls][, warnings][, violations][, table]` (the table: where a "
        "pair of a team event sits, for rulesets that count per pair). Seed 003 counts fouls "
        "(犯规); seed 001's Jiangsu rules count warnings (警告) and violations (记违例). Any "
        "of the three columns may be absent; an empty cell is 0.",
        _fields("round team_no", "fouls warnings violations table"),
        (whole(checks.ROUND, "round"), whole(checks.TABLE, "table"),
         whole(checks.FOULS, "fouls", "warnings", "violations"))),
    "quiz": Sheet(
        "`team_no, quiz_score, quiz_seconds` (seed 004's last tiebreak: score, then time).",
        _fields("team_no quiz_score", "quiz_seconds"),
        (number(checks.QUIZ_SCORE, "quiz_score"), number(checks.QUIZ_SECONDS, "quiz_seconds"))),
    "carry": Sheet(
        "`team_no, match_points[, team_name, level_diff_score, net_levels, levels_gained, "
        "levels]`: an event that starts from another's results, as other tools' final "
        "tables write them (当前积分, 净积小分, 累积小分).",
        _ordered(_fields("team_no match_points", "team_name level_diff_score net_levels "
                                                 "levels_gained levels"),
                 "team_no team_name match_points level_diff_score net_levels levels_gained "
                 "levels"),
        (number(checks.CARRIED_POINTS, "match_points"),
         whole(checks.CARRIED_LEVELS, "level_diff_score", "net_levels", "levels_gained",
               "levels"))),
    "matches": Sheet(
        "`stage, match, game, team_a, team_b, a_level, b_level[, winner][, forfeit][, "
        "disqualified][, time_winner]`. A row naming the team that forfeited or was "
        "disqualified decides the match without play (seed 000), and so does one naming the "
        "team ahead when the match clock ran out (到时领先方): its game and levels stay "
        "empty (checked in `pipeline.tractor.checks`).",
        _ordered(_fields("stage match team_a team_b", "game a_level b_level winner forfeit "
                                                      "disqualified time_winner"),
                 "stage match game team_a team_b a_level b_level winner forfeit disqualified "
                 "time_winner"),
        (whole(checks.MATCH, "match"), whole(checks.GAME, "game"),
         level("a_level", "b_level"))),
    "tractor_deals": Sheet(
        "`stage, match, game, deal, declarer_team, points[, trump_cards]`.",
        _fields("stage match game deal declarer_team points", "trump_cards"),
        (whole(checks.MATCH, "match"), whole(checks.GAME, "game"), whole(checks.DEAL, "deal"),
         whole(checks.TRUMP_CARDS, "trump_cards"),
         whole(checks.TRACTOR_POINTS, "points"))),
    "point_penalties": Sheet(
        "`stage, match, game, deal, team_no[, points][, levels][, deal_lost][, choice][, "
        "reason]`: penalties of the offending side (`team_no`) in one deal. `points` come "
        "off its captured points (seed 002); `levels` > 0 send its opponents up, < 0 step it "
        "down (seed 000's fouls, seed 002's 藏张 and lateness); `deal_lost` (是) voids the "
        "deal's own scoring and gives it to the opponents; `choice` (级/分) records which of "
        "points or levels the offended side chose (藏张): the other is not applied.",
        _fields("stage match game deal team_no", "points levels deal_lost choice reason"),
        (whole(checks.LEVEL_PENALTY, "levels"), one_of("yes_no", checks.YES_NO, "deal_lost"),
         one_of("penalty_choice", checks.PENALTY_CHOICE, "choice"),
         whole(checks.MATCH, "match"), whole(checks.GAME, "game"), whole(checks.DEAL, "deal"),
         whole(checks.POINT_PENALTY, "points"))),
}


def cell_masks(kind: str, frame: pl.DataFrame) -> list[pl.Expr] | None:
    """One boolean column per check of the kind's cells (a required cell given, a rule on a
    column; named `_cell0`, `_cell1`, …): a row passes a check where its column is true. None
    when a column is missing or not text (pandera then decides and names what is wrong).
    Computed beside the casts in one lazy query, each cell is folded once for both."""
    sheet = CELLS[kind]
    if any(frame.schema.get(name) != pl.String for name in sheet.nullable):
        return None
    masks = [
        pl.col(name).is_not_null() for name, nullable in sheet.nullable.items() if not nullable
    ]
    # a check whose answer is empty passes, as pandera's `ignore_na` has it
    masks += [
        checks.passes(rule, column).fill_null(True)
        for rule in sheet.rules
        for column in rule.columns
    ]
    return [mask.alias(f"_cell{i}") for i, mask in enumerate(masks)]


def cells_pass(kind: str, frame: pl.DataFrame) -> bool:
    """True when every cell of the sheet passes its kind's rules: the same verdict as the
    pandera schema (`schemas.models`), in one polars query. A column missing or not text
    answers False: pandera then decides and names what is wrong."""
    masks = cell_masks(kind, frame)
    if masks is None:
        return False
    if not masks:
        return True
    return bool(frame.select(pl.all_horizontal(masks).all()).item())
