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

    @pa.check("match", name=checks.whole_name(*checks.MATCH))
    def _match(cls, data):
        return checks.whole(data, *checks.MATCH)

    @pa.check("game", name=checks.whole_name(*checks.GAME))
    def _game(cls, data):
        return checks.whole(data, *checks.GAME)

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

    @pa.check("match", name=checks.whole_name(*checks.MATCH))
    def _match(cls, data):
        return checks.whole(data, *checks.MATCH)

    @pa.check("game", name=checks.whole_name(*checks.GAME))
    def _game(cls, data):
        return checks.whole(data, *checks.GAME)

    @pa.check("deal", name=checks.whole_name(*checks.DEAL))
    def _deal(cls, data):
        return checks.whole(data, *checks.DEAL)

    @pa.check("trump_cards", name=checks.whole_name(*checks.TRUMP_CARDS))
    def _trump(cls, data):
        return checks.whole(data, *checks.TRUMP_CARDS)

    @pa.check("points", name=checks.whole_name(*checks.TRACTOR_POINTS))
    def _points(cls, data):
        return checks.whole(data, *checks.TRACTOR_POINTS)

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

    @pa.check("match", name=checks.whole_name(*checks.MATCH))
    def _match(cls, data):
        return checks.whole(data, *checks.MATCH)

    @pa.check("game", name=checks.whole_name(*checks.GAME))
    def _game(cls, data):
        return checks.whole(data, *checks.GAME)

    @pa.check("deal", name=checks.whole_name(*checks.DEAL))
    def _deal(cls, data):
        return checks.whole(data, *checks.DEAL)

    @pa.check("points", name=checks.whole_name(*checks.POINT_PENALTY))
    def _points(cls, data):
        return checks.whole(data, *checks.POINT_PENALTY)

    class Config:
        strict = "filter"
        coerce = False
