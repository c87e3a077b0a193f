"""Checking Tractor sheets — games, deals and point penalties — against the drawn matches and
the ruleset: pure (the context is read by `pipeline.tractor.sheets.load`). Each check names
the row and column as the foundation's checks do; the deal replay is the pure
`pipeline.tractor.scoring`."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from pipeline.base.errors import Problem
from pipeline.base.levels import PASSED_A, format_level
from pipeline.tractor.scoring import (
    DealError,
    TractorDeal,
    game_winner,
    points_ceiling,
    replay_game,
    total_refusal,
)


@dataclass(frozen=True)
class Penalty:
    """One penalty of a deal against `team_no` (see schemas.tractor.PointPenaltiesSheet)."""

    team_no: str
    points: int = 0
    levels: int = 0
    deal_lost: bool = False
    choice: str | None = None  # "levels" or "points": the other is not applied


@dataclass(frozen=True)
class TractorContext:
    matches: dict[tuple[str, int], tuple[str, str | None, str]]  # → team_a, team_b, kind
    games: dict[tuple[str, int, int], tuple[int, int, str, bool]]  # → a, b, winner, from_deals
    penalties: dict[tuple[str, int, int, int], list[Penalty]]


def _drawn(row: dict, context, where, problems: list[Problem]):
    key = (row["stage"], row["match_no"])
    found = context.tractor.matches.get(key)
    if found is None:
        problems.append(where.problem(row, "match", row["match_no"],
                                      f"“{row['stage']}” 没有抽出这一场 no such drawn match "
                                      "in that stage"))
    return found


DECIDING = ("forfeit", "disqualified", "time_winner")  # columns that decide without a game


def _decisions(typed: pl.DataFrame, context, where, problems: list[Problem]) -> list[dict]:
    """Rows that decide a match without play: the team that forfeited or was disqualified,
    or the team ahead when the match clock ran out (seed 000: "1.5小時結束時領先隊獲勝"; our
    reading: games won first, then the levels of the game in play — the preset says so).
    Each is stored as the side the decision goes against."""
    out = []
    for row in typed.filter(pl.any_horizontal(pl.col(c).is_not_null() for c in DECIDING)) \
            .iter_rows(named=True):
        code = next(c for c in DECIDING if row[c])
        found = _drawn(row, context, where, problems) if row["match_no"] else None
        if found is None:
            continue
        if row[code] not in found[:2] or (code == "time_winner" and found[1] is None):
            problems.append(where.problem(row, code, row[code],
                                          f"这一场是 {found[0]} 对 {found[1]} the team is not "
                                          "in this match"))
            continue
        against = row[code]
        if code == "time_winner":
            against = found[1] if row[code] == found[0] else found[0]
        out.append({"stage": row["stage"], "match_no": row["match_no"], "team_no": against,
                    "decision": "time" if code == "time_winner" else code, "_row": row,
                    "_teams": found[:2]})
    return out


def _behind_on_games(decision: dict, games: list[dict], context) -> str:
    """Why the team named ahead at time-up cannot be (it won fewer games, or the match was
    decided by its games already), else ''. `games`: this sheet's games, with the stored."""
    key = (decision["stage"], decision["match_no"])
    won = {n: w for (s, m, n), (_, _, w, _) in context.tractor.games.items() if (s, m) == key}
    won |= {g["game"]: g["winner"] for g in games if (g["stage"], g["match_no"]) == key}
    wins = {"a": list(won.values()).count("a"), "b": list(won.values()).count("b")}
    if max(wins.values()) >= context.ruleset.tractor["games_to_win"]:
        return (f"比分已是 {wins['a']}–{wins['b']}，本场已结束 the match was already decided "
                "by its games")
    named = decision["_row"]["time_winner"]
    own, other = ("a", "b") if named == decision["_teams"][0] else ("b", "a")
    if wins[own] < wins[other]:
        return (f"到时局数 {wins['a']}–{wins['b']}，{named} 局数落后，不是领先方 the team named "
                "won fewer games: it was not ahead at time-up")
    return ""


