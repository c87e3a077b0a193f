"""Round results: one row per table."""

from schemas import checks
from schemas._pandera import pa


class ResultsSheet(pa.DataFrameModel):
    """`round, table, ew_team, ns_team, ew_level, ns_level[, deals, forfeit, note]`.

    Team columns may be empty once the round is paired (the table number finds them); a
    level may be empty only on a forfeited table. Those rules span columns and the stored
    pairing, so they are checked in `pipeline.intake.validate`.
    """

    round: str = pa.Field(nullable=True)  # or `paisai ingest --round N`
    table: str = pa.Field(nullable=True)  # or found from the teams (pipeline.intake.sheets.kinds)
    ew_team: str = pa.Field(nullable=True)
    ns_team: str = pa.Field(nullable=True)
    ew_level: str = pa.Field(nullable=True)
    ns_level: str = pa.Field(nullable=True)
    deals: str = pa.Field(nullable=True)
    forfeit: str = pa.Field(nullable=True)
    first_to_level: str = pa.Field(nullable=True)
    last_deal_side: str = pa.Field(nullable=True)
    note: str = pa.Field(nullable=True)

    @pa.check("round", name=checks.whole_name(*checks.ROUND))
    def _round(cls, data):
        return checks.whole(data, *checks.ROUND)

    @pa.check("table", name=checks.whole_name(*checks.TABLE))
    def _table(cls, data):
        return checks.whole(data, *checks.TABLE)

    @pa.check("ew_level", "ns_level", name="level_spelling")
    def _level(cls, data):
        return checks.level_spelling(data)

    @pa.check("deals", name=checks.whole_name(*checks.DEALS))
    def _deals(cls, data):
        return checks.whole(data, *checks.DEALS)

    @pa.check("forfeit", "first_to_level", "last_deal_side", name="forfeit_side")
    def _forfeit(cls, data):
        return checks.one_of(checks.FORFEIT_SIDES)(data)

    class Config:
        strict = "filter"
        coerce = False
