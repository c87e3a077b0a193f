"""Storing Tractor sheets — games, deals and point penalties — and replaying a game's stored
deals again when its penalties change. What the sheets are checked against (the drawn
matches, the stored games and penalties) is read here (`load`); the checks themselves are
the pure `pipeline.tractor.checks`."""

from __future__ import annotations

import duckdb
import polars as pl

from pipeline.base import db, events
from pipeline.base.errors import PaisaiError
from pipeline.base.store import Stored
from pipeline.tractor.checks import Penalty, TractorContext, level_winner, penalised_deal
from pipeline.tractor.scoring import DealError, points_ceiling, replay_game


def load(con: duckdb.DuckDBPyConnection, event_id: str) -> TractorContext:
    matches = {(s, m): (a, b, k) for s, m, a, b, k in db.rows(
        con, "select m.stage, m.match_no, m.team_a, m.team_b, s.kind from tractor_matches m "
             "join tractor_stages s using (event_id, stage) where m.event_id = ?", [event_id])}
    games = {(s, m, g): (a, b, w, d) for s, m, g, a, b, w, d in db.rows(
        con, "select stage, match_no, game, a_level, b_level, winner, from_deals "
             "from tractor_games where event_id = ?", [event_id])}
    penalties: dict[tuple[str, int, int, int], list[Penalty]] = {}
    for s, m, g, d, *penalty in db.rows(
            con, "select stage, match_no, game, deal, team_no, points, coalesce(levels, 0), "
                 "coalesce(deal_lost, false), choice from tractor_point_penalties "
                 "where event_id = ?", [event_id]):
        penalties.setdefault((s, m, g, d), []).append(Penalty(*penalty))
    return TractorContext(matches, games, penalties)


def _upsert_games(con, event_id: str, games: pl.DataFrame, source: str, from_deals: bool):
    db.register(con, "incoming_games", games)
    try:
        counts = db.rows(con, """
            select count(*) filter (where g.game is null),
                   count(*) filter (where g.game is not null and (g.a_level <> i.a_level
                                    or g.b_level <> i.b_level)),
                   count(*) filter (where g.game is not null and g.a_level = i.a_level
                                    and g.b_level = i.b_level)
            from incoming_games i left join tractor_games g on g.event_id = ?
              and g.stage = i.stage and g.match_no = i.match_no and g.game = i.game""",
                         [event_id])[0]
        con.execute("insert or replace into tractor_games select ?, stage, match_no, game, "
                    "a_level, b_level, winner, ?, ? from incoming_games",
                    [event_id, from_deals, source])
    finally:
        con.unregister("incoming_games")
    return counts


def store_matches(con, event_id: str, rows: pl.DataFrame, source: str) -> list[Stored]:
    """Games as reported, and matches decided without play (forfeit, disqualification, the
    clock's 到时领先方): the games and the decisions counted apart — a decision is no game."""
    decided = rows.filter(pl.col("_decision")).select("stage", "match_no", "team_no",
                                                       "decision")
    db.register(con, "incoming_decisions", decided)
    try:
        decisions = db.rows(con, """
            select count(*) filter (where d.match_no is null),
                   count(*) filter (where d.match_no is not null and (d.team_no <> i.team_no
                                    or d.decision <> i.decision)),
                   count(*) filter (where d.team_no = i.team_no and d.decision = i.decision)
            from incoming_decisions i left join tractor_decisions d on d.event_id = ?
              and d.stage = i.stage and d.match_no = i.match_no""", [event_id])[0]
        con.execute("insert or replace into tractor_decisions select ?, stage, match_no, "
                    "team_no, decision, ? from incoming_decisions", [event_id, source])
    finally:
        con.unregister("incoming_decisions")
    games = rows.filter(~pl.col("_decision")).select("stage", "match_no", "game", "a_level",
                                                     "b_level", "winner")
    stored = [Stored("matches", *_upsert_games(con, event_id, games, source, False))]
    return stored + ([Stored("tractor_decisions", *decisions)] if decided.height else [])


