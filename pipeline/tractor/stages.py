"""Tractor stages on a stored event: drawing groups and knockout rounds, reading the bracket."""

from __future__ import annotations

import random
import secrets

import duckdb
import polars as pl

from pipeline.base import db
from pipeline.base.errors import UsageError
from pipeline.base.events import Event
from pipeline.tractor import bracket
from pipeline.tractor.places import THIRD_PLACE, Place, knockout_places, without

DECISIONS = {"forfeit": "弃权 forfeit", "disqualified": "取消资格 disqualified",
             "time": "到时落后 behind at time-up"}
"""Each decision a match sheet can store, as the bracket says it of the team decided
against (`decided_against`): forfeited, disqualified, or behind when the clock ended the
match (到时领先方 names the other side)."""


def require_bracket(event: Event) -> None:
    """A Tractor event played in groups and knockout rounds (raises otherwise)."""
    if event.ruleset.discipline != "tractor":
        raise UsageError(f"{event.event_id} 不是拖拉机赛事 is not a Tractor event")
    if event.ruleset.is_swiss:
        raise UsageError(f"{event.event_id} 按积分编排（format = swiss），没有小组与淘汰赛：请用 "
                         f"paisai pair is a Swiss event (format = swiss): it has no groups or "
                         "knockout; pair its rounds with paisai pair")


def matches(con: duckdb.DuckDBPyConnection, event: Event) -> pl.DataFrame:
    query = f"with tractor_matches as ({db.sql('tractor_matches')}) " \
            "select * from tractor_matches order by position, match_no"
    return db.frame(con, query, {"event_id": event.event_id,
                                 "games_to_win": event.ruleset.tractor["games_to_win"]})


def group_tables(con: duckdb.DuckDBPyConnection, event: Event) -> pl.DataFrame:
    """Each group's table: totals from SQL, the order from `group_order` (ties broken by
    direct results again within any smaller set still equal)."""
    from pipeline.tractor.group_order import order_group

    params = {"event_id": event.event_id,
              "games_to_win": event.ruleset.tractor["games_to_win"],
              "group_win_points": event.ruleset.stages["group_win_points"]}
    query = (f"with tractor_matches as ({db.sql('tractor_matches')}), "
             f"group_standings as ({db.sql('group_standings')}) "
             "select * from group_standings order by stage, rank")
    tables = db.frame(con, query, params)
    if tables.is_empty():
        return tables
    played = db.rows(con, f"with tractor_matches as ({db.sql('tractor_matches')}) select stage, "
                          "team_a, team_b, winner from tractor_matches where kind = 'group'",
                     {k: params[k] for k in ("event_id", "games_to_win")})
    ranks = {}
    for stage in tables["stage"].unique(maintain_order=True).to_list():
        rows = tables.filter(pl.col("stage") == stage).to_dicts()
        order = order_group(rows, [(a, b, w) for s, a, b, w in played if s == stage])
        ranks |= {(stage, team): n for n, team in enumerate(order, start=1)}
    return tables.with_columns(pl.struct("stage", "team_no").map_elements(
        lambda r: ranks[(r["stage"], r["team_no"])], return_dtype=pl.Int64).alias("rank")
    ).sort("stage", "rank", maintain_order=True)


def _add_stage(con, event_id: str, name: str, kind: str, position: int,
               pairs: list[tuple[str, str | None]], advance: int | None, seed: int | None):
    con.execute("insert into tractor_stages values (?, ?, ?, ?, ?, ?)",
                [event_id, name, kind, position, advance, seed])
    con.executemany("insert into tractor_matches values (?, ?, ?, ?, ?)",
                    [(event_id, name, i, a, b) for i, (a, b) in enumerate(pairs, start=1)])


