"""Tractor sheets: one row per game, one row per deal, point penalties of a deal."""

from schemas import checks
from schemas._pandera import pa


class MatchesSheet(pa.DataFrameModel):
    """`stage, match, game, team_a, team_b, a_level, b_level[, winner][, forfeit][,
    disqualified][, time_winner]`. A row naming the team that forfeited or was disqualified
    decides the match without play (seed 000), and so does one naming the team ahead when
    the match clock ran out (到时领先方): its game and levels stay empty (checked in
    `pipeline.tractor.checks`)."""

    stage: str = pa.Field(nullable=False)
    match: str = pa.Field(nullable=False)
    game: str = pa.Field(nullable=True)
    team_a: str = pa.Field(nullable=False)
    team_b: str = pa.Field(nullable=False)
    a_level: str = pa.Field(nullable=True)
    b_level: str = pa.Field(nullable=True)
    winner: str = pa.Field(nullable=True)
    forfeit: str = pa.Field(nullable=True)
    disqualified: str = pa.Field(nullable=True)
    time_winner: str = pa.Field(nullable=True)

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
    """`stage, match, game, deal, team_no[, points][, levels][, deal_lost][, choice][, reason]`:
    penalties of the offending side (`team_no`) in one deal. `points` come off its captured
    points (seed 002); `levels` > 0 send its opponents up, < 0 step it down (seed 000's
    fouls, seed 002's 藏张 and lateness); `deal_lost` (是) voids the deal's own scoring and
    gives it to the opponents; `choice` (级/分) records which of points or levels the offended
    side chose (藏张): the other is not applied."""

    stage: str = pa.Field(nullable=False)
    match: str = pa.Field(nullable=False)
    game: str = pa.Field(nullable=False)
    deal: str = pa.Field(nullable=False)
    team_no: str = pa.Field(nullable=False)
    points: str = pa.Field(nullable=True)
    levels: str = pa.Field(nullable=True)
    deal_lost: str = pa.Field(nullable=True)
    choice: str = pa.Field(nullable=True)
    reason: str = pa.Field(nullable=True)

    @pa.check("levels", name=checks.whole_name(*checks.LEVEL_PENALTY))
    def _levels(cls, data):
        return checks.whole(data, *checks.LEVEL_PENALTY)

    @pa.check("deal_lost", name="yes_no")
    def _deal_lost(cls, data):
        return checks.one_of(checks.YES_NO)(data)

    @pa.check("choice", name="penalty_choice")
    def _choice(cls, data):
        return checks.one_of(checks.PENALTY_CHOICE)(data)

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
