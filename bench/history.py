"""History at association scale: 1,000 events, 200,000 players, written straight to DuckDB."""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

from bench.cli import MAIN
from pipeline.base import db
from pipeline.base.ruleset import load_preset
from pipeline.history import identity, ratings, stats

UNITS = [f"单位{i}" for i in range(400)]


def build(database: Path, events: int, players: int, teams: int, rounds: int,
          seed: int = 7) -> None:
    rng = random.Random(seed)
    pool = [(f"选手{i}", UNITS[i % len(UNITS)]) for i in range(players)]
    rules = load_preset("suzhou-2025")
    event_rows, team_rows, result_rows, rank_rows = [], [], [], []
    for e in range(events):
        event_id = f"ev{e}"
        event_rows.append((event_id, f"赛事{e}", rules.name, rules.source,
                           f"{2000 + e // 50}-01-{1 + e % 28:02d}"))
        members = rng.sample(range(players), 2 * teams)
        for t in range(teams):
            a, b = pool[members[2 * t]], pool[members[2 * t + 1]]
            team_rows.append((event_id, f"A{t + 1}", f"队{t + 1}", a[0], b[0], a[1]))
        for r in range(1, rounds + 1):
            order = rng.sample(range(1, teams + 1), teams)
            for table in range(teams // 2):
                result_rows.append((event_id, r, table + 1, f"A{order[2 * table]}",
                                    f"A{order[2 * table + 1]}", rng.randint(2, 15),
                                    rng.randint(2, 14)))
        for rank, t in enumerate(rng.sample(range(1, teams + 1), teams), start=1):
            rank_rows.append((event_id, f"A{t}", rank, teams))
    with db.writing(database) as con:
        for table, rows, columns in (
            ("events", event_rows, "event_id, name, ruleset_name, ruleset_toml, event_date"),
            ("teams", team_rows, "event_id, team_no, team_name, player1, player2, affiliation"),
            ("results", result_rows,
             "event_id, round, table_no, ew_team, ns_team, ew_level, ns_level"),
            ("event_ranks", rank_rows, "event_id, team_no, rank, field_size"),
        ):
            frame = pl.DataFrame(rows, orient="row", schema=[c.strip() for c in
                                                             columns.split(",")])
            con.register("bulk", frame)
            con.execute(f"insert into {table} ({columns}) select * from bulk")
            con.unregister("bulk")
        identity.refresh(con)
        # the finishes above are written straight into the rank cache: mark it current
        con.execute(f"insert into event_rank_state {db.sql('rank_fingerprints')}",
                    {"events": None})


ENTRY_HEADER = ["队号", "队名", "队员1", "队员2", "单位"]
RESULT_HEADER = ["轮次", "桌号", "东西队号", "南北队号", "东西级数", "南北级数"]


def event_folder(folder: Path, players: int, teams: int, rounds: int, seed: int) -> Path:
    """One more event's sheets (registration and results), as an association imports it."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    members = rng.sample(range(players), 2 * teams)
    entry = [ENTRY_HEADER] + [[f"A{t + 1}", f"队{t + 1}", f"选手{members[2 * t]}",
                               f"选手{members[2 * t + 1]}", UNITS[members[2 * t] % len(UNITS)]]
                              for t in range(teams)]
    result = [RESULT_HEADER]
    for r in range(1, rounds + 1):
        order = rng.sample(range(1, teams + 1), teams)
        result += [[r, table + 1, f"A{order[2 * table]}", f"A{order[2 * table + 1]}",
                    rng.randint(2, 14), rng.randint(2, 14)] for table in range(teams // 2)]
    for name, rows in (("entries.csv", entry), ("results.csv", result)):
        (folder / name).write_text("\n".join(",".join(map(str, row)) for row in rows) + "\n",
                                   encoding="utf-8")
    return folder


def _timed(*command: str) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - started


# what a file written by other tools has not (an earlier version: the 037 caches neither)
CACHES = ("event_rank_state", "event_ranks", "standings_cache", "identity_events",
          "rating_game_cache", "rating_seat_cache", "rating_player_cache", "ratings",
          "rating_history", "rating_events", "rating_state")


def forget_caches(database: Path) -> None:
    """The archive as other tools leave it: its events, but no finishes, ratings or caches."""
    with db.writing(database) as con:
        for table in CACHES:
            con.execute(f"delete from {table}")


def _stale_rows(database: Path, scratch: Path, players: int, name: str) -> list[dict]:
    """Issue 52: an archive written by other tools (no finishes, no ratings, no caches),
    opened for the first time: `paisai player`, /history's first view (what the page waits
    for: the ratings, the stale count; the finishes ranked in the background) and
    `paisai import-event` of one more event, each on its own copy."""
    rows = []
    copies = [scratch / f"stale{n}.duckdb" for n in range(3)]
    for copy in copies:
        shutil.copy(database, copy)
    forget_caches(copies[0])
    for copy in copies[1:]:
        shutil.copy(copies[0], copy)
    rows.append({"case": "history: first paisai player on a stale archive",
                 "seconds": _timed(sys.executable, "-c", MAIN, "--db", str(copies[0]),
                                   "player", name),
                 "note": "a fresh process on 1,000 events written by other tools: every "
                         "finish ranked (set-based) and the ratings fitted, then the profile"})
    started = time.perf_counter()
    ratings.keep_current(copies[1])
    waiting = stats.stale_rank_count(copies[1])
    with db.reading(copies[1]) as con:
        ratings.leaderboard(con, 100)
    first_view = time.perf_counter() - started
    started = time.perf_counter()
    stats.keep_ranks_current(copies[1])
    rows.append({"case": "history: /history's first view on a stale archive",
                 "seconds": first_view,
                 "note": f"the ratings fitted, {waiting:,} events' finishes left to the "
                         f"background: ranked in {time.perf_counter() - started:.1f} s more"})
    sheets = event_folder(scratch / "next-stale", players, teams=100, rounds=5, seed=98)
    rows.append({"case": "history: paisai import-event into a stale archive",
                 "seconds": _timed(sys.executable, "-c", MAIN, "--db", str(copies[2]),
                                   "import-event", "--id", "next", "--name", "下一场",
                                   "--ruleset", "suzhou-2025", "--date", "2030-01-05",
                                   str(sheets)),
                 "note": "a fresh process: the event, and everything the next read needs "
                         "(every finish, the ratings from the first game)"})
    return rows


def run(events: int = 1000, players: int = 200_000) -> list[dict]:
    rows = []
    scale = f"{events:,} events / {players:,} players"
    with tempfile.TemporaryDirectory() as scratch:
        database = Path(scratch) / "history.duckdb"
        started = time.perf_counter()
        build(database, events=events, players=players, teams=100, rounds=5)
        rows.append({"case": f"history: build {scale} (setup)",
                     "seconds": time.perf_counter() - started, "note": "500,000 tables"})
        with db.reading(database) as con:
            busiest = con.execute("select name from player_map group by player_id, name "
                                  "order by count(*) desc limit 1").fetchall()[0][0]
        rows += _stale_rows(database, Path(scratch), players, busiest)
        with db.writing(database) as con:
            started = time.perf_counter()
            games = ratings.recompute(con)
            rows.append({"case": "history: full rating recomputation",
                         "seconds": time.perf_counter() - started,
                         "note": f"{games:,} games, the list and every event's history"})
        with db.reading(database) as con:
            player = con.execute("select player_id from player_map group by player_id "
                                 "order by count(*) desc limit 1").fetchall()[0][0]
            times = []
            for _ in range(5):
                started = time.perf_counter()
                stats.player_profile(con, player)
                times.append(time.perf_counter() - started)
            rows.append({"case": "history: player profile", "seconds": min(times),
                         "note": "best of 5, the busiest player"})
            times = []
            for _ in range(5):
                started = time.perf_counter()
                ratings.leaderboard(con, 100)
                times.append(time.perf_counter() - started)
            rows.append({"case": "history: rating leaderboard", "seconds": min(times),
                         "note": "best of 5, top 100, the stored list"})
        paisai = [sys.executable, "-c", MAIN, "--db", str(database)]
        sheets = event_folder(Path(scratch) / "next", players, teams=100, rounds=5, seed=99)
        rows.append({"case": "history: paisai import-event, one more event",
                     "seconds": _timed(*paisai, "import-event", "--id", "next", "--name",
                                       "下一场", "--ruleset", "suzhou-2025", "--date",
                                       "2030-01-05", str(sheets)),
                     "note": "a fresh process: the event, its ranks, the player map and "
                             "the ratings refitted from its day on"})
        with db.reading(database) as con:
            name = con.execute("select name from player_map where event_id = 'next' "
                               "and player_id in (select player_id from player_map group by "
                               "player_id having count(distinct name) = 1 and "
                               "count(*) > 1) limit 1").fetchall()[0][0]
        floor = min(_timed(sys.executable, "-c", "import polars, duckdb") for _ in range(3))
        rows.append({"case": "history: first paisai player after the import",
                     "seconds": _timed(*paisai, "player", name),
                     "note": f"a fresh process; importing polars and duckdb alone "
                             f"{floor:.2f} s"})
        rows.append({"case": "history: first paisai ratings --top 100 after the import",
                     "seconds": _timed(*paisai, "ratings", "--top", "100"),
                     "note": "a fresh process"})
        started = time.perf_counter()
        ratings.keep_current(database)
        stats.keep_ranks_current(database)
        with db.reading(database) as con:
            ratings.leaderboard(con, 100)
        rows.append({"case": "history: /history's reads after the import",
                     "seconds": time.perf_counter() - started,
                     "note": "the page's checks and its rating list, in the server"})
        times = []
        for _ in range(5):
            started = time.perf_counter()
            stats.keep_ranks_current(database)
            times.append(time.perf_counter() - started)
        rows.append({"case": "history: cached-rank check before a read, nothing stale",
                     "seconds": min(times), "note": "best of 5, fingerprints of 1,000 events"})
        with db.writing(database) as con:
            con.execute("update results set ew_level = 14, ns_level = 2 "
                        "where event_id = 'ev500' and round = 1 and table_no = 1")
        started = time.perf_counter()
        stats.keep_ranks_current(database)
        ratings.keep_current(database)
        rows.append({"case": "history: a result corrected in the middle of the history",
                     "seconds": time.perf_counter() - started,
                     "note": "its event ranked again, the ratings refitted from its day on"})
    return rows
