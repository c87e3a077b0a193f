"""The pandera schemas of the sheet kinds, built from the cell rules (`schemas.cells`).

Imported only when a sheet has something to report: pandera then validates it and names
every failure (column, check, row, value as written). A clean sheet is found clean by
`schemas.cells.cells_pass` without pandera.
"""

from __future__ import annotations

from functools import cache

from schemas import checks
from schemas._pandera import pa, without_pandas
from schemas.cells import CELLS, Rule


def _check(rule: Rule) -> pa.Check:
    def check(data: pa.PolarsData):
        return data.lazyframe.select(checks.passes(rule, data.key))

    return pa.Check(check, name=rule.name)


@cache
def schema(kind: str) -> pa.DataFrameSchema:
    """The pandera schema of one kind of sheet: its text cells, each column's `nullable`
    and the checks of its cells (columns under their code names)."""
    sheet = CELLS[kind]
    rules = {name: [_check(rule) for rule in sheet.rules if name in rule.columns]
             for name in sheet.nullable}
    return pa.DataFrameSchema(
        {name: pa.Column(str, nullable=nullable, checks=rules[name])
         for name, nullable in sheet.nullable.items()},
        strict="filter", coerce=False, name=kind, description=sheet.doc)


NAMES = {"entries": "EntriesSheet", "players": "PlayersSheet", "results": "ResultsSheet",
         "penalties": "PenaltiesSheet", "quiz": "QuizSheet", "deals": "DealsSheet",
         "fouls": "FoulsSheet", "matches": "MatchesSheet", "tractor_deals": "TractorDealsSheet",
         "point_penalties": "PointPenaltiesSheet", "carry": "CarrySheet"}

SCHEMAS = {kind: schema(kind) for kind in NAMES}

__all__ = ["NAMES", "SCHEMAS", "pa", "schema", "without_pandas"]
