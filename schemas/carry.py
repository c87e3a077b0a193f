"""Carried-over totals (带入成绩): an event that starts from another's results, as other
tools' final tables write them (当前积分, 净积小分, 累积小分)."""

from schemas import checks
from schemas._pandera import pa


class CarrySheet(pa.DataFrameModel):
    """`team_no, match_points[, team_name, level_diff_score, net_levels, levels_gained,
    levels]`."""

    team_no: str = pa.Field(nullable=False)
    team_name: str = pa.Field(nullable=True)
    match_points: str = pa.Field(nullable=False)
    level_diff_score: str = pa.Field(nullable=True)
    net_levels: str = pa.Field(nullable=True)
    levels_gained: str = pa.Field(nullable=True)
    levels: str = pa.Field(nullable=True)

    @pa.check("match_points", name=checks.number_name(*checks.CARRIED_POINTS))
    def _points(cls, data):
        return checks.number(data, *checks.CARRIED_POINTS)

    @pa.check("level_diff_score", "net_levels", "levels_gained", "levels",
              name=checks.whole_name(*checks.CARRIED_LEVELS))
    def _levels(cls, data):
        return checks.whole(data, *checks.CARRIED_LEVELS)

    class Config:
        strict = "filter"
        coerce = False
