"""The tournament day `make run` shows, so that every page has something true on first arrival:

- `demo`: a Guandan Swiss event in progress — round 1 reported, round 2 paired, its clock
  running (set going again each time `paisai demo` runs);
- `demo-tractor`: a Tractor event whose groups are done and whose knockout is under way
  (quarter-finals played, semi-finals drawn);
- three past Guandan events, finished, whose players overlap, for /history.

Every team and player is invented (pipeline.simulate's characters); the sheets each event was
fed are kept beside the database (`demo/<event>/`), as samples an organizer can open.
"""

from __future__ import annotations

import datetime as dt
import random
import time
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from pipeline.base import db, events
from pipeline.base.levels import PASSED_A, format_level
from pipeline.day import clockstore
from pipeline.intake.ingest import ingest_file
from pipeline.operations.simulate import TEAM_WORDS, UNITS, invent_name, simulate, write_sheets
from pipeline.pairing import event_round
from pipeline.tractor import stages

DEMO_ID = "demo"
TRACTOR_ID = "demo-tractor"
CLOCK_MINUTES_GONE = 12  # the demo round's clock shows a round already under way


@dataclass(frozen=True)
class PastEvent:
    event_id: str
    name: str
    ruleset: str
    teams: int
    rounds: int
    days_ago: int


PAST = [
    PastEvent("demo-2026-spring", "演示：春季商会掼蛋联赛", "suzhou-2025", 16, 3, 250),
    PastEvent("demo-2026-summer", "演示：职工运动会掼蛋比赛", "hengquan-2025-guandan", 20, 3, 150),
    PastEvent("demo-2026-autumn", "演示：金秋城市掼蛋公开赛", "jinling-2023-pairs-b", 24, 6, 60),
]
POOL = 36  # invented pairs the events draw from, so players meet again across events


