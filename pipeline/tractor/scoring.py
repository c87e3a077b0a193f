"""Tractor deal scoring and game replay (docs/rules/general.md §9). Pure.

>>> deal_change(0, 1, takeover=160, step=40)
('declarer', 5)
>>> deal_change(200, 2, takeover=160, step=40, trump_bonus=True)
('attackers', 3)
>>> deal_change(200, 2, takeover=160, step=40)
('attackers', 1)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from pipeline.base.levels import ACE, PASSED_A


def deal_change(points: int, trump_cards: int, takeover: int, step: int,
                trump_bonus: bool = False) -> tuple[str, int]:
    """Which side gains and how many levels, from the attackers' captured points.

    Below `takeover` the declarer gains takeover/step + 1 − ceil(points/step); from
    `takeover` on the attackers take over and gain floor((points − takeover)/step). With
    `trump_bonus` (seed 000: "报2张主…加2级", the ruleset's tractor.trump_bonus), trump
    declared or overturned with n ≥ 2 cards adds n levels to the side that gains.
    """
    bonus = trump_cards if trump_bonus and trump_cards >= 2 else 0
    if points < takeover:
        return "declarer", takeover // step + 1 - math.ceil(points / step) + bonus
    return "attackers", (points - takeover) // step + bonus


def deck_points(rules: dict) -> int:
    """Every counting card of the decks: 5, 10 and K, 100 points a deck.

    >>> deck_points({"decks": 3})
    300
    """
    return 100 * rules["decks"]


def bottom_points_max(rules: dict) -> int:
    """The most points the bottom can hold: its cards (`tractor.bottom_cards`) all 10 or K.

    >>> bottom_points_max({"decks": 3, "bottom_cards": 6})
    60
    """
    return min(deck_points(rules), 10 * rules["bottom_cards"])


def points_ceiling(rules: dict) -> int:
    """The most the defenders can score in a deal: every point of the decks, with the
    bottom's points (at most `bottom_points_max`) counted again for each multiple above one
    (抠底, up to `tractor.bottom_multiplier_max`).

    >>> points_ceiling({"decks": 3, "bottom_cards": 6, "bottom_multiplier_max": 2})
    360
    """
    return deck_points(rules) + bottom_points_max(rules) * (rules["bottom_multiplier_max"] - 1)


def points_refusal(rules: dict, in_play: int, bottom: int = 0, multiplier: int = 1) -> str | None:
    """Why these defenders' points cannot be (both languages), else None: the points in
    play and the bottom's each a multiple of 5, together no more than the decks hold, the
    bottom no more than its cards hold, the multiplier from 1 to the preset's largest.

    >>> points_refusal({"decks": 3, "bottom_cards": 6, "bottom_multiplier_max": 8}, 250, 30, 2)
    >>> points_refusal({"decks": 3, "bottom_cards": 6, "bottom_multiplier_max": 8}, 280, 30, 2)[:8]
    '防家得分与底牌分'
    """
    total, most = deck_points(rules), rules["bottom_multiplier_max"]
    if in_play % 5 or bottom % 5 or in_play < 0 or bottom < 0:
        return ("防家得分与底牌分应为 5 的倍数，不为负 the defenders' points and the bottom's "
                "are multiples of 5, not negative")
    if not 1 <= multiplier <= most:
        return (f"底牌倍数应在 1–{most} 之间 the bottom's multiplier is 1 to {most} "
                "(tractor.bottom_multiplier_max)")
    if bottom > bottom_points_max(rules):
        return (f"底牌分不超过 {bottom_points_max(rules)}（底牌 {rules['bottom_cards']} 张）"
                f" the bottom holds at most {bottom_points_max(rules)} points "
                f"({rules['bottom_cards']} cards)")
    if in_play + bottom > total:
        return (f"防家得分与底牌分合计不超过 {total}（{rules['decks']} 副牌的全部分数） the "
                f"points in play and the bottom's together are at most the decks' {total}")
    return None


def total_refusal(rules: dict, points: int) -> str | None:
    """Why a deal's recorded points (the bottom's multiple included) cannot be, else None.

    >>> total_refusal({"decks": 3, "bottom_cards": 6, "bottom_multiplier_max": 2}, 310)
    >>> total_refusal({"decks": 3, "bottom_cards": 6, "bottom_multiplier_max": 2}, 365)[:4]
    '得分应为'
    """
    most = points_ceiling(rules)
    if points % 5 or not 0 <= points <= most:
        return (f"得分应为 5 的倍数且不超过 {most}（{deck_points(rules)} 分加抠底的底牌倍数） "
                f"points must be a multiple of 5, at most {most} (the decks' "
                f"{deck_points(rules)} and the bottom's multiple)")
    return None


@dataclass(frozen=True)
class TractorDeal:
    """One deal. `lost_by`: a side that loses the deal by a penalty (its own scoring void;
    seed 000's wrong card, seed 002's late arrival). `level_changes`: (team, n) after the
    deal: n > 0 the team's opponents go up n levels, n < 0 the team steps down −n."""

    declarer: str
    points: int
    trump_cards: int = 1
    lost_by: str | None = None
    level_changes: tuple[tuple[str, int], ...] = ()


