"""Quiz (掼蛋测试题) scores, seed 004's last tiebreak: score, then time."""

from schemas import checks
from schemas._pandera import pa


class QuizSheet(pa.DataFrameModel):
    """`team_no, quiz_score, quiz_seconds`."""

    team_no: str = pa.Field(nullable=False)
    quiz_score: str = pa.Field(nullable=False)
    quiz_seconds: str = pa.Field(nullable=True)

    @pa.check("quiz_score", name=checks.number_name(*checks.QUIZ_SCORE))
    def _score(cls, data):
        return checks.number(data, *checks.QUIZ_SCORE)

    @pa.check("quiz_seconds", name=checks.number_name(*checks.QUIZ_SECONDS))
    def _seconds(cls, data):
        return checks.number(data, *checks.QUIZ_SECONDS)

    class Config:
        strict = "filter"
        coerce = False
