"""Penalties: a deduction from one total of one team in one round, with its reason."""

from schemas import checks
from schemas._pandera import pa


class PenaltiesSheet(pa.DataFrameModel):
    """`round, team_no, target (match_points|level_diff_score|levels), amount, reason`."""

    round: str = pa.Field(nullable=False)
    team_no: str = pa.Field(nullable=False)
    target: str = pa.Field(nullable=False)
    amount: str = pa.Field(nullable=False)
    reason: str = pa.Field(nullable=True)

    @pa.check("round", name=checks.whole_name(*checks.ROUND))
    def _round(cls, data):
        return checks.whole(data, *checks.ROUND)

    @pa.check("target", name="penalty_target")
    def _target(cls, data):
        return checks.one_of(checks.PENALTY_TARGETS)(data)

    @pa.check("amount", name=checks.whole_name(*checks.PENALTY))
    def _amount(cls, data):
        return checks.whole(data, *checks.PENALTY)

    class Config:
        strict = "filter"
        coerce = False
