"""Publishing the static site of a 10,000-team event: all pages, then again after a round."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.turnaround import prepare
from pipeline.base import db, events
from pipeline.intake.ingest import ingest_file
from pipeline.pairing import event_round
from pipeline.publishing.publish import publish


def three_publishes(teams: int, publish_once: Callable[[Path], Any]) -> tuple[list, list]:
    """An event of `teams` teams at round 7 published three times — every page, again with
    nothing changed, after the next round is stored and paired — by `publish_once(database)`:
    the three outcomes and their times (the folder's bench and the object store's share it)."""
    outcomes, times = [], []
    with tempfile.TemporaryDirectory() as scratch:
        database, sheet = prepare(Path(scratch), teams)
        for step in ("first", "again", "after"):
            if step == "after":
                ingest_file(database, "bench", sheet)
                with db.writing(database) as con:
                    event_round.pair(con, events.load(con, "bench"), 8)
            started = time.perf_counter()
            outcomes.append(publish_once(database))
            times.append(time.perf_counter() - started)
    return outcomes, times


def run(teams: int = 10_000) -> list[dict]:
    with tempfile.TemporaryDirectory() as out:
        site = Path(out) / "site"
        (first, again, after), (full, unchanged, next_round) = three_publishes(
            teams, lambda database: publish(database, "bench", site, "https://example.org/bench/"))
    label = f"{teams:,} teams"
    return [
        {"case": f"publish the site of {label}", "seconds": full,
         "note": f"{len(first):,} files written"},
        {"case": f"publish again, nothing changed, {label}", "seconds": unchanged,
         "note": f"{len(again):,} files rewritten"},
        {"case": f"publish after the next round, {label}", "seconds": next_round,
         "note": f"{len(after):,} files rewritten (ranks and tables moved)"},
    ]