def check_matches(typed: pl.DataFrame, context, where) -> tuple[pl.DataFrame, list[Problem]]:
    problems: list[Problem] = []
    rules = context.ruleset.tractor
    decided = _decisions(typed, context, where, problems)
    out = []
    seen: dict[tuple, dict] = {}
    played = typed.filter(pl.all_horizontal(pl.col(c).is_null() for c in DECIDING))
    for code in ("game", "a_level", "b_level"):
        for row in where.flagged(played, pl.col(code).is_null(), code):
            problems.append(where.problem(row, code, None, "必填：除非判弃权、取消资格或到时领先 "
                                                           "required (unless the match is "
                                                           "forfeited, a side disqualified or "
                                                           "it was decided by the clock)"))
    for row in played.iter_rows(named=True):
        if None in (row["stage"], row["match_no"], row["game"], row["a_level"], row["b_level"]):
            continue
        found = _drawn(row, context, where, problems)
        if found is None:
            continue
        team_a, team_b, _ = found
        given = {row["team_a"], row["team_b"]}
        if given != {team_a, team_b}:
            bad = "team_a" if row["team_a"] not in (team_a, team_b) else "team_b"
            problems.append(where.problem(row, bad, row[bad],
                                          f"这一场是 {team_a} 对 {team_b} the team is not in "
                                          "this match"))
            continue
        a, b = (row["a_level"], row["b_level"]) if row["team_a"] == team_a else \
            (row["b_level"], row["a_level"])
        if a == PASSED_A and b == PASSED_A:
            problems.append(where.problem(row, "b_level", "过A", "双方都过A是不可能的 both "
                                                                 "sides cannot pass A"))
            continue
        winner = level_winner(a, b, rules, named=row["winner"], teams=(team_a, team_b))
        if winner is None and rules["level_at_time"] == "last_deal":
            problems.append(where.problem(row, "winner", row["winner"],
                                          "级数相同：请在“胜方”列填最后一副的赢家 equal levels: "
                                          "name the side that won the last deal under 胜方"))
            continue
        if winner is None:
            problems.append(where.problem(row, "b_level", format_level(b),
                                          "一局结束时级数相同：应继续打到一方领先 equal levels "
                                          "at the end of a game: play goes on until one leads"))
            continue
        winner_team = team_a if winner == "a" else team_b
        if row["winner"] and row["winner"] not in (winner_team, winner):
            problems.append(where.problem(row, "winner", row["winner"],
                                          f"按级数胜方应为 {winner_team} the levels make "
                                          f"{winner_team} the winner"))
            continue
        key = (row["stage"], row["match_no"], row["game"])
        stored = context.tractor.games.get(key)
        if stored and stored[3] and stored[:2] != (a, b):
            problems.append(where.problem(row, "a_level", f"{a}/{b}",
                                          "与逐盘记分推算的结果不符 does not match the game "
                                          "replayed from its deals"))
            continue
        if key in seen:
            if (seen[key]["a"], seen[key]["b"]) != (a, b):
                problems.append(where.problem(row, "game", row["game"],
                                              "同一局报了两次且结果不同 the same game twice "
                                              "with different results"))
            continue
        seen[key] = {"a": a, "b": b}
        out.append({**row, "a_level": a, "b_level": b, "winner": winner})
    problems += _game_order(out, context, where, rules["games_to_win"])
    for decision in [d for d in decided if d["decision"] == "time"]:
        said = _behind_on_games(decision, out, context)
        if said:
            problems.append(where.problem(decision["_row"], "time_winner",
                                          decision["_row"]["time_winner"], said))
            decided.remove(decision)
    decided = [{k: v for k, v in d.items() if not k.startswith("_")} for d in decided]
    frame = pl.DataFrame(out, schema={**typed.schema, "winner": pl.String}) if out else \
        typed.head(0)
    decisions = pl.DataFrame(decided, schema={"stage": pl.String, "match_no": pl.Int64,
                                              "team_no": pl.String, "decision": pl.String})
    return frame.with_columns(pl.lit(False).alias("_decision")).pipe(
        lambda f: pl.concat([f, decisions.with_columns(pl.lit(True).alias("_decision"))],
                            how="diagonal_relaxed")), problems


def _game_order(rows: list[dict], context, where, games_to_win: int) -> list[Problem]:
    """Games 1, 2, 3 … with none after a side has won the match."""
    problems = []
    by_match: dict[tuple[str, int], dict[int, tuple[str, dict | None]]] = {}
    for (stage, match, game), stored in context.tractor.games.items():
        by_match.setdefault((stage, match), {})[game] = (stored[2], None)
    for row in rows:
        by_match.setdefault((row["stage"], row["match_no"]), {})[row["game"]] = (row["winner"],
                                                                                 row)
    for games in by_match.values():
        wins = {"a": 0, "b": 0}
        for number in sorted(games):
            winner, row = games[number]
            if row is not None and max(wins.values()) >= games_to_win:
                problems.append(where.problem(
                    row, "game", number, f"比分已是 {wins['a']}–{wins['b']}，本场已结束 the "
                    f"match was already decided"))
            elif row is not None and number > 1 and number - 1 not in games:
                problems.append(where.problem(row, "game", number,
                                              f"缺少第 {number - 1} 局 game {number - 1} is "
                                              "missing"))
            wins[winner] += 1
    return problems


def level_winner(a: int, b: int, rules: dict, state=None, named: str | None = None,
                 teams: tuple[str, str] | None = None) -> str | None:
    """'a' or 'b': the side ahead; at equal levels, under `level_at_time = "last_deal"`
    (seed 002: the round simply ends), the side that won the game's last deal — from the
    replayed deals (`state`), or as the sheet's 胜方 names it (`named`); else None (seed
    000: play goes on until one side leads)."""
    winner = game_winner(a, b)
    if winner is not None or rules["level_at_time"] != "last_deal":
        return winner
    if state is not None and state.history:
        return "a" if state.history[-1][0] == teams[0] else "b"
    if named and teams:
        return {teams[0]: "a", teams[1]: "b", "a": "a", "b": "b"}.get(named)
    return None


