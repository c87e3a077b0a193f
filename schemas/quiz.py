"""Quiz (掼蛋测试题) scores, seed 004's last tiebreak: score, then time."""

from schemas import checks
from schemas._pandera import pa


class QuizSheet(pa.DataFrameModel):
    """`team_no, quiz_score, quiz_seconds`."""

    team_no: str = pa.Field(nullable=False)
    quiz_score: str = pa.Field(nullable=False)
    quiz_seconds: str = pa.Field(nullable=True)

    @pa.check("quiz_score", "quiz_seconds", name="number")
    def _number(cls, data):
        return checks.number(data)

    class Config:
        strict = "filter"
        coerce = False
