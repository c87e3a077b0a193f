"""Guandan deal-level play (docs/rules/general.md §2): replaying a round deal by deal. Pure.

>>> replay([Deal("ew", 2), Deal("ew", 2), Deal("ns", 4)]).levels
{'ew': 8, 'ns': 3}
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.base.levels import ACE, LOWEST, PASSED_A

GAIN = {2: 3, 3: 2, 4: 1}  # partner finished 二游 / 三游 / 下游
SIDES = ("ew", "ns")
SIDE_WORDS = {"ew": "东西", "ns": "南北"}  # as a sheet writes the sides


@dataclass(frozen=True)
class Deal:
    """One deal: the side of 上游 and where its partner finished (2, 3 or 4)."""

    winner: str
    partner_finish: int


@dataclass
class RoundState:
    levels: dict[str, int] = field(default_factory=lambda: {s: LOWEST for s in SIDES})
    failed_a: dict[str, int] = field(default_factory=lambda: {s: 0 for s in SIDES})
    played_at: str | None = None  # whose level the next deal is played at (None: first deal)
    deals: int = 0
    finished: bool = False
    reached_at: dict[str, int] = field(default_factory=lambda: {s: 0 for s in SIDES})
    last_winner: str | None = None  # the side of 上游 in the last deal

    @property
    def first_to_level(self) -> str | None:
        """With equal levels, the side that reached that level first (seed 003: "以先到者为胜
        方"): the one whose level last changed in an earlier deal.

        >>> replay([Deal("ew", 2), Deal("ns", 2)]).first_to_level
        'ew'
        """
        ew, ns = self.reached_at["ew"], self.reached_at["ns"]
        if self.levels["ew"] != self.levels["ns"] or ew == ns:
            return None
        return "ew" if ew < ns else "ns"


def _other(side: str) -> str:
    return "ns" if side == "ew" else "ew"


def play(state: RoundState, deal: Deal, a_fail_limit: int = 0) -> RoundState:
    """Apply one deal to the round's state (in place) and return it."""
    if state.finished:
        raise ValueError("the round is over: a side has passed A")
    winner, loser = deal.winner, _other(deal.winner)
    at_winner = state.played_at in (None, winner)
    levels = state.levels
    before = dict(levels)
    if at_winner and levels[winner] == ACE:
        if deal.partner_finish != 4:
            levels[winner] = PASSED_A
            state.finished = True
        else:
            _fail_a(state, winner, a_fail_limit)
    elif levels[winner] < ACE:
        levels[winner] = min(ACE, levels[winner] + GAIN[deal.partner_finish])
    # a side at A winning at the other side's level gains nothing; its A is played next
    if not at_winner and levels[loser] == ACE:
        _fail_a(state, loser, a_fail_limit)
    state.played_at = winner
    state.deals += 1
    state.last_winner = winner
    for side in SIDES:
        if levels[side] != before[side]:
            state.reached_at[side] = state.deals
    return state


def _fail_a(state: RoundState, side: str, limit: int) -> None:
    state.failed_a[side] += 1
    if limit and state.failed_a[side] >= limit:
        state.levels[side] = LOWEST
        state.failed_a[side] = 0


def refusal(state: RoundState, max_deals: int = 0) -> str | None:
    """Why no further deal can follow `state` (in the organizer's words, both languages),
    else None: a side has passed A, or the round's deal limit is reached. The one check the
    deal sheet, the table's phone sheet and simulate share.

    >>> refusal(replay([Deal("ew", 2)] * 5)), refusal(RoundState(deals=8), max_deals=8)[:10]
    ('本轮已有一方过A结束，不能再有这一副 the round ended when a side passed A', '超过每轮最多 8 副')
    """
    if state.finished:
        return "本轮已有一方过A结束，不能再有这一副 the round ended when a side passed A"
    if max_deals and state.deals >= max_deals:
        return f"超过每轮最多 {max_deals} 副 beyond the deal limit of the round"
    return None


@dataclass(frozen=True)
class TableResult:
    """A table's result as the ranking counts it, from its deals: both levels, the deals
    played, and what decides equal levels (the side that reached the level first, the side
    of 上游 in the last deal)."""

    ew_level: int
    ns_level: int
    deals: int
    first_to_level: str | None
    last_deal_side: str | None


def result(state: RoundState) -> TableResult:
    return TableResult(state.levels["ew"], state.levels["ns"], state.deals,
                       state.first_to_level, state.last_winner)


def replay(deals: list[Deal], a_fail_limit: int = 0, max_deals: int = 0) -> RoundState:
    """Replay a round's deals; raises ValueError for a deal after the round has ended."""
    state = RoundState()
    for deal in deals:
        why = refusal(state, max_deals)
        if why:
            raise ValueError(why)
        play(state, deal, a_fail_limit)
    return state
