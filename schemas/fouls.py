"""Fouls per team per round, as the referee records them: seed 003 counts fouls (犯规);
seed 001's Jiangsu rules count warnings (警告) and violations (记违例). Any of the three
columns may be absent; an empty cell is 0."""

from schemas import checks
from schemas._pandera import pa


class FoulsSheet(pa.DataFrameModel):
    """`round, team_no[, fouls][, warnings][, violations][, table]` (the table: where a pair of
    a team event sits, for rulesets that count per pair)."""

    round: str = pa.Field(nullable=False)
    team_no: str = pa.Field(nullable=False)
    fouls: str = pa.Field(nullable=True)
    warnings: str = pa.Field(nullable=True)
    violations: str = pa.Field(nullable=True)
    table: str = pa.Field(nullable=True)

    @pa.check("round", name=checks.whole_name(*checks.ROUND))
    def _round(cls, data):
        return checks.whole(data, *checks.ROUND)

    @pa.check("table", name=checks.whole_name(*checks.TABLE))
    def _table(cls, data):
        return checks.whole(data, *checks.TABLE)

    @pa.check("fouls", "warnings", "violations", name=checks.whole_name(*checks.FOULS))
    def _fouls(cls, data):
        return checks.whole(data, *checks.FOULS)

    class Config:
        strict = "filter"
        coerce = False
