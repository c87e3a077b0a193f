"""Registration one row per player (seed 001): partners share a marker in the pair column."""

from schemas._pandera import pa


class PlayersSheet(pa.DataFrameModel):
    """`player, affiliation, pair`: two rows with the same marker are one team; rows without
    a marker are singles, paired at the draw."""

    player: str = pa.Field(nullable=False)
    affiliation: str = pa.Field(nullable=True)
    pair: str = pa.Field(nullable=True)

    class Config:
        strict = "filter"
        coerce = False