class DealError(ValueError):
    """A deal that cannot stand, with its index in the game's list."""

    def __init__(self, index: int, message: str):
        self.index = index
        super().__init__(message)


@dataclass
class GameState:
    levels: dict[str, int]
    declarer: str | None = None
    finished: bool = False
    deals: int = 0
    history: list[tuple[str, int]] = field(default_factory=list)


def play_deal(state: GameState, deal: TractorDeal, teams: tuple[str, str], start_level: int,
              takeover: int, step: int, trump_bonus: bool = False, index: int = 0) -> GameState:
    """Apply one deal to the game (in place) and return it: the one step that the deal
    sheet's replay and the table's phone sheet share. A deal by the wrong side, or after
    the game ended, is a DealError naming the deal (`index`)."""
    a, b = teams
    if state.finished:
        raise DealError(index, "本局已有一方打过A，不能再有这一盘 the game ended when a "
                               "side passed A")
    if deal.declarer not in (a, b):
        raise DealError(index, f"庄家 {deal.declarer} 不在本场 the declarer is not in "
                               "this match")
    if state.declarer is not None and deal.declarer != state.declarer:
        raise DealError(index, f"本盘应由 {state.declarer} 坐庄 this deal's declarer "
                               f"should be {state.declarer}")
    attackers = b if deal.declarer == a else a
    if deal.lost_by is not None:
        gainer, gain = (b if deal.lost_by == a else a), 0  # the penalty says how many
    else:
        side, gain = deal_change(deal.points, deal.trump_cards, takeover, step, trump_bonus)
        gainer = deal.declarer if side == "declarer" else attackers
    state.levels[gainer] += gain
    for team, change in deal.level_changes:
        if change > 0:
            state.levels[b if team == a else a] += change
        else:
            state.levels[team] = max(start_level, state.levels[team] + change)
    state.finished = max(state.levels.values()) > ACE
    for team in (a, b):
        state.levels[team] = min(state.levels[team], PASSED_A)
    state.declarer = gainer
    state.deals += 1
    state.history.append((gainer, gain))
    return state


def replay_game(
    deals: list[TractorDeal], teams: tuple[str, str], start_level: int, takeover: int,
    step: int, trump_bonus: bool = False,
) -> GameState:
    """Replay a game deal by deal; the game ends when a side passes A.

    The declarer side keeps the deal when it holds (the partner deals next); after a
    takeover the attackers declare. A deal by the wrong side, or after the game ended, is a
    DealError naming the deal.
    """
    state = GameState({team: start_level for team in teams})
    for index, deal in enumerate(deals):
        play_deal(state, deal, teams, start_level, takeover, step, trump_bonus, index)
    return state


def game_winner(a_level: int, b_level: int) -> str | None:
    """'a' or 'b': the side that passed A, else the side ahead when the clock ended it."""
    if a_level == b_level:
        return None
    return "a" if a_level > b_level else "b"
