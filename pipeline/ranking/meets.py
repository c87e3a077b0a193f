"""Meets (运动会): several events whose placements add up per affiliation (docs/rules/general.md §8)."""

from __future__ import annotations

import duckdb
import polars as pl

from pipeline.base import db, events
from pipeline.base.errors import PaisaiError, UsageError
from pipeline.ranking import scoring


def create(con: duckdb.DuckDBPyConnection, meet_id: str, name: str) -> None:
    if not events.valid_id(meet_id):
        raise UsageError(f"运动会编号只能用小写字母、数字和 - meet id must match [a-z0-9-]+: {meet_id!r}")
    if db.scalar(con, "select count(*) from meets where meet_id = ?", [meet_id]):
        raise UsageError(f"运动会已存在 meet already exists: {meet_id}")
    con.execute("insert into meets (meet_id, name) values (?, ?)", [meet_id, name])


def _require(con: duckdb.DuckDBPyConnection, meet_id: str) -> str:
    name = db.scalar(con, "select name from meets where meet_id = ?", [meet_id])
    if name is None:
        raise PaisaiError(f"没有这个运动会 no such meet: {meet_id}")
    return name


def parse_points(text: str) -> list[int]:
    """`18,14,12` → [18, 14, 12].

    >>> parse_points("9, 7,6")
    [9, 7, 6]
    """
    try:
        points = [int(p) for p in text.replace("，", ",").split(",") if p.strip()]
    except ValueError:
        raise UsageError(f"名次记分应为逗号分隔的整数 placement points must be whole numbers "
                         f"separated by commas: {text!r}") from None
    if not points or any(p < 0 for p in points):
        raise UsageError("名次记分不能为空或负数 placement points must be ≥ 0")
    return points


def add(con: duckdb.DuckDBPyConnection, meet_id: str, event_id: str, points: list[int],
        deduction: int) -> None:
    _require(con, meet_id)
    events.load(con, event_id)
    con.execute("insert or replace into meet_events values (?, ?, ?, ?)",
                [meet_id, event_id, points, deduction])


def _places(ranking: pl.DataFrame) -> pl.DataFrame:
    """A Swiss event's placement order: its ranking's order, place n earning the n-th
    placement points."""
    ranked = ranking.filter(pl.col("rank").is_not_null())
    return ranked.with_columns(pl.int_range(1, ranked.height + 1).alias("rank"))


def _bracket_places(con: duckdb.DuckDBPyConnection, event: events.Event,
                    ranking: pl.DataFrame) -> tuple[pl.DataFrame, list[str]]:
    """A Tractor event's placement order and what it waits for (docs/rules/general.md §8).

    Teams sharing a place that the group record orders take the places in that order (the
    prizes' order, issue 38). Teams equal on that record too: where one prize splits them
    and the organizer has decided (play-off or lot) the decided team takes the first place
    and the others the next; where that decision is still awaited their places' points wait
    (待定, none given yet); otherwise (no prize splits them, or `awards.equal_split =
    "shared"`) each takes the shared place's points. Never the team number."""
    from pipeline.ranking import awards
    from pipeline.tractor import stages
    from pipeline.tractor.places import without

    found = without(stages.places(con, event, as_played=True),
                           set(stages.disqualified(con, event)))
    if found:
        blocks = [(p.rank, p.record, p.team_no) for p in found]
        waiting = set()
        if event.ruleset.awards["equal_split"] != "shared":
            prizes = awards.tractor_awards(con, event)
            waiting = set(prizes.filter(pl.col("award").str.contains("待定"))["team_no"])
        decided = awards.decisions(con, event)
    else:  # before the final: the group record, equal records sharing a rank
        blocks = [(r, r, t) for r, t in ranking.filter(pl.col("rank").is_not_null())
                  .select("rank", "team_no").rows()]
        waiting, decided = set(), {}
    equal: list[list[tuple]] = []  # runs of teams on the same place and the same record
    for block in blocks:
        if equal and equal[-1][0][:2] == block[:2]:
            equal[-1].append(block)
        else:
            equal.append([block])
    rows, notes, position = [], [], 1
    for run in equal:
        teams = [team for _, _, team in run]
        chosen = decided.get(run[0][0])
        first = position
        won = [t for t in chosen[0] if t in teams] if chosen and len(teams) > 1 else []
        if won:  # the play-off or lot: its teams in order, the others after them
            rows += [(t, position + i) for i, t in enumerate(won)]
            teams, first = [t for t in teams if t not in won], position + len(won)
        if waiting & set(teams):  # still waiting for the organizer
            notes += teams
            rows += [(t, None) for t in teams]
        else:
            rows += [(t, first) for t in teams]
        position += len(run)
    table = pl.DataFrame(rows, schema={"team_no": pl.String, "rank": pl.Int64}, orient="row")
    said = []
    if notes:
        said.append(f"{event.event_id}：{'、'.join(notes)} 的名次待加赛或抽签决定（paisai awards "
                    f"decide），其名次分暂不计 places wait for a play-off or a lot: no "
                    "placement points for them yet")
    placed = table.join(ranking.select("team_no", "affiliation"), on="team_no", how="left")
    return placed.filter(pl.col("rank").is_not_null()), said


