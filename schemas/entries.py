"""Registration: one row per team (pair)."""

from schemas._pandera import pa


class EntriesSheet(pa.DataFrameModel):
    """`team_no, team_name, player1, player2, affiliation`, and the players' association
    member ids `member1…member4` where given; team_no unique where given (a team without one
    gets it at the draw)."""

    team_no: str = pa.Field(nullable=True)
    team_name: str = pa.Field(nullable=True)
    player1: str = pa.Field(nullable=True)
    player2: str = pa.Field(nullable=True)
    player3: str = pa.Field(nullable=True)
    player4: str = pa.Field(nullable=True)
    affiliation: str = pa.Field(nullable=True)
    member1: str = pa.Field(nullable=True)
    member2: str = pa.Field(nullable=True)
    member3: str = pa.Field(nullable=True)
    member4: str = pa.Field(nullable=True)

    class Config:
        strict = "filter"
        coerce = False
