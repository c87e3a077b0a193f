"""Between-round turnaround at round 7: ingest the round's sheet (read, validate, store),
rank, pair the next round, export the pairings. Measured on events made by `simulate`."""

from __future__ import annotations

import resource
import tempfile
import time
from pathlib import Path

import polars as pl

from pipeline import db, events, rounds, scoring
from pipeline.export.pairings import export_pairings
from pipeline.ingest import ingest_file
from pipeline.simulate import simulate

RULESET = """name = "bench"
description = "suzhou-2025 without a round limit"
[deals]
max_deals = 8
[ranking]
keys = ["match_points", "level_diff_score", "levels", "team_no"]
"""


def run(teams: int) -> list[dict]:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        ruleset = folder / "bench.toml"
        ruleset.write_text(RULESET, encoding="utf-8")
        made = simulate(teams, 7, folder / "sheets", seed=7, ruleset=str(ruleset))
        database = folder / "bench.duckdb"
        with db.writing(database) as con:
            events.create(con, "bench", "基准", str(ruleset), None)
        ingest_file(database, "bench", made.entries)
        for sheet in made.rounds[:6]:
            ingest_file(database, "bench", sheet)
        with db.writing(database) as con:
            rounds.pair(con, events.load(con, "bench"), 7)
        sheet = made.rounds[6]
        data = sheet.read_bytes()
        started = time.perf_counter()
        pl.read_csv(data)
        bare = time.perf_counter() - started

        started = time.perf_counter()
        ingest_file(database, "bench", sheet, data=data)
        ingested = time.perf_counter()
        with db.writing(database) as con:
            event = events.load(con, "bench")
            scoring.standings(con, event)
            rounds.pair(con, event, 8)
            pairs = rounds.pairings(con, "bench", 8)
        paired = time.perf_counter()
        export_pairings(pairs, "基准 第 8 轮", folder / "pairings.html")  # for the wall
        done = time.perf_counter()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    label = f"{teams:,} teams"
    return [
        {"case": f"turnaround at round 7, {label}", "seconds": done - started,
         "note": f"ingest {ingested - started:.3f} s, rank + pair {paired - ingested:.3f} s, "
                 f"export {done - paired:.3f} s"},
        {"case": f"ingest ÷ bare read_csv, {label}", "seconds": (ingested - started) / bare,
         "note": f"ratio (bare read {bare * 1000:.1f} ms)"},
        {"case": f"peak memory after {label} (MB)", "seconds": peak_mb,
         "note": "max RSS of the bench process so far"},
    ]
