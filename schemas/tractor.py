"""Tractor sheets: one row per game, one row per deal, point penalties of a deal."""

from schemas import checks
from schemas._pandera import pa


class MatchesSheet(pa.DataFrameModel):
    """`stage, match, game, team_a, team_b, a_level, b_level[, winner]`."""

    stage: str = pa.Field(nullable=False)
    match: str = pa.Field(nullable=False)
    game: str = pa.Field(nullable=False)
    team_a: str = pa.Field(nullable=False)
    team_b: str = pa.Field(nullable=False)
    a_level: str = pa.Field(nullable=False)
    b_level: str = pa.Field(nullable=False)
    winner: str = pa.Field(nullable=True)

    @pa.check("match", "game", name="positive_integer")
    def _positive(cls, data):
        return checks.positive_integer(data)

    @pa.check("a_level", "b_level", name="level_spelling")
    def _level(cls, data):
        return checks.level_spelling(data)

    class Config:
        strict = "filter"
        coerce = False


class TractorDealsSheet(pa.DataFrameModel):
    """`stage, match, game, deal, declarer_team, points[, trump_cards]`."""

    stage: str = pa.Field(nullable=False)
    match: str = pa.Field(nullable=False)
    game: str = pa.Field(nullable=False)
    deal: str = pa.Field(nullable=False)
    declarer_team: str = pa.Field(nullable=False)
    points: str = pa.Field(nullable=False)
    trump_cards: str = pa.Field(nullable=True)

    @pa.check("match", "game", "deal", "trump_cards", name="positive_integer")
    def _positive(cls, data):
        return checks.positive_integer(data)

    @pa.check("points", name="non_negative_integer")
    def _points(cls, data):
        return checks.non_negative_integer(data)

    class Config:
        strict = "filter"
        coerce = False


class PointPenaltiesSheet(pa.DataFrameModel):
    """`stage, match, game, deal, team_no, points[, reason]`: points off the offending side."""

    stage: str = pa.Field(nullable=False)
    match: str = pa.Field(nullable=False)
    game: str = pa.Field(nullable=False)
    deal: str = pa.Field(nullable=False)
    team_no: str = pa.Field(nullable=False)
    points: str = pa.Field(nullable=False)
    reason: str = pa.Field(nullable=True)

    @pa.check("match", "game", "deal", name="positive_integer")
    def _positive(cls, data):
        return checks.positive_integer(data)

    @pa.check("points", name="integer")
    def _points(cls, data):
        return checks.integer(data)

    class Config:
        strict = "filter"
        coerce = False
