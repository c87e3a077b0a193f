"""Fouls (犯规) per team per round, as the referee records them (seed 003)."""

from schemas import checks
from schemas._pandera import pa


class FoulsSheet(pa.DataFrameModel):
    """`round, team_no, fouls`."""

    round: str = pa.Field(nullable=False)
    team_no: str = pa.Field(nullable=False)
    fouls: str = pa.Field(nullable=False)

    @pa.check("round", name="positive_integer")
    def _round(cls, data):
        return checks.positive_integer(data)

    @pa.check("fouls", name="non_negative_integer")
    def _fouls(cls, data):
        return checks.non_negative_integer(data)

    class Config:
        strict = "filter"
        coerce = False
