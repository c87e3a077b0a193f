"""Why one team ranks above another: the first ranking key that separates them, both values,
and for head-to-head the games that counted (docs/rules/general.md §5)."""

from __future__ import annotations

import duckdb
import polars as pl

from pipeline.base.errors import UsageError
from pipeline.base.events import Event
from pipeline.ranking import scoring

H2H_LEVELS = 3  # head-to-head takes three places in the sort key (the reapplications)


def key_slices(keys: list[str]) -> dict[str, slice]:
    """Where each key's values stand in a team's sort key.

    >>> key_slices(["match_points", "head_to_head", "team_no"])["team_no"]
    slice(4, 5, None)
    """
    slices, at = {}, 0
    for key in keys:
        width = H2H_LEVELS if key == "head_to_head" else 1
        slices[key] = slice(at, at + width)
        at += width
    return slices


def shown_value(row: dict, key: str) -> object:
    """A key's value as people read it (the column named as the key)."""
    if key == "team_no":
        return row["team_no"]
    return row.get(key)


def deciding_key(a: dict, b: dict, keys: list[str]) -> tuple[str | None, list[dict]]:
    """The first key whose values differ between two ranked rows (None: equal on every
    key), with the values of every key up to it."""
    slices = key_slices(keys)
    values = []
    for key in keys:
        part = slices[key]
        values.append({"key": key, a["team_no"]: shown_value(a, key),
                       b["team_no"]: shown_value(b, key)})
        if a["sort_key"][part] != b["sort_key"][part]:
            return key, values
    return None, values


def why_here(ranking: pl.DataFrame, keys: list[str], language: str = "zh") -> dict[str, str]:
    """For every team, one line on why it sits where it does, in one language ("zh" or
    "en"): the key that puts it below the team above it and above the team below it (all
    teams in one pass).

    >>> ranking = pl.DataFrame({"team_no": ["A4", "A5"], "match_points": [3, 0],
    ...                         "sort_key": [[-3], [0]]})
    >>> why_here(ranking, ["match_points"])["A5"]
    '排在 A4 之后：积分 0 对 3'
    >>> why_here(ranking, ["match_points"], "en")["A5"]
    'below A4 on points: 0 to 3'
    """
    english = language == "en"
    rows = list(ranking.iter_rows(named=True))
    lines: dict[str, list[str]] = {r["team_no"]: [] for r in rows}
    for upper, lower in zip(rows, rows[1:], strict=False):
        key, values = deciding_key(upper, lower, keys)
        a, b = upper["team_no"], lower["team_no"]
        if key is None:
            words = "shares the rank with {}" if english else "与 {} 并列"
            lines[a].append(words.format(b))
            lines[b].append(words.format(a))
            continue
        last = values[-1]
        if english:
            name = KEY_NAMES_EN.get(key, key)
            lines[a].append(f"above {b} on {name}: {last[a]} to {last[b]}")
            lines[b].append(f"below {a} on {name}: {last[b]} to {last[a]}")
        else:
            name = KEY_NAMES.get(key, key)
            lines[a].append(f"排在 {b} 之前：{name} {last[a]} 对 {last[b]}")
            lines[b].append(f"排在 {a} 之后：{name} {last[b]} 对 {last[a]}")
    joint = "; " if english else "；"
    return {team: joint.join(parts) for team, parts in lines.items()}


KEY_NAMES = {
    "match_points": "积分", "level_diff_score": "级差分", "vp": "换算积分", "levels": "升级数",
    "level_points": "牌级积分", "net_levels": "净胜级", "head_to_head": "相互胜负",
    "wins": "胜场", "buchholz": "对手分", "buchholz_cut1": "对手分（去最低）",
    "median_buchholz": "中间对手分", "sonneborn_berger": "索伯分",
    "opponents_level_diff": "对手级差分", "progressive": "累进分", "levels_gained": "累积小分",
    "games_won": "胜局数", "quiz_score": "测试题得分", "quiz_seconds": "答题用时",
    "lot": "抽签", "team_no": "队号",
}
KEY_NAMES_EN = {
    "match_points": "points", "level_diff_score": "level diff. score", "vp": "victory points",
    "levels": "levels", "level_points": "level points", "net_levels": "net levels",
    "head_to_head": "head-to-head", "wins": "wins", "buchholz": "Buchholz",
    "buchholz_cut1": "Buchholz cut 1", "median_buchholz": "median Buchholz",
    "sonneborn_berger": "Sonneborn-Berger", "opponents_level_diff": "opponents' level diff.",
    "progressive": "progressive score", "levels_gained": "levels gained",
    "games_won": "games won", "quiz_score": "quiz score", "quiz_seconds": "quiz time",
    "lot": "lot", "team_no": "team number",
}


