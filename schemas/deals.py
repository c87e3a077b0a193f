"""Deal by deal (逐副记分): one row per deal of a table (docs/rules/general.md §2)."""

from schemas import checks
from schemas._pandera import pa


class DealsSheet(pa.DataFrameModel):
    """`round, table, deal, winner_side, partner_finish[, ew_team, ns_team]`."""

    round: str = pa.Field(nullable=False)
    table: str = pa.Field(nullable=False)
    deal: str = pa.Field(nullable=False)
    winner_side: str = pa.Field(nullable=False)
    partner_finish: str = pa.Field(nullable=False)
    ew_team: str = pa.Field(nullable=True)
    ns_team: str = pa.Field(nullable=True)

    @pa.check("round", name=checks.whole_name(*checks.ROUND))
    def _round(cls, data):
        return checks.whole(data, *checks.ROUND)

    @pa.check("table", name=checks.whole_name(*checks.TABLE))
    def _table(cls, data):
        return checks.whole(data, *checks.TABLE)

    @pa.check("deal", name=checks.whole_name(*checks.DEAL))
    def _deal(cls, data):
        return checks.whole(data, *checks.DEAL)

    @pa.check("winner_side", name="winner_side")
    def _side(cls, data):
        return checks.one_of(checks.FORFEIT_SIDES)(data)

    @pa.check("partner_finish", name="partner_finish")
    def _finish(cls, data):
        return checks.one_of(checks.PARTNER_FINISH)(data)

    class Config:
        strict = "filter"
        coerce = False
