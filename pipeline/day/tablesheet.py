"""The table's own score sheet (issue 42), pure: the deals a table's recorder enters one by
one (seed 001: "坐南家运动员负责记录，坐东西向运动员负责记录复查"), each confirmed or disputed by
the other side, read into both sides' levels after every deal by the same replay as the
deal sheet and simulate (`pipeline.ranking.deals`), an impossible entry refused with its
reason, a deal final once confirmed or after the preset's minutes without objection, and
the table's result once the round is over and every deal is final.

>>> at = dt.datetime(2026, 5, 1, 14, 0)
>>> sheet = read([Entry(1, Deal("ew", 2), "confirmed", at), Entry(2, Deal("ns", 4), "entered", at)],
...              {"max_deals": 8, "a_fail_limit": 0}, confirm_minutes=3, now=at)
>>> [(line.number, line.ew_level, line.ns_level, line.final) for line in sheet.lines]
[(1, 5, 2, True), (2, 5, 3, False)]
>>> sheet.result is None, check_entry(sheet, 3, "ew", 5)
(True, '搭档名次应为二游、三游或下游 the partner finished second, third or last')
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass

from pipeline.ranking.deals import (
    GAIN,
    SIDE_WORDS,
    SIDES,
    Deal,
    RoundState,
    TableResult,
    play,
    refusal,
    result,
)

STATUSES = ("entered", "confirmed", "disputed")


@dataclass(frozen=True)
class Entry:
    """One deal as the recorder entered it, and where it stands with the other side."""

    number: int
    deal: Deal
    status: str  # entered | confirmed | disputed
    entered_at: dt.datetime


@dataclass(frozen=True)
class Line:
    """One line of the sheet as both phones show it: the deal and the levels after it."""

    number: int
    winner: str
    partner_finish: int
    ew_level: int
    ns_level: int
    status: str
    final: bool
    entered_at: dt.datetime | None = None


@dataclass(frozen=True)
class Sheet:
    lines: tuple[Line, ...]
    state: RoundState
    over: str | None  # why no further deal can be entered (the round is over), else None
    disputed: int | None  # the first disputed deal: the sheet waits for the referee
    result: TableResult | None  # the table's result, once over and every deal final


def is_final(entry: Entry, now: dt.datetime, confirm_minutes: float) -> bool:
    """Confirmed by the other side, or entered `confirm_minutes` ago without objection (0:
    only a confirmation makes it final)."""
    if entry.status == "confirmed":
        return True
    return (entry.status == "entered" and confirm_minutes > 0
            and now - entry.entered_at >= dt.timedelta(minutes=confirm_minutes))


def read(entries: list[Entry], rules: dict, confirm_minutes: float, now: dt.datetime,
         last_deal: int | None = None) -> Sheet:
    """The sheet from its entries (in deal order, numbered 1, 2, 3 …) under the preset's
    deal rules (`max_deals`, `a_fail_limit`). `last_deal`: the number of the last deal the
    clock allows (time is up: the deal in play is the last), else None."""
    state = RoundState()
    lines = []
    for entry in sorted(entries, key=lambda e: e.number):
        play(state, entry.deal, rules["a_fail_limit"])
        lines.append(Line(entry.number, entry.deal.winner, entry.deal.partner_finish,
                          state.levels["ew"], state.levels["ns"], entry.status,
                          is_final(entry, now, confirm_minutes), entry.entered_at))
    over = refusal(state, rules["max_deals"])
    if over is None and last_deal is not None and state.deals >= last_deal:
        over = "时间到，最后一副已记 time is up: the last deal is recorded"
    disputed = next((line.number for line in lines if line.status == "disputed"), None)
    done = over is not None and disputed is None and all(line.final for line in lines)
    return Sheet(tuple(lines), state, over, disputed, result(state) if done else None)


def stamp(lines, takeoffs: int = 0) -> str:
    """The mark of the recorder's form for the next deal: the sheet's tail as the form was
    drawn — the deal it enters, the deal before it as entered, and how many deals were ever
    taken off the sheet. It does not change when the other side answers an earlier deal (the
    next deal is still taken), and it always changes when a deal is taken off (issue 49: a
    reload re-sending a deal the referee took off, a stale second phone, is refused).

    >>> at = dt.datetime(2026, 5, 1, 14, 0)
    >>> entered = [Line(1, "ew", 2, 5, 2, "entered", False, at)]
    >>> answered = [Line(1, "ew", 2, 5, 2, "confirmed", True, at)]
    >>> stamp(entered) == stamp(answered), stamp([]) == stamp([], takeoffs=1)
    (True, False)
    """
    last = lines[-1] if lines else None
    seen = (f"{len(lines) + 1}:{takeoffs}:"
            f"{last.entered_at.isoformat() if last and last.entered_at else ''}")
    return hashlib.sha256(seen.encode()).hexdigest()[:10]


def deal_stamp(number: int, entered_at: dt.datetime | None) -> str:
    """A short mark of one deal as entered: an answer sent again after the deal was taken
    off and entered anew is refused."""
    seen = f"{number}:{entered_at.isoformat() if entered_at else ''}"
    return hashlib.sha256(seen.encode()).hexdigest()[:10]


STALE = ("记分表在这一{unit}之前已有变化（裁判撤下了一{unit}，或另一部手机已记了这一{unit}），请看清后"
         "重新填写 the sheet changed before this deal (the referee took a deal off, or another "
         "phone entered it): check it and enter the deal again")  # .format(unit=副 or 盘)


ANSWER_STALE = ("这一{unit}已被撤下并重新记录，请看清后再确认 this deal was taken off and entered "
                "again since the form was shown: check it before answering")  # the same


def next_deal_refusal(disputed: int | None, over: str | None, recorded: int, number: int,
                      unit: str) -> str | None:
    """Why no deal `number` can be entered on a sheet now, whatever the game (both sheets):
    a dispute waits for the referee, the round or match is over, or it is not the next deal.
    `unit`: 副 (Guandan) or 盘 (Tractor)."""
    if disputed is not None:
        return (f"第 {disputed} {unit}有异议，等待裁判裁定 deal {disputed} is disputed: the "
                "referee decides first")
    if over:
        return over
    expected = recorded + 1
    if number != expected:
        return f"下一{unit}应是第 {expected} {unit} the next deal is deal {expected}"
    return None


def check_entry(sheet: Sheet, number: int, winner: str, partner_finish: int) -> str | None:
    """Why this deal cannot be entered now (both languages), else None: it is not the next
    deal, the sheet waits for a disputed deal's ruling, the round is over, or the entry is
    not a deal."""
    why = next_deal_refusal(sheet.disputed, sheet.over, len(sheet.lines), number, "副")
    if why:
        return why
    if winner not in SIDES:
        return "上游应为东西或南北 the side of 上游 is East-West or North-South"
    if partner_finish not in GAIN:
        return "搭档名次应为二游、三游或下游 the partner finished second, third or last"
    return None


def deal_rows(entries: list[Entry], round_no: int, table_no: int) -> list[dict]:
    """The entries as rows of the `deals` sheet kind (its code names): the table's result is
    stored through the same path as an uploaded deal sheet."""
    return [{"round": round_no, "table": table_no, "deal": e.number,
             "winner_side": SIDE_WORDS[e.deal.winner], "partner_finish": str(e.deal.partner_finish)}
            for e in sorted(entries, key=lambda e: e.number)]
