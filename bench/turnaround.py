"""Between-round turnaround at round 7: ingest the round's sheet (read, validate, store),
rank, pair the next round, export the pairings. Measured on events made by `simulate`.

The event is played up to round 7 once; then each repeat starts from a copy of that
database file, so every repeat does the same work. Reported: the best repeat (what the
machine can do) with the median beside it (what a noisy shared machine gave).
"""

from __future__ import annotations

import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import polars as pl

from pipeline.base import db, events
from pipeline.intake.ingest import ingest_file, load_context
from pipeline.intake.sheets.read import read_file
from pipeline.intake.validate import check_sheets
from pipeline.operations.simulate import simulate
from pipeline.pairing import event_round
from pipeline.publishing.export.pairings import export_pairings
from pipeline.ranking import rounds, scoring

RULESET = """name = "bench"
description = "suzhou-2025 without a round limit"
[deals]
max_deals = 8
[ranking]
keys = ["match_points", "level_diff_score", "levels", "team_no"]
"""


def _best(times: list[float]) -> tuple[float, float]:
    return min(times), statistics.median(times)


def prepare(folder: Path, teams: int, name: str = "基准",
            timings: dict[str, float] | None = None) -> tuple[Path, Path]:
    """An event of `teams` teams with rounds 1–6 stored and round 7 paired; round 7's sheet.
    The turnaround prints the pairings as the wall gets them: an xlsx with the seat index.
    `timings` gets the seconds the simulation of the 7 rounds took ("simulate")."""
    folder.mkdir(parents=True, exist_ok=True)  # a folder of its own, made when missing
    ruleset = folder / "bench.toml"
    ruleset.write_text(RULESET, encoding="utf-8")
    started = time.perf_counter()
    made = simulate(teams, 7, folder / "sheets", seed=7, ruleset=str(ruleset), xlsx=False)
    if timings is not None:
        timings["simulate"] = time.perf_counter() - started
    database = folder / "base.duckdb"
    with db.writing(database) as con:
        events.create(con, "bench", name, str(ruleset), None)
    ingest_file(database, "bench", made.entries)
    for sheet in made.rounds[:6]:
        ingest_file(database, "bench", sheet)
    with db.writing(database) as con:
        event_round.pair(con, events.load(con, "bench"), 7)
    return database, made.rounds[6]


def _turnaround(database: Path, sheet: Path, data: bytes, out: Path) -> dict[str, float]:
    started = time.perf_counter()
    ingest_file(database, "bench", sheet, data=data)
    ingested = time.perf_counter()
    with db.writing(database) as con:
        event = events.load(con, "bench")
        scoring.standings(con, event)  # the ranking for the projector
        event_round.pair(con, event, 8)
        pairs = rounds.pairings(con, "bench", 8)
    paired = time.perf_counter()
    export_pairings(pairs, "基准 第 8 轮", out)  # the printable list for the wall
    done = time.perf_counter()
    return {"total": done - started, "ingest": ingested - started,
            "pair": paired - ingested, "export": done - paired}


def _read_and_validate(database: Path, sheet: Path, data: bytes) -> float:
    """The in-memory part of ingest: read the file and validate it against the event."""
    with db.reading(database) as con:
        context = load_context(con, events.load(con, "bench"))
    started = time.perf_counter()
    read = read_file(sheet, None, data)
    checked = check_sheets(read.sheets, context)
    assert not checked.problems
    return time.perf_counter() - started


def _empty_transaction(database: Path) -> float:
    """Opening the database file read-write and committing nothing: the floor of any write."""
    started = time.perf_counter()
    with db.writing(database):
        pass
    return time.perf_counter() - started


def run(teams: int, repeats: int = 5) -> list[dict]:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        base, sheet = prepare(folder, teams)
        data = sheet.read_bytes()
        database = folder / "run.duckdb"
        parts: dict[str, list[float]] = {}
        for _ in range(repeats):
            shutil.copyfile(base, database)
            for name, seconds in _turnaround(database, sheet, data,
                                             folder / "pairings.xlsx").items():
                parts.setdefault(name, []).append(seconds)
            parts.setdefault("bare", []).append(_timed(lambda: pl.read_csv(data)))
            parts.setdefault("validate", []).append(_read_and_validate(base, sheet, data))
            parts.setdefault("floor", []).append(_empty_transaction(database))
    best = {name: min(times) for name, times in parts.items()}
    total, median = _best(parts["total"])
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    label = f"{teams:,} teams"
    return [
        {"case": f"turnaround at round 7, {label}", "seconds": total,
         "note": f"best of {repeats} (median {median:.3f} s); ingest {best['ingest']:.3f} s, "
                 f"rank + pair {best['pair']:.3f} s, export {best['export']:.3f} s"},
        {"case": f"export pairings xlsx (tables + seat index), {label}",
         "seconds": best["export"], "note": f"best of {repeats}"},
        {"case": f"ingest of the round's sheet, {label}", "seconds": best["ingest"],
         "note": f"best of {repeats}: read, validate, store ({teams // 2:,} rows)"},
        {"case": f"ingest ÷ bare read_csv, {label}", "seconds": best["ingest"] / best["bare"],
         "note": f"ingest {best['ingest'] * 1000:.0f} ms ÷ bare read {best['bare'] * 1000:.1f} "
                 f"ms; of which an empty read-write transaction (open, commit, close) "
                 f"{best['floor'] * 1000:.0f} ms"},
        {"case": f"read + validate ÷ bare read_csv, {label}",
         "seconds": best["validate"] / best["bare"],
         "note": f"read + validate {best['validate'] * 1000:.1f} ms, in memory, before any "
                 "database work"},
        {"case": f"peak memory after {label} (MB)", "seconds": peak_mb,
         "note": "max RSS of the bench process so far"},
    ]


def _timed(work) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started