def draw(con: duckdb.DuckDBPyConnection, event: Event, groups: int, advance: int,
         seeds: list[str], seed: int | None) -> int:
    """Draw the groups and their round-robin schedules. Returns the seed used."""
    require_bracket(event)
    if db.scalar(con, "select count(*) from tractor_stages where event_id = ?",
                 [event.event_id]):
        raise UsageError("已经抽过签了 the groups are drawn already")
    teams = dict(db.rows(con, "select team_no, affiliation from teams where event_id = ?",
                         [event.event_id]))
    if groups < 1 or len(teams) < 2 * groups:
        raise UsageError(f"{len(teams)} 队分不成 {groups} 个组 {len(teams)} teams cannot "
                         f"make {groups} groups of two or more")
    if advance < 1:
        raise UsageError("出线名额至少为 1 advance at least 1")
    unknown = [t for t in seeds if t not in teams]
    if unknown:
        raise UsageError(f"种子队未报名 seeded teams not registered: {', '.join(unknown)}")
    seed = secrets.randbelow(10**6) if seed is None else seed
    drawn = bracket.draw_groups(sorted(teams), groups, seeds, teams, random.Random(seed))
    for index, members in enumerate(drawn):
        _add_stage(con, event.event_id, bracket.group_name(index), "group", index + 1,
                   bracket.round_robin(members), advance, seed)
    return seed


def next_stage(con: duckdb.DuckDBPyConnection, event: Event, seed: int | None) -> str:
    """Draw the next knockout round once every match of the current stage is decided."""
    require_bracket(event)
    played = matches(con, event)
    if played.is_empty():
        raise UsageError("还没有抽签 draw the groups first: paisai bracket draw")
    last = played["position"].max()
    current = played.filter(pl.col("position") == last)
    if current["kind"][0] == "group":
        current = played.filter(pl.col("kind") == "group")
    open_matches = current.filter(pl.col("winner").is_null())
    if open_matches.height:
        listed = ", ".join(f"{s} {m}" for s, m in open_matches.select("stage", "match_no").rows())
        raise UsageError(f"本阶段还有未决的比赛 matches still undecided: {listed}")
    redraw = event.ruleset.stages["redraw"]
    seed = secrets.randbelow(10**6) if seed is None else seed
    rng = random.Random(seed)
    if current["kind"][0] == "group":
        qualifiers = _qualifiers(con, event)
        if len(qualifiers) < 2:
            raise UsageError("出线队伍不足两队 fewer than two qualifiers")
        pairs = bracket.knockout_first_round(qualifiers, redraw, rng)
    else:
        main = current.filter(pl.col("stage") != THIRD_PLACE).sort("match_no")
        winners = main["winner"].to_list()
        if len(winners) == 1:
            raise UsageError(f"冠军已经产生 the champion is decided: {winners[0]}")
        pairs = bracket.next_round(winners, redraw, rng)
    name = bracket.knockout_name(2 * len(pairs))
    _add_stage(con, event.event_id, name, "knockout", int(last) + 1, pairs, None, seed)
    if len(pairs) == 1 and current["kind"][0] == "knockout" \
            and event.ruleset.stages["third_place_match"]:
        losers = [b if w == a else a for a, b, w in main.select("team_a", "team_b", "winner")
                  .rows() if b is not None]
        if len(losers) == 2:
            _add_stage(con, event.event_id, THIRD_PLACE, "knockout", int(last) + 1,
                       [(losers[0], losers[1])], None, seed)
    return name


def _qualifiers(con, event: Event) -> list[str]:
    """The top `advance` of each group, best first: place, then points, games, levels."""
    tables = group_tables(con, event)
    advance = db.scalar(con, "select max(advance) from tractor_stages where event_id = ? "
                             "and kind = 'group'", [event.event_id])
    chosen = tables.filter(pl.col("rank") <= advance).with_columns(
        pl.col("team_no").str.extract(r"^(\D*)").alias("prefix"),
        pl.col("team_no").str.extract(r"(\d+)").cast(pl.Int64, strict=False).alias("number"))
    ordered = chosen.sort(["rank", "points", "game_diff", "level_diff", "prefix", "number"],
                          descending=[False, True, True, True, False, False])
    return ordered["team_no"].to_list()


