"""The penalty ladder a table referee applies (docs/rules/general.md §12, seed 001 十一 第3条: 口头警告 → 警告 →
记违例 → 降级（或对方升级）→ 判负 → 停赛; seed 003: three fouls lose the round), pure: a
team's records in a round counted under the preset's settings (`scoring.
warnings_per_violation`, `violation_limit`, `foul_limit`), and whether they reach the round
lost — which the chief arbiter rules on before the ranking counts it.

>>> rules = {"warnings_per_violation": 2, "violation_limit": 3, "foul_limit": 0}
>>> count(["warning", "warning"], rules)
Count(verbal=0, warnings=2, violations=1, fouls=0, out=False)
>>> count(["warning", "warning", "violation", "slow_play", "violation"], rules).out
True
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

# what a referee records at a table (late arrivals go through the preset's late ladder)
KINDS = ("verbal", "warning", "slow_play", "violation", "foul")
WORDS = {"verbal": "口头警告 verbal warning", "warning": "警告 warning",
         "slow_play": "慢打（警告） slow play (a warning)", "violation": "违例 violation",
         "foul": "犯规 foul", "late": "迟到 late"}
# what decides a deal or a game: the chief arbiter's to rule (a referee only proposes)
RULINGS = ("ruled_loss", "levels_down", "opponent_up", "forfeit", "suspension")
RULING_WORDS = {"ruled_loss": "判负 round lost", "levels_down": "降级 levels down",
                "opponent_up": "对方升级 opponents up", "forfeit": "弃权 forfeit",
                "suspension": "停赛 suspension"}


@dataclass(frozen=True)
class Count:
    """A team's count in a round: warnings (slow play is one), violations (recorded, and
    one for every `warnings_per_violation` warnings), fouls, and whether the round is lost
    by them."""

    verbal: int
    warnings: int
    violations: int
    fouls: int
    out: bool


def count(records: list[str], rules: dict) -> Count:
    verbal = records.count("verbal")
    warnings = records.count("warning") + records.count("slow_play")
    per = rules["warnings_per_violation"]
    violations = records.count("violation") + (warnings // per if per else 0)
    fouls = records.count("foul")
    out = bool(rules["violation_limit"] and violations >= rules["violation_limit"]) or \
        bool(rules["foul_limit"] and fouls >= rules["foul_limit"])
    return Count(verbal, warnings, violations, fouls, out)


def suspends(ruled_losses: int, rules: dict) -> bool:
    """Whether this many rounds lost by ruling suspend the team (seed 001: "兩次判負要判停賽":
    `suspend_after_ruled_losses` = 2; 0: never).

    >>> suspends(2, {"suspend_after_ruled_losses": 2}), suspends(5, {"suspend_after_ruled_losses": 0})
    (True, False)
    """
    limit = rules["suspend_after_ruled_losses"]
    return bool(limit) and ruled_losses >= limit


def majority(votes: list[bool], members: int) -> bool | None:
    """The committee's decision by simple majority of its members: True (upheld), False
    (dismissed), or None while neither side has a majority.

    >>> majority([True, True], 3), majority([True, False], 3), majority([False, False], 3)
    (True, None, False)
    """
    needed = members // 2 + 1
    if votes.count(True) >= needed:
        return True
    if votes.count(False) >= needed or (members and len(votes) >= members):
        return False
    return None


def local_time(stored: dt.datetime, seconds: bool = False) -> str:
    """A stored time (naive UTC) as the hall's clock shows it (this machine's time zone).

    >>> len(local_time(dt.datetime(2026, 5, 1, 6, 30)))
    5
    """
    shown = stored.replace(tzinfo=dt.UTC).astimezone()
    return shown.strftime("%H:%M:%S" if seconds else "%H:%M")


def parse_tables(text: str | None) -> set[int] | None:
    """A referee's tables as given (`1-20`, `1,3,5-8`); None or empty: every table.

    >>> sorted(parse_tables("1-3,7")), parse_tables("")
    ([1, 2, 3, 7], None)
    """
    if not text or not text.strip():
        return None
    found: set[int] = set()
    for part in text.replace("，", ",").split(","):
        part = part.strip()
        if not part:
            continue
        low, _, high = part.partition("-")
        if not low.strip().isdigit() or (high and not high.strip().isdigit()):
            raise ValueError(f"桌号范围写法不对 not a table range: {part}")
        a, b = int(low), int(high or low)
        if a < 1 or b < a or b - a > 10_000:
            raise ValueError(f"桌号范围写法不对 not a table range: {part}")
        found.update(range(a, b + 1))
    return found


# a ruling's and an appeal's status as said (the officials' report, a refusal)
STATUS_WORDS = {"proposed": "待裁定 proposed", "confirmed": "已裁定 confirmed",
                "rejected": "驳回 rejected", "reversed": "申诉成立已撤销 reversed on appeal",
                "open": "待仲裁 open", "upheld": "申诉成立 upheld",
                "dismissed": "驳回 dismissed", "refused_late": "逾期不受理 refused: late"}
