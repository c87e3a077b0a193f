"""A Tractor match's own score sheet (issue 42), pure: the deals the recorder's side enters
one by one — the declarer (庄家), the defenders' points (防家得分, the bottom's points times
its multiplier added when the defenders take the last trick), the trump cards shown where
the preset counts them, or a deal ruled lost — each confirmed or disputed by the other side,
read into both sides' levels after every deal by the same step as the Tractor deal sheet
(`pipeline.tractor.scoring.play_deal`, a ruled deal through `penalised_deal`), game after
game until a side has won the match or the clock ends it (docs/rules/general.md §9).

The sides are the match's teams: "a" (the first drawn) and "b".

>>> at = dt.datetime(2026, 5, 1, 14, 0)
>>> rules = {"decks": 4, "takeover": 160, "step": 40, "start_level": 3, "games_to_win": 2,
...          "trump_bonus": False, "level_at_time": "play_on",
...          "bottom_cards": 8, "bottom_multiplier_max": 8}
>>> sheet = read([TractorEntry(1, "a", 30, status="confirmed", entered_at=at),
...               TractorEntry(2, "a", 170, entered_at=at)], rules, 0, at)
>>> [(line.game, line.declarer, line.gainer, line.gain, line.a_level, line.b_level)
...  for line in sheet.lines]
[(1, 'a', 'a', 4, 7, 3), (1, 'a', 'b', 0, 7, 3)]
>>> sheet.next_declarer, sheet.result is None
('b', True)
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from pipeline.day.tablesheet import is_final, next_deal_refusal
from pipeline.tractor.checks import Penalty, level_winner, penalised_deal
from pipeline.tractor.scoring import (
    GameState,
    TractorDeal,
    play_deal,
    points_ceiling,
    points_refusal,
)

SIDES = ("a", "b")

@dataclass(frozen=True)
class TractorEntry:
    """One deal as the recorder entered it (numbered through the match: 1, 2, 3 …), and
    where it stands with the other side. A ruled deal (`lost_by`): that side loses the deal
    and its opponents go up `ruled_levels` (seed 000: a card found wrong after its trick,
    "本盘判负、对方升 3 级")."""

    number: int
    declarer: str
    points: int
    trump_cards: int = 1
    lost_by: str | None = None
    ruled_levels: int = 0
    status: str = "entered"
    entered_at: dt.datetime = dt.datetime(2000, 1, 1)

    def deal(self, total: int) -> TractorDeal:
        """The deal as the game's replay takes it (the deal sheet's own penalty reading)."""
        ruled = [Penalty(self.lost_by, 0, self.ruled_levels, True)] if self.lost_by else []
        return penalised_deal(self.declarer, self.points, self.trump_cards, ruled, total)


@dataclass(frozen=True)
class TractorLine:
    """One line of the sheet: the deal, who went up and by how much (a ruling's levels
    included, capped at 过A), both levels after it."""

    number: int
    game: int
    deal_in_game: int
    declarer: str
    points: int
    lost_by: str | None
    gainer: str
    gain: int
    a_level: int
    b_level: int
    status: str
    final: bool
    entered_at: dt.datetime | None = None


@dataclass(frozen=True)
class Game:
    """A game that counts: its number, both levels at its end, the winner and its deals."""

    number: int
    a_level: int
    b_level: int
    winner: str
    deals: tuple[int, ...]  # the match's deal numbers in this game


@dataclass(frozen=True)
class MatchResult:
    games: tuple[Game, ...]
    winner: str
    time_winner: str | None  # the side ahead when the clock ended the match (its game in
    # play not counted, seed 000's reading), else None: the games decide it


@dataclass(frozen=True)
class MatchSheet:
    lines: tuple[TractorLine, ...]
    games: tuple[Game, ...]  # the games that count so far
    game: int  # the game in play (or the last one)
    levels: dict[str, int]  # both levels in the game in play (or at the end of the last)
    wins: dict[str, int]
    next_declarer: str | None  # whose deal comes next (None: the recorder says who declares)
    over: str | None  # why no further deal can be entered, else None
    disputed: int | None
    winner: str | None  # once over
    time_winner: str | None
    result: MatchResult | None  # once over and every deal final


def _side(side: str) -> str:
    return {"a": "A", "b": "B"}[side]


def read(entries: list[TractorEntry], rules: dict, confirm_minutes: float, now: dt.datetime,
         last_deal: int | None = None) -> MatchSheet:
    """The sheet from its entries under the preset's Tractor rules (`decks`, `takeover`,
    `step`, `start_level`, `games_to_win`, `trump_bonus`, `level_at_time`). `last_deal`: the
    number of the match's last deal the clock allows once its time is up, else None."""
    total = points_ceiling(rules)
    wins = {side: 0 for side in SIDES}
    games: list[Game] = []
    lines: list[TractorLine] = []
    state = GameState({side: rules["start_level"] for side in SIDES})
    in_game: list[int] = []
    decided = None
    for index, entry in enumerate(sorted(entries, key=lambda e: e.number)):
        before = dict(state.levels)
        play_deal(state, entry.deal(total), SIDES, rules["start_level"], rules["takeover"],
                  rules["step"], rules["trump_bonus"], index)
        in_game.append(entry.number)
        gainer = state.history[-1][0]
        gain = state.levels[gainer] - before[gainer]  # a ruling's levels included
        lines.append(TractorLine(entry.number, len(games) + 1, len(in_game), entry.declarer,
                                 entry.points, entry.lost_by, gainer, gain, state.levels["a"],
                                 state.levels["b"], entry.status,
                                 is_final(entry, now, confirm_minutes),  # type: ignore[arg-type]
                                 entry.entered_at))
        if state.finished:
            winner = "a" if state.levels["a"] > state.levels["b"] else "b"
            games.append(Game(len(games) + 1, state.levels["a"], state.levels["b"], winner,
                              tuple(in_game)))
            wins[winner] += 1
            if wins[winner] >= rules["games_to_win"]:
                decided = winner
                break
            state, in_game = GameState({side: rules["start_level"] for side in SIDES}), []
    levels = dict(state.levels)
    over, time_winner = None, None
    if decided:
        over = (f"本场已结束：{_side(decided)} 方 {wins[decided]}–{wins[_other(decided)]} 获胜 "
                f"the match is decided: side {_side(decided)} won")
    elif last_deal is not None and len(lines) >= last_deal:
        decided, counted = _at_time(state, in_game, wins, rules, lines)
        if counted is not None:
            games.append(counted)
            wins[counted.winner] += 1
        if decided:
            time_winner = decided if counted is None else None
            over = (f"时间到：{_side(decided)} 方领先获胜 time is up: side {_side(decided)} "
                    "was ahead and wins")
    disputed = next((line.number for line in lines if line.status == "disputed"), None)
    done = over is not None and disputed is None and all(line.final for line in lines)
    result = MatchResult(tuple(games), decided, time_winner) if done and decided else None
    in_play = max(len(games), 1) if over else len(games) + 1
    return MatchSheet(tuple(lines), tuple(games), in_play,
                      levels, wins, None if over or not in_game else state.declarer, over,
                      disputed, decided, time_winner, result)


