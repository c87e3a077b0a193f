"""Levels (级数) as organizers write them, and as the code stores them (2..15).

>>> parse_level("过A"), parse_level("１０"), parse_level("q"), parse_level("A+")
(15, 10, 12, 15)
>>> parse_level("16") is None, parse_level("1") is None
(True, True)
>>> format_level(15), format_level(11)
('过A', 'J')
"""

from __future__ import annotations

import re
import unicodedata

PASSED_A = 15
LOWEST = 2
ACE = 14

_FACE = {"J": 11, "Q": 12, "K": 13, "A": 14}
_PASSED = {"过A", "過A", "A+", "过", "過", "过A级", "PASSA"}
_NAMES = {v: k for k, v in _FACE.items()} | {PASSED_A: "过A"}
_FLOAT_INT = re.compile(r"^(\d+)\.0+$")

ACCEPTED = "2…10, J, Q, K, A, 过A (或 11…15)"


def normalize_text(value: str) -> str:
    """Full-width to half-width, trimmed, inner spaces removed, upper case.

    >>> normalize_text(" ｑ ")
    'Q'
    """
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", value)).upper()


def parse_level(value: object) -> int | None:
    """The level 2..15 written in a cell, or None when it is not a level."""
    if value is None:
        return None
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        if value != int(value):
            return None
        number = int(value)
        return number if LOWEST <= number <= PASSED_A else None
    text = normalize_text(str(value))
    if not text:
        return None
    if text in {normalize_text(p) for p in _PASSED}:
        return PASSED_A
    if text in _FACE:
        return _FACE[text]
    match = _FLOAT_INT.match(text)
    if match:
        text = match.group(1)
    if text.isascii() and text.isdigit():
        number = int(text)
        return number if LOWEST <= number <= PASSED_A else None
    return None


def format_level(level: int | None) -> str:
    """A stored level as organizers write it (2…10 J Q K A 过A)."""
    if level is None:
        return ""
    return _NAMES.get(int(level), str(int(level)))


def level_mapping() -> dict[str, int]:
    """Every normalised spelling of a level, for vectorised parsing in polars."""
    spellings: dict[str, int] = {}
    for number in range(LOWEST, PASSED_A + 1):
        spellings[str(number)] = number
        spellings[f"{number}.0"] = number
    spellings.update(_FACE)
    for passed in _PASSED:
        spellings[normalize_text(passed)] = PASSED_A
    return spellings
