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