def _no_results(con: duckdb.DuckDBPyConnection, event: events.Event) -> bool:
    """No result of the event is stored yet: it gives no placement points."""
    if event.ruleset.is_swiss:
        return scoring.latest_round(con, event.event_id) == 0
    from pipeline.tractor import stages
    return stages.matches(con, event)["winner"].is_null().all()


def placements(con: duckdb.DuckDBPyConnection, meet_id: str
               ) -> tuple[pl.DataFrame, list[str]]:
    """Each event's places that earn placement points (event_id, rank, team_no,
    affiliation), and notes on what gives none yet."""
    ids = [r[0] for r in db.rows(con, "select event_id from meet_events where meet_id = ? "
                                      "order by event_id", [meet_id])]
    frames, notes = [], []
    for event_id in ids:
        event = events.load(con, event_id)
        if _no_results(con, event):
            notes.append(f"{event_id} 还没有成绩，不计名次分 has no results yet: no placement "
                         "points")
            continue
        ranking = scoring.standings(con, event)
        if event.ruleset.is_swiss:
            placed = _places(ranking)
        else:
            placed, said = _bracket_places(con, event, ranking)
            notes += said
        frames.append(placed.select(pl.lit(event_id).alias("event_id"), "rank", "team_no",
                                    "affiliation"))
    ranks = pl.concat(frames) if frames else pl.DataFrame(
        schema={"event_id": pl.String, "rank": pl.Int64, "team_no": pl.String,
                "affiliation": pl.String})
    return ranks, notes


def standings(con: duckdb.DuckDBPyConnection, meet_id: str) -> tuple[str, pl.DataFrame]:
    name = _require(con, meet_id)
    ranks, _ = placements(con, meet_id)
    db.register(con, "event_ranks", ranks)
    try:
        table = db.frame(con, scoring.compose(["meet_forfeits"], "meet_standings",
                                              "rank, affiliation"), {"meet_id": meet_id})
    finally:
        con.unregister("event_ranks")
    return name, table


def notes(con: duckdb.DuckDBPyConnection, meet_id: str) -> list[str]:
    """What gives no placement points yet: an event without results, places waiting for
    the organizer's play-off or lot."""
    _require(con, meet_id)
    return placements(con, meet_id)[1]


def deductions(con: duckdb.DuckDBPyConnection, meet_id: str) -> pl.DataFrame:
    """Each forfeit deduction with its event, round, team and unit."""
    _require(con, meet_id)
    return db.frame(con, scoring.compose([], "meet_forfeits",
                                         "event_id, round, affiliation, team_no"),
                    {"meet_id": meet_id})