def _other(side: str) -> str:
    return "b" if side == "a" else "a"


def _at_time(state: GameState, in_game: list[int], wins: dict[str, int], rules: dict,
             lines: list[TractorLine]) -> tuple[str | None, Game | None]:
    """Who wins when the clock ends the match, and the game in play when it counts.
    `level_at_time = "last_deal"` (seed 002: the round simply ends): the game in play ends
    with its last deal and counts (the side ahead, at equal levels the last deal's winner);
    "play_on" (seed 000): more games won, else the side ahead in the game in play, else
    play goes on (None) until one side leads."""
    a, b = state.levels["a"], state.levels["b"]
    if rules["level_at_time"] == "last_deal":
        if in_game:
            winner = level_winner(a, b, rules, state, teams=SIDES)
            game = Game(len(lines) and lines[-1].game, a, b, winner, tuple(in_game))
            after = {**wins, winner: wins[winner] + 1}
            if after["a"] != after["b"]:
                return ("a" if after["a"] > after["b"] else "b"), game
            return winner, game
        if wins["a"] != wins["b"]:
            return ("a" if wins["a"] > wins["b"] else "b"), None
        return (lines[-1].gainer if lines else None), None
    if wins["a"] != wins["b"]:
        return ("a" if wins["a"] > wins["b"] else "b"), None
    if in_game and a != b:
        return ("a" if a > b else "b"), None
    return None, None


def check_entry(sheet: MatchSheet, rules: dict, number: int, declarer: str, points: int,
                trump_cards: int = 1, lost_by: str | None = None, ruled_levels: int = 0,
                bottom: int = 0, multiplier: int = 1) -> str | None:
    """Why this deal cannot be entered now (both languages), else None. `points`: the
    defenders' points in play; `bottom` and `multiplier`: the bottom's points and their
    multiple when the defenders took the last trick (抠底), counted on top
    (`scoring.points_refusal` says what can be)."""
    why = next_deal_refusal(sheet.disputed, sheet.over, len(sheet.lines), number, "盘")
    if why:
        return why
    if declarer not in SIDES:
        return "庄家应为 A 方或 B 方 the declarer is side A or side B"
    if sheet.next_declarer is not None and declarer != sheet.next_declarer:
        return (f"本盘应由 {_side(sheet.next_declarer)} 方坐庄 this deal's declarer is side "
                f"{_side(sheet.next_declarer)}")
    if lost_by is not None:
        if lost_by not in SIDES:
            return "判负方应为 A 方或 B 方 the side that loses the deal is A or B"
        if not 0 <= ruled_levels <= 13:
            return "对方升级数应在 0–13 之间 the opponents go up 0 to 13 levels"
        return None
    why = points_refusal(rules, points, bottom, multiplier)
    if why:
        return why
    if not 1 <= trump_cards <= rules["decks"]:
        return (f"报主张数应在 1–{rules['decks']} 之间 the trump cards shown are 1 to "
                f"{rules['decks']}")
    return None


def game_rows(entries: list[TractorEntry], result: MatchResult, stage: str, match_no: int,
              teams: tuple[str, str]) -> tuple[list[dict], list[dict], list[dict]]:
    """The match as the Tractor sheet kinds' rows (their code names): the counted games'
    deals (`tractor_deals`), the ruled deals (`point_penalties`), and the clock's decision
    when it ended the match (`matches`, 到时领先方): stored through the same path as
    uploaded sheets."""
    team = dict(zip(SIDES, teams, strict=True))
    by_number = {e.number: e for e in entries}
    deals, ruled = [], []
    for game in result.games:
        for n, number in enumerate(game.deals, start=1):
            e = by_number[number]
            deals.append({"stage": stage, "match": match_no, "game": game.number, "deal": n,
                          "declarer_team": team[e.declarer], "points": e.points,
                          "trump_cards": e.trump_cards})
            if e.lost_by:
                ruled.append({"stage": stage, "match": match_no, "game": game.number,
                              "deal": n, "team_no": team[e.lost_by], "points": 0,
                              "levels": e.ruled_levels, "deal_lost": "是",
                              "reason": "桌上裁定 ruled at the table"})
    decision = [{"stage": stage, "match": match_no, "team_a": teams[0], "team_b": teams[1],
                 "time_winner": team[result.time_winner]}] if result.time_winner else []
    return deals, ruled, decision