def invent_pool(rng: random.Random, size: int = POOL) -> pl.DataFrame:
    """Pairs of invented players, each with a unit and a team name kept from event to event."""
    rows, names = [], set()
    for index in range(size):
        unit = UNITS[index % len(UNITS)]
        word = TEAM_WORDS[(index + index // len(UNITS)) % len(TEAM_WORDS)]
        team_name = f"{unit[:2]}{word}队"  # unique: a unit's second team has the next word
        players = []
        while len(players) < 2:
            person = invent_name(rng)
            if person not in names:
                names.add(person)
                players.append(person)
        rows.append({"team_name": team_name, "player1": players[0], "player2": players[1],
                     "affiliation": unit})
    return pl.DataFrame(rows)


def field(pool: pl.DataFrame, teams: int, rng: random.Random, prefix: str = "A") -> pl.DataFrame:
    """`teams` pairs from the pool, numbered in the order drawn."""
    picked = pool[rng.sample(range(pool.height), teams)]
    return picked.with_columns(
        pl.Series("team_no", [f"{prefix}{i}" for i in range(1, teams + 1)])).select(
        "team_no", "team_name", "player1", "player2", "affiliation")


def demo_ids() -> list[str]:
    """The demo day's events, the most recent first."""
    return [DEMO_ID, TRACTOR_ID, *(p.event_id for p in reversed(PAST))]


def build_demo(database: Path) -> str | None:
    """Load the demo day into the database unless it is there already; the demo round's clock
    is set going again either way. Returns the in-progress Guandan event's id — or None, and
    nothing is loaded, when the database holds other events: the demo's invented players
    would otherwise join that association's history and ratings."""
    with db.reading(database) as con:
        known = {r[0] for r in db.rows(con, "select event_id from events")}
    if known - set(demo_ids()):
        return None
    rng = random.Random(2025)
    pool = invent_pool(rng)
    sheets = database.parent / "demo"
    today = dt.date.today()
    for number, past in enumerate(PAST, start=1):
        entries = field(pool, past.teams, random.Random(number))
        if past.event_id not in known:
            simulate(past.teams, past.rounds, sheets / past.event_id, seed=number,
                     ruleset=past.ruleset, into=database, event_id=past.event_id,
                     name=past.name, entries=entries,
                     date=(today - dt.timedelta(days=past.days_ago)).isoformat())
    if TRACTOR_ID not in known:
        tractor_day(database, sheets / TRACTOR_ID, field(pool, 12, random.Random(7), "T"),
                    today.isoformat())
    if DEMO_ID not in known:
        simulate(16, 1, sheets / DEMO_ID, seed=2025, ruleset="suzhou-2025", into=database,
                 event_id=DEMO_ID, name="演示赛：关务掼蛋春茗会",
                 entries=field(pool, 16, random.Random(2025)), date=today.isoformat())
        with db.writing(database) as con:
            event_round.pair(con, events.load(con, DEMO_ID), 2, seed=2025)
    restart_clock(database)
    return DEMO_ID


def restart_clock(database: Path) -> None:
    """The demo's current round clock, started CLOCK_MINUTES_GONE minutes ago."""
    with db.writing(database) as con:
        event = events.load(con, DEMO_ID)
        round_no = clockstore.current_round(con, DEMO_ID)
        con.execute("delete from round_clocks where event_id = ? and round = ?",
                    [DEMO_ID, round_no])
        clockstore.change(con, event, "start", round_no,
                          now=time.time() - CLOCK_MINUTES_GONE * 60)


def tractor_day(database: Path, folder: Path, entries: pl.DataFrame, date: str) -> None:
    """12 teams in three groups, two advance; the groups and the quarter-finals are played
    (each game to 过A, or a lead when the clock ends it), the semi-finals drawn."""
    rng = random.Random(12)
    folder.mkdir(parents=True, exist_ok=True)
    strength = {t: rng.uniform(0.5, 1.5) for t in entries["team_no"]}
    write_sheets(entries, "entries", folder / "entries")
    with db.writing(database) as con:
        event = events.create(con, TRACTOR_ID, "演示：工会拖拉机友谊赛", "hengquan-2025-tractor",
                              date)
    ingest_file(database, TRACTOR_ID, folder / "entries.xlsx")
    with db.writing(database) as con:
        stages.draw(con, event, 3, 2, [], seed=12)
    for step, name in enumerate(("groups", "quarter-finals")):
        with db.reading(database) as con:
            event = events.load(con, TRACTOR_ID)
            shown = stages.view(con, event)
        games_to_win = event.ruleset.tractor["games_to_win"]
        rows = [row for stage in shown["stages"] for m in stage["matches"]
                if m["winner"] is None and m["team_b"] is not None
                for row in _match(rng, stage["name"], m, strength, games_to_win)]
        sheet = folder / f"{step + 1}-{name}"
        write_sheets(pl.DataFrame(rows, schema=GAME_COLUMNS, orient="row"), "matches", sheet)
        ingest_file(database, TRACTOR_ID, sheet.with_suffix(".xlsx"))
        with db.writing(database) as con:
            stages.next_stage(con, events.load(con, TRACTOR_ID), seed=12 + step)


GAME_COLUMNS = ["stage", "match", "game", "team_a", "team_b", "a_level", "b_level"]


def _match(rng: random.Random, stage: str, match: dict, strength: dict[str, float],
           games_to_win: int) -> list[list]:
    """Games until one side has `games_to_win`; a game ends at 过A, or with the leader ahead
    when the clock stops it (levels as organizers write them)."""
    a, b = match["team_a"], match["team_b"]
    won = {a: 0, b: 0}
    rows = []
    game = 0
    while max(won.values()) < games_to_win:
        game += 1
        winner = a if rng.random() < strength[a] / (strength[a] + strength[b]) else b
        top = PASSED_A if rng.random() < 0.8 else rng.randint(10, 14)
        loser_level = rng.randint(3, top - 1)
        levels = (top, loser_level) if winner == a else (loser_level, top)
        won[winner] += 1
        rows.append([stage, match["match"], game, a, b, format_level(levels[0]),
                     format_level(levels[1])])
    return rows
