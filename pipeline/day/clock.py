"""The round clock: one per event and round, kept as start, pauses and adjustments, so every
screen and command computes the same remaining time from the server's clock. Pure.

>>> c = Clock(round_minutes=45, reminder_at_minutes=40, started_at=0.0)
>>> s = c.status(now=41 * 60)
>>> s.state, s.remaining_seconds
('reminder', 240)
>>> c.pause(now=41 * 60).resume(now=50 * 60).status(now=50 * 60).remaining_seconds
240
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

STATES = ("not_started", "running", "paused", "reminder", "time_up", "stopped")


@dataclass(frozen=True)
class ClockStatus:
    round: int
    state: str
    remaining_seconds: int
    elapsed_seconds: int
    round_minutes: int

    def as_dict(self) -> dict:
        return {"round": self.round, "state": self.state,
                "remaining_seconds": self.remaining_seconds,
                "elapsed_seconds": self.elapsed_seconds, "round_minutes": self.round_minutes}


@dataclass(frozen=True)
class Clock:
    """Times are seconds on the server's clock (epoch seconds in the database)."""

    round_minutes: int
    reminder_at_minutes: int = 0
    round: int = 1
    started_at: float | None = None
    paused_at: float | None = None
    paused_seconds: float = 0.0
    added_seconds: float = 0.0
    stopped_at: float | None = None

    def start(self, now: float) -> Clock:
        if self.started_at is not None:
            raise ValueError("the clock is already started")
        return replace(self, started_at=now)

    def pause(self, now: float) -> Clock:
        if self.started_at is None or self.paused_at is not None or self.stopped_at is not None:
            raise ValueError("the clock is not running")
        return replace(self, paused_at=now)

    def resume(self, now: float) -> Clock:
        if self.paused_at is None:
            raise ValueError("the clock is not paused")
        return replace(self, paused_at=None, paused_seconds=self.paused_seconds +
                       (now - self.paused_at))

    def add_minutes(self, minutes: float) -> Clock:
        return replace(self, added_seconds=self.added_seconds + 60 * minutes)

    def stop(self, now: float) -> Clock:
        if self.started_at is None:
            raise ValueError("the clock is not started")
        return replace(self, stopped_at=now)

    def time_up_at(self, now: float) -> float | None:
        """When the round's time ran out (or the clock was stopped), if it has by `now`.

        >>> c = Clock(round_minutes=45, started_at=0.0).add_minutes(2)
        >>> c.time_up_at(now=46 * 60), c.time_up_at(now=50 * 60), c.stop(now=600).time_up_at(601)
        (None, 2820.0, 600)
        """
        if self.started_at is None:
            return None
        if self.stopped_at is not None:
            return self.stopped_at
        if self.paused_at is not None:
            return None
        end = (self.started_at + self.paused_seconds + self.round_minutes * 60
               + self.added_seconds)
        return end if end <= now else None

    def status(self, now: float) -> ClockStatus:
        total = self.round_minutes * 60 + self.added_seconds
        if self.started_at is None:
            return ClockStatus(self.round, "not_started", max(0, math.ceil(total)), 0,
                               self.round_minutes)
        until = self.stopped_at or self.paused_at or now
        paused = self.paused_seconds
        elapsed = max(0.0, until - self.started_at - paused)
        remaining = total - elapsed
        if self.stopped_at is not None:
            state = "stopped"
        elif remaining <= 0:
            state = "time_up"
        elif self.paused_at is not None:
            state = "paused"
        elif self.reminder_at_minutes and remaining <= (self.round_minutes -
                                                        self.reminder_at_minutes) * 60:
            state = "reminder"
        else:
            state = "running"
        return ClockStatus(self.round, state, max(0, math.ceil(remaining)), int(elapsed),
                           self.round_minutes)


@dataclass(frozen=True)
class LateAction:
    action: str  # warning | penalty | forfeit_game | forfeit_round | no_sanction | none
    target: str | None = None
    amount: int = 0
    violations: int = 0  # recorded with a warning ("警告，违例一次": 1)

    def describe(self, minutes: float) -> str:
        warning = "警告，违例一次 warning and one violation" if self.violations else "警告 warning"
        words = {"warning": warning, "penalty": f"罚 {self.amount}（{self.target}） penalty",
                 "forfeit_game": "首局判负 first game forfeited",
                 "forfeit_round": "本轮弃权 the round is forfeited",
                 "no_sanction": "不处罚 no sanction",
                 "none": "规则的迟到规定未覆盖，请裁判裁定 the ruleset's late ladder does not "
                         "cover this: the referee must rule"}
        return f"迟到 {minutes:g} 分钟：{words[self.action]}"


def rung_bound(rung: dict) -> float:
    """Where a rung of the late ladder ends: `up_to` (inclusive) or `below` (exclusive)."""
    return rung["up_to"] if "up_to" in rung else rung["below"]


def late_action(ladder: list[dict], minutes: float) -> LateAction:
    """The first rung of the ladder that covers the lateness: `up_to` minutes inclusive,
    or `below` minutes exclusive ("迟到15分钟，该轮比赛弃权": below 15 nothing, 15 forfeits).

    >>> ladder = [{"up_to": 5, "action": "warning"}, {"up_to": 10, "action": "penalty",
    ...            "target": "points", "amount": 20}]
    >>> late_action(ladder, 5).action, late_action(ladder, 5.5).amount, late_action(ladder, 11)
    ('warning', 20, LateAction(action='none', target=None, amount=0, violations=0))
    >>> seed_001 = [{"below": 15, "action": "no_sanction"},
    ...             {"up_to": 100000, "action": "forfeit_round"}]
    >>> late_action(seed_001, 14.5).action, late_action(seed_001, 15).action
    ('no_sanction', 'forfeit_round')
    """
    for rung in sorted(ladder, key=lambda r: (rung_bound(r), "up_to" in r)):
        if minutes < rung["below"] if "below" in rung else minutes <= rung["up_to"]:
            return LateAction(rung["action"], rung.get("target"), int(rung.get("amount", 0)),
                              int(rung.get("violations", 0)))
    return LateAction("none")
