"""Publishing the static site of a 10,000-team event: all pages, then again after a round."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from bench.turnaround import prepare
from pipeline.base import db, events
from pipeline.intake.ingest import ingest_file
from pipeline.pairing import event_round
from pipeline.publishing.publish import publish


def run(teams: int = 10_000) -> list[dict]:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        database, sheet = prepare(folder, teams)
        site = folder / "site"
        started = time.perf_counter()
        first = publish(database, "bench", site, "https://example.org/bench/")
        full = time.perf_counter() - started
        started = time.perf_counter()
        again = publish(database, "bench", site, "https://example.org/bench/")
        unchanged = time.perf_counter() - started
        ingest_file(database, "bench", sheet)
        with db.writing(database) as con:
            event_round.pair(con, events.load(con, "bench"), 8)
        started = time.perf_counter()
        after = publish(database, "bench", site, "https://example.org/bench/")
        next_round = time.perf_counter() - started
    label = f"{teams:,} teams"
    return [
        {"case": f"publish the site of {label}", "seconds": full,
         "note": f"{len(first):,} files written"},
        {"case": f"publish again, nothing changed, {label}", "seconds": unchanged,
         "note": f"{len(again):,} files rewritten"},
        {"case": f"publish after the next round, {label}", "seconds": next_round,
         "note": f"{len(after):,} files rewritten (ranks and tables moved)"},
    ]