def _deal_counts(con, event_id: str, deals: pl.DataFrame, games: pl.DataFrame
                 ) -> tuple[int, int, int]:
    """(new, replaced, unchanged) games of a deal sheet, before it is stored: a game is
    replaced where its levels or any of its deals (declarer, points, trump count) differ —
    corrected even where the levels come out the same (310 → 300)."""
    def by_game(found: list[tuple]) -> dict[tuple, set[tuple]]:
        out: dict[tuple, set[tuple]] = {}
        for row in found:
            out.setdefault(tuple(row[:3]), set()).add(tuple(row[3:]))
        return out

    stored_deals = by_game(db.rows(
        con, "select stage, match_no, game, deal, declarer_team, points, trump_cards from "
             "tractor_deals where event_id = ?", [event_id]))
    stored_games = {tuple(r[:3]): tuple(r[3:]) for r in db.rows(
        con, "select stage, match_no, game, a_level, b_level from tractor_games "
             "where event_id = ?", [event_id])}
    incoming = by_game(deals.rows())
    new = replaced = unchanged = 0
    for stage, match_no, game, a_level, b_level in games.select(
            "stage", "match_no", "game", "a_level", "b_level").rows():
        key = (stage, match_no, game)
        if key not in stored_games:
            new += 1
        elif stored_games[key] != (a_level, b_level) or stored_deals.get(key) != incoming[key]:
            replaced += 1
        else:
            unchanged += 1
    return new, replaced, unchanged


def store_deals(con, event_id: str, rows: pl.DataFrame, source: str) -> Stored:
    keys = rows.select("stage", "match_no", "game").unique()
    incoming = rows.select("stage", "match_no", "game", "deal", "declarer_team", "points",
                           pl.col("trump_cards").fill_null(1))
    games = rows.unique(["stage", "match_no", "game"], keep="last").select(
        "stage", "match_no", "game", pl.col("game_a_level").alias("a_level"),
        pl.col("game_b_level").alias("b_level"), pl.col("game_winner").alias("winner"))
    counts = _deal_counts(con, event_id, incoming, games)
    db.register(con, "replayed_games", keys)
    db.register(con, "incoming_deals", incoming)
    try:
        con.execute("delete from tractor_deals where event_id = ? and (stage, match_no, game) "
                    "in (select (stage, match_no, game) from replayed_games)", [event_id])
        con.execute("insert into tractor_deals select ?, * from incoming_deals", [event_id])
    finally:
        con.unregister("replayed_games")
        con.unregister("incoming_deals")
    _upsert_games(con, event_id, games, source, True)
    return Stored("tractor_deals", *counts)


def store_point_penalties(con, event_id: str, rows: pl.DataFrame, source: str) -> Stored:
    frame = rows.select("stage", "match_no", "game", "deal", "team_no", "points",
                        pl.col("reason").fill_null(""), "levels", "deal_lost", "choice")
    db.register(con, "incoming_penalties", frame)
    try:
        con.execute("insert or replace into tractor_point_penalties (event_id, stage, match_no, "
                    "game, deal, team_no, points, reason, levels, deal_lost, choice) "
                    "select ?, * from incoming_penalties", [event_id])
    finally:
        con.unregister("incoming_penalties")
    rederive_games(con, event_id, frame.select("stage", "match_no", "game").unique().rows())
    return Stored("point_penalties", frame.height, 0, 0)


def rederive_games(con, event_id: str, keys: list[tuple[str, int, int]]) -> None:
    """Replay stored deals of these games again (after point penalties changed)."""
    event = events.load(con, event_id)
    rules = event.ruleset.tractor
    context = load(con, event_id)
    for stage, match_no, game in keys:
        deals = db.rows(con, "select deal, declarer_team, points, trump_cards from "
                             "tractor_deals where event_id = ? and stage = ? and match_no = ? "
                             "and game = ? order by deal", [event_id, stage, match_no, game])
        if not deals:
            continue
        team_a, team_b, _ = context.matches[(stage, match_no)]
        replayed = [penalised_deal(d, p, t, context.penalties.get((stage, match_no, game, n), []),
                                   points_ceiling(rules)) for n, d, p, t in deals]
        try:
            state = replay_game(replayed, (team_a, team_b), rules["start_level"],
                                rules["takeover"], rules["step"], rules["trump_bonus"])
        except DealError as exc:
            raise PaisaiError(f"{stage} 第 {match_no} 场第 {game} 局加罚分后无法成立 "
                              f"the game no longer stands with the penalties: {exc}") from None
        a, b = state.levels[team_a], state.levels[team_b]
        winner = level_winner(a, b, rules, state, teams=(team_a, team_b))
        if winner is None:
            raise PaisaiError(f"{stage} 第 {match_no} 场第 {game} 局加罚分后级数相同 "
                              "the penalties leave the game's levels equal")
        con.execute("update tractor_games set a_level = ?, b_level = ?, winner = ? where "
                    "event_id = ? and stage = ? and match_no = ? and game = ?",
                    [a, b, winner, event_id, stage, match_no, game])