def view(con: duckdb.DuckDBPyConnection, event: Event) -> dict:
    """Every stage, match, game score and winner; who is still in; the champion."""
    require_bracket(event)
    played = matches(con, event)
    stages = []
    for (stage, kind), group in played.group_by(["stage", "kind"], maintain_order=True):
        stages.append({
            "name": stage, "kind": kind,
            "matches": [{"match": r["match_no"], "team_a": r["team_a"], "team_b": r["team_b"],
                         "games": [list(g) for g in r["games"]], "winner": r["winner"],
                         "decision": r["decision"], "decided_against": r["decided_against"]}
                        for r in group.iter_rows(named=True)],
        })
    champion = None
    knockout = played.filter((pl.col("kind") == "knockout") & (pl.col("stage") != THIRD_PLACE))
    if knockout.height:
        last = knockout.filter(pl.col("position") == knockout["position"].max())
        if last.height == 1 and last["winner"][0] is not None:
            champion = last["winner"][0]
    return {"stages": stages, "champion": champion, "still_in": _still_in(con, event, played),
            "groups": group_tables(con, event).to_dicts()}


def match_of_round(con: duckdb.DuckDBPyConnection, event: Event, team_no: str,
                   round_no: int) -> tuple[str, int]:
    """The team's match of round `round_no`: its N-th match in the order of play (stages in
    order, then match numbers), as (stage, match number); UsageError when it has none."""
    require_bracket(event)
    found = matches(con, event).filter(
        (pl.col("team_a") == team_no) | (pl.col("team_b") == team_no)).sort(
        "position", "match_no")
    if not 1 <= round_no <= found.height:
        raise UsageError(f"{team_no} 没有第 {round_no} 轮的比赛（已排 {found.height} 场） has no "
                         f"match in round {round_no} ({found.height} drawn so far)")
    return found["stage"][round_no - 1], int(found["match_no"][round_no - 1])


def places(con: duckdb.DuckDBPyConnection, event: Event, as_played: bool = False
           ) -> list[Place]:
    """Every team's final place from the bracket ([] until the final is decided); a
    disqualified team takes no place and the teams below it move up (`as_played`: the
    places before that)."""
    shown = view(con, event)
    records = {r["team_no"]: (r["points"], r["game_diff"], r["level_diff"])
               for r in shown["groups"]}
    for team, in db.rows(con, "select team_no from teams where event_id = ?", [event.event_id]):
        records.setdefault(team, ())
    found = _decided_first(con, event, knockout_places(shown["stages"], records))
    return found if as_played else without(found, set(disqualified(con, event)))


def _decided_first(con: duckdb.DuckDBPyConnection, event: Event, found: list[Place]
                   ) -> list[Place]:
    """Teams sharing a place on an equal record, ordered as the organizer's play-off or lot
    gave it (`paisai awards decide`), so that a meet's placement points follow the prize."""
    chosen: dict[int, list[str]] = {}
    for rank, team in db.rows(con, "select rank, team_no from award_decisions_ordered where "
                                   "event_id = ? order by rank, position", [event.event_id]):
        chosen.setdefault(rank, []).append(team)
    for rank, teams in chosen.items():
        at = [i for i, p in enumerate(found) if p.rank == rank]
        if not at:
            continue
        record = found[at[0]].record
        won = [found[i] for team in teams for i in at
               if found[i].team_no == team and found[i].record == record]
        for i, place in zip(at, won + [found[i] for i in at if found[i] not in won],
                            strict=True):
            found[i] = place
    return found


def disqualified(con: duckdb.DuckDBPyConnection, event: Event) -> list[str]:
    """The teams disqualified in any match of the event (取消资格 on the match sheet)."""
    return [team for team, in db.rows(
        con, "select distinct team_no from tractor_decisions where event_id = ? and "
             "decision = 'disqualified' order by team_no", [event.event_id])]


def _still_in(con, event: Event, played: pl.DataFrame) -> list[str]:
    teams = [r[0] for r in db.rows(con, "select team_no from teams where event_id = ? "
                                        "order by team_no", [event.event_id])]
    if played.is_empty():
        return teams
    out: set[str] = set()
    knockout = played.filter(pl.col("kind") == "knockout")
    if knockout.height:
        last = knockout.filter(pl.col("position") == knockout["position"].max())
        for r in last.iter_rows(named=True):
            if r["winner"]:
                out.add(r["winner"])
            else:
                out |= {t for t in (r["team_a"], r["team_b"]) if t}
        return sorted(out)
    groups = played.filter(pl.col("kind") == "group")
    if groups["winner"].null_count():
        return teams
    return sorted(_qualifiers(con, event))
