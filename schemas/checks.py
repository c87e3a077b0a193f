"""Cell checks shared by the sheet schemas, as polars expressions over text cells.

Each check passes empty cells: whether a cell may be empty is the field's `nullable`.
`MESSAGES` turns a check name into what the organizer reads.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import polars as pl

from pipeline.base.levels import ACCEPTED, level_mapping

LEVEL_SPELLINGS = sorted(level_mapping())
FORFEIT_SIDES = {"ew": "ew", "ns": "ns", "东西": "ew", "南北": "ns", "EW": "ew", "NS": "ns",
                 # a double forfeit: neither team came (each a forfeit loss)
                 "双方": "both", "both": "both", "BOTH": "both"}
PARTNER_FINISH = {"2": "2", "3": "3", "4": "4", "二游": "2", "三游": "3", "下游": "4",
                  "末游": "4"}
YES_NO = {"是": True, "否": False, "Y": True, "N": False, "YES": True, "NO": False,
          "TRUE": True, "FALSE": False, "1": True, "0": False}
PENALTY_CHOICE = {"级": "levels", "升降级": "levels", "levels": "levels", "分": "points",
                  "罚分": "points", "points": "points"}
PENALTY_TARGETS = {
    "match_points": "match_points",
    "积分": "match_points",
    "level_diff_score": "level_diff_score",
    "级差分": "level_diff_score",
    "levels": "levels",
    "升级数": "levels",
    "级数": "levels",
}

MESSAGES = {
    "not_nullable": "必填，不能为空 required: the cell is empty",
    "level_spelling": f"不是有效的级数 not a level; 可用 accepted: {ACCEPTED}",
    "forfeit_side": "弃权方应为 东西/南北 (ew/ns) expected the side that forfeited: ew or ns",
    "partner_finish": "搭档名次应为 二游/三游/下游 (2/3/4) expected the partner's finish: 2, 3 or 4",
    "winner_side": "上游方应为 东西/南北 (ew/ns) expected the side of the first player out",
    "penalty_target": "扣分项目应为 积分/级差分/升级数 (match_points/level_diff_score/levels)",
    "yes_no": "应为 是/否 expected yes or no (是/否)",
    "penalty_choice": "选择应为 级/分 expected levels or points (级/分)",
}


# Letters that look like Latin ones (Cyrillic А beside Latin A): folded to the Latin letter,
# so `А20` typed on a Russian layout is team A20, not a second team that looks the same.
HOMOGLYPHS = dict(zip("АВЕКМНОРСТХУІЈЅΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEKMHOPCTXYIJSABEZHIKMNOPTYX",
                      strict=True))
# spaces and zero-width characters, removed in one pass
BLANKS = r"[\s\u00ad\u200b-\u200f\u2060-\u2064\ufeff]+"


# The columns of the frame being checked whose every cell is printable ASCII without spaces
# (`plain_columns`): folding such text only turns it to upper case.
_PLAIN: ContextVar[frozenset[str]] = ContextVar("plain_columns", default=frozenset())


@contextmanager
def plain_columns(frame: pl.DataFrame) -> Iterator[None]:
    """Within it, `normalized` folds a text column of `frame` whose cells are all printable
    ASCII without spaces by its upper case alone — what the whole folding gives such text
    (NFKC leaves ASCII as it is; spaces, zero-width characters and look-alike letters are
    not in it) — so a sheet of plain cells is folded in one cheap pass. One scan finds them."""
    text = [c for c, dtype in frame.schema.items() if dtype == pl.String]
    odd = frame.select(pl.col(c).str.contains(r"[^!-~]").any() for c in text).row(0) if text \
        else ()
    token = _PLAIN.set(frozenset(c for c, found in zip(text, odd, strict=True) if not found))
    try:
        yield
    finally:
        _PLAIN.reset(token)


def normalized(column: str) -> pl.Expr:
    """A text cell folded as organizers' spellings are compared (full-width, spaces, case,
    zero-width characters, look-alike letters)."""
    if column in _PLAIN.get():
        return pl.col(column).str.to_uppercase()
    return (
        pl.col(column)
        .str.normalize("NFKC")
        .str.replace_all(BLANKS, "")
        .str.to_uppercase()
        .str.replace_many(list(HOMOGLYPHS), list(HOMOGLYPHS.values()))
    )


def confusable_key(team_no: str) -> str:
    """What a team number looks like when O and 0, I, L and 1 are not told apart.

    >>> confusable_key("A1O"), confusable_key("AI0")
    ('A10', 'A10')
    """
    return team_no.translate(str.maketrans("OIL", "011"))


# The sane range of each numeric column: real events with room to spare, and always inside
# the database's integer range (a value past it must be a cell error, not a failed write).
ROUND = (1, 1_000)
TABLE = (1, 100_000)
DEAL = (1, 1_000)
DEALS = (0, 1_000)
PENALTY = (1, 10_000)  # a deduction: positive only
FOULS = (0, 100)
MATCH = (1, 100_000)
GAME = (1, 100)
TRUMP_CARDS = (1, 20)
TRACTOR_POINTS = (0, 1_000)
POINT_PENALTY = (-1_000, 1_000)
LEVEL_PENALTY = (-13, 13)
QUIZ_SCORE = (0, 10_000)
CARRIED_POINTS = (-10_000, 10_000)
CARRIED_LEVELS = (-100_000, 100_000)
QUIZ_SECONDS = (0, 86_400)


def whole_name(low: int, high: int) -> str:
    """The check name that carries its range (`message` reads it back)."""
    return f"whole:{low}:{high}"


def number_name(low: float, high: float) -> str:
    return f"number:{low}:{high}"


def message(check: str) -> str:
    """What the organizer reads for a failed check.

    >>> message("whole:1:1000")
    '应为 1 到 1,000 的正整数 expected a whole number from 1 to 1,000'
    """
    kind, _, bounds = check.partition(":")
    if kind in ("whole", "number") and bounds:
        low, high = (f"{float(b):,g}" for b in bounds.split(":"))
        if kind == "whole":
            word = {"1": "正整数", "0": "非负整数"}.get(low, "整数")
            return f"应为 {low} 到 {high} 的{word} expected a whole number from {low} to {high}"
        return f"应为 {low} 到 {high} 之间的数 expected a number from {low} to {high}"
    return MESSAGES.get(check, check)


def _whole(column: str, low: int, high: int) -> pl.Expr:
    """A whole number from low to high (`3`, `3.0`, full-width `３`)."""
    value = normalized(column).str.replace(r"\.0+$", "").cast(pl.Int64, strict=False)
    return value.is_not_null() & value.is_between(low, high)


def _number(column: str, low: float, high: float) -> pl.Expr:
    """A finite number from low to high (never nan or inf)."""
    value = normalized(column).cast(pl.Float64, strict=False)
    return value.is_not_null() & value.is_finite() & value.is_between(low, high)


def _level(column: str) -> pl.Expr:
    return normalized(column).is_in(LEVEL_SPELLINGS)


def _one_of(column: str, *choices: str) -> pl.Expr:
    return normalized(column).is_in([c.upper() for c in choices])


TESTS = {"whole": _whole, "number": _number, "level": _level, "one_of": _one_of}


def passes(rule, column: str) -> pl.Expr:
    """Whether each cell of `column` passes `rule` (a `schemas.cells.Rule`); an empty cell
    passes (whether it may be empty is the column's `nullable`)."""
    return pl.col(column).is_null() | TESTS[rule.test](column, *rule.args)


def as_int(column: str) -> pl.Expr:
    """Cast a checked integer cell."""
    return normalized(column).str.replace(r"\.0+$", "").cast(pl.Int64, strict=False)


def as_float(column: str) -> pl.Expr:
    return normalized(column).cast(pl.Float64, strict=False)


def as_level(column: str) -> pl.Expr:
    return normalized(column).replace_strict(level_mapping(), default=None, return_dtype=pl.Int64)


def as_choice(column: str, choices: dict[str, str]) -> pl.Expr:
    folded = {k.upper(): v for k, v in choices.items()}
    return normalized(column).replace_strict(folded, default=None, return_dtype=pl.String)