def penalised_deal(declarer: str, points: int, trump_cards: int, penalties: list[Penalty],
                   total: int) -> TractorDeal:
    """A deal with its penalties applied: points off the offending side's captured points
    (the declarer's penalty adds to the attackers'), levels and a deal lost by a penalty;
    the points kept from 0 to `total` (the most a deal can score: `points_ceiling`).

    >>> penalised_deal("A", 40, 1, [Penalty("B", points=20)], 400).points
    20
    >>> penalised_deal("A", 40, 1, [Penalty("A", 60, 1, choice="levels")], 400)
    TractorDeal(declarer='A', points=40, trump_cards=1, lost_by=None, level_changes=(('A', 1),))
    >>> penalised_deal("A", 40, 1, [Penalty("A", 60, 0, True, "points")], 400)  # 藏张: points
    TractorDeal(declarer='A', points=100, trump_cards=1, lost_by=None, level_changes=())
    """
    lost_by = None
    changes = []
    for p in penalties:
        if p.choice != "levels":
            points += p.points if p.team_no == declarer else -p.points
        if p.choice != "points" and p.levels:
            changes.append((p.team_no, p.levels))
        if p.deal_lost and p.choice != "points":  # 藏张: the offended side chose points
            lost_by = p.team_no
    return TractorDeal(declarer, max(0, min(total, points)), trump_cards, lost_by,
                       tuple(changes))


def check_deals(typed: pl.DataFrame, context, where) -> tuple[pl.DataFrame, list[Problem]]:
    problems: list[Problem] = []
    rules = context.ruleset.tractor
    total = points_ceiling(rules)
    derived = []
    complete = typed.drop_nulls(["stage", "match_no", "game", "deal", "declarer_team",
                                 "points"])
    for (stage, match_no, game), group in complete.sort("deal").group_by(
            ["stage", "match_no", "game"], maintain_order=True):
        rows = list(group.iter_rows(named=True))
        found = _drawn(rows[0], context, where, problems)
        if found is None:
            continue
        team_a, team_b, _ = found
        bad = False
        for r in rows:
            said = total_refusal(rules, r["points"])
            if said:
                problems.append(where.problem(r, "points", r["points"], said))
                bad = True
        if [r["deal"] for r in rows] != list(range(1, len(rows) + 1)):
            problems.append(where.problem(rows[-1], "deal", rows[-1]["deal"],
                                          "盘次应从 1 起连续 deals must be numbered 1, 2, 3 …"))
            bad = True
        if bad:
            continue
        deals = [penalised_deal(
            r["declarer_team"], r["points"], r["trump_cards"] or 1,
            context.tractor.penalties.get((stage, match_no, game, r["deal"]), []), total)
            for r in rows]
        try:
            state = replay_game(deals, (team_a, team_b), rules["start_level"],
                                rules["takeover"], rules["step"], rules["trump_bonus"])
        except DealError as exc:
            row = rows[exc.index]
            problems.append(where.problem(row, "declarer_team" if "庄" in str(exc) else "deal",
                                          row["declarer_team"], str(exc)))
            continue
        a, b = state.levels[team_a], state.levels[team_b]
        winner = level_winner(a, b, rules, state, teams=(team_a, team_b))
        if winner is None:
            problems.append(where.problem(rows[-1], "deal", rows[-1]["deal"],
                                          "逐盘推算后双方级数相同，一局未完 the deals leave the "
                                          "levels equal: the game is not over"))
            continue
        stored = context.tractor.games.get((stage, match_no, game))
        if stored and not stored[3] and stored[:2] != (a, b):
            problems.append(where.problem(
                rows[-1], "deal", rows[-1]["deal"],
                f"逐盘推算为 {format_level(a)} / {format_level(b)}，与已报的 "
                f"{format_level(stored[0])} / {format_level(stored[1])} 不符 the deals give "
                "other levels than the reported game"))
            continue
        derived.append({"stage": stage, "match_no": match_no, "game": game,
                        "game_a_level": a, "game_b_level": b, "game_winner": winner})
    frame = pl.DataFrame(derived, schema={"stage": pl.String, "match_no": pl.Int64,
                                          "game": pl.Int64, "game_a_level": pl.Int64,
                                          "game_b_level": pl.Int64, "game_winner": pl.String})
    return typed.join(frame, on=["stage", "match_no", "game"], how="inner"), problems


def check_point_penalties(typed: pl.DataFrame, context, where):
    problems: list[Problem] = []
    for row in typed.iter_rows(named=True):
        if None in (row["stage"], row["match_no"]):
            continue
        found = _drawn(row, context, where, problems)
        if found and row["team_no"] not in found[:2]:
            problems.append(where.problem(row, "team_no", row["team_no"],
                                          f"这一场是 {found[0]} 对 {found[1]} the team is not "
                                          "in this match"))
    return typed, problems


# -- storing -------------------------------------------------------------------------------
