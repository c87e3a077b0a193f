"""The demo event `make run` shows: 16 invented teams over seed 004's three rounds."""

from __future__ import annotations

from pathlib import Path

from pipeline import db
from pipeline.simulate import simulate

DEMO_ID = "demo"


def build_demo(database: Path) -> str:
    """Load the demo event into the database unless it is there already."""
    with db.reading(database) as con:
        exists = db.scalar(con, "select count(*) from events where event_id = ?", [DEMO_ID])
    if not exists:
        simulate(16, 3, database.parent / "demo", seed=2025, ruleset="suzhou-2025",
                 into=database, event_id=DEMO_ID, name="演示赛：关务掼蛋春茗会")
    return DEMO_ID