CREDIT_NAMES = {"match_points": "积分 points", "wins": "胜场 wins",
                "net_wins": "胜负 wins − losses", "level_points": "牌级积分 level points"}


def explain(con: duckdb.DuckDBPyConnection, event: Event, team_a: str, team_b: str,
            max_round: int | None = None) -> dict:
    """Which key decides between the two teams, with every key's values up to it."""
    if max_round is None:
        max_round = scoring.latest_round(con, event.event_id)
    keys = scoring.published_keys(event, max_round)
    ranking = scoring.standings(con, event, max_round)
    rows = {r["team_no"]: r for r in ranking.iter_rows(named=True)}
    for team in (team_a, team_b):
        if team not in rows:
            raise UsageError(f"{team} 不是本赛事的队伍 is not a team of {event.event_id}")
    a, b = rows[team_a], rows[team_b]
    slices = key_slices(keys)
    decided_by, values = deciding_key(a, b, keys)
    result = {"event": event.event_id, "teams": [team_a, team_b],
              "ranks": {team_a: a["rank"], team_b: b["rank"]},
              "decided_by": decided_by, "values": values, "games": []}
    if decided_by == "head_to_head" or (decided_by is None and "head_to_head" in keys):
        result["games"] = _h2h_games(con, event, ranking, slices, keys, team_a, team_b,
                                     max_round)
    return result


def _h2h_games(con, event: Event, ranking: pl.DataFrame, slices: dict[str, slice],
               keys: list[str], team_a: str, team_b: str, max_round: int | None) -> list[dict]:
    """The games among the teams tied before head-to-head that counted for the two teams:
    the group read from the ranking's own sort keys, each game's credit as the ranking's SQL
    computed it (`h2h_games.sql`)."""
    before = slice(0, slices["head_to_head"].start)
    prefix = {r["team_no"]: tuple(r["sort_key"][before]) for r in ranking.iter_rows(named=True)}
    group = {t for t, p in prefix.items() if p == prefix[team_a]}
    if max_round is None:
        max_round = scoring.latest_round(con, event.event_id)
    counts = event.ruleset.ranking["head_to_head"]["counts"]
    games = scoring.h2h_games(con, event, max_round).filter(
        pl.col("team_no").is_in([team_a, team_b]) & pl.col("opponent").is_in(sorted(group)))
    return games.select("round", "team_no", "opponent", "outcome", "match_points", "credit",
                        pl.lit(counts).alias("counts")).to_dicts()


def text(result: dict) -> str:
    """The explanation for people."""
    a, b = result["teams"]
    ranks = result["ranks"]
    lines = [f"{a} 第 {ranks[a]} 名 rank {ranks[a]} · {b} 第 {ranks[b]} 名 rank {ranks[b]}"]
    for item in result["values"]:
        mark = "  ← 决定名次 decides" if item["key"] == result["decided_by"] else ""
        name = KEY_NAMES.get(item["key"], item["key"])
        lines.append(f"  {name} {item['key']}: {a} {item[a]} · {b} {item[b]}{mark}")
    if result["decided_by"] is None:
        lines.append("  所有排名依据都相同，名次并列 equal on every key: they share the rank")
    for g in result["games"]:  # what the game counts among the tied, as the ruleset says
        lines.append(f"  第 {g['round']} 轮 round {g['round']}: {g['team_no']} 对 {g['opponent']} "
                     f"{g['outcome']} · {CREDIT_NAMES[g['counts']]} {g['credit']:+g}")
    return "\n".join(lines) + "\n"
