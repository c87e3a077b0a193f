"""Orders every stage shares (issue 53): team numbers as people count them."""

from __future__ import annotations

import re

import polars as pl


def natural_key(team_no: str) -> tuple:
    """Team numbers in natural order: A2 before A10.

    >>> sorted(["A10", "B1", "A2"], key=natural_key)
    ['A2', 'A10', 'B1']
    """
    prefix = re.match(r"\D*", team_no).group(0)
    digits = re.search(r"\d+", team_no)
    return (prefix, int(digits.group(0)) if digits else -1, team_no)


def in_natural_order(frame: pl.DataFrame, column: str = "team_no") -> pl.DataFrame:
    """A frame's rows by team number in natural order.

    >>> in_natural_order(pl.DataFrame({"team_no": ["A10", "B1", "A2"]}))["team_no"].to_list()
    ['A2', 'A10', 'B1']
    """
    order = sorted(range(frame.height), key=lambda i: natural_key(str(frame[column][i])))
    return frame[order]


def number_runs(numbers, spell_out: int = 12) -> list[str]:
    """Whole numbers (tables) as people list many of them: each one while there are few
    (`spell_out` at most), runs of consecutive numbers as ranges past that — a 500-table
    round's missing tables were five hundred numbers in a row.

    >>> number_runs([3, 1, 2]), number_runs(range(1, 501)), number_runs([1, 2, 3, 5, *range(7, 20)])
    (['1', '2', '3'], ['1–500'], ['1–3', '5', '7–19'])
    """
    given = sorted({int(n) for n in numbers})
    if len(given) <= spell_out:
        return [str(n) for n in given]
    runs: list[list[int]] = []
    for n in given:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return [f"{a}" if a == b else f"{a}–{b}" for a, b in runs]
