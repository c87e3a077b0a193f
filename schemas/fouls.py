"""Fouls (犯规) per team per round, as the referee records them (seed 003)."""

from schemas import checks
from schemas._pandera import pa


class FoulsSheet(pa.DataFrameModel):
    """`round, team_no, fouls`."""

    round: str = pa.Field(nullable=False)
    team_no: str = pa.Field(nullable=False)
    fouls: str = pa.Field(nullable=False)

    @pa.check("round", name=checks.whole_name(*checks.ROUND))
    def _round(cls, data):
        return checks.whole(data, *checks.ROUND)

    @pa.check("fouls", name=checks.whole_name(*checks.FOULS))
    def _fouls(cls, data):
        return checks.whole(data, *checks.FOULS)

    class Config:
        strict = "filter"
        coerce = False
