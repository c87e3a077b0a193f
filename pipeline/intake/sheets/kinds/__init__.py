"""Each sheet kind in one place (its cell rules are `schemas.cells`): its casts from text cells (`casts()`) and its row-spanning checks against the
event as stored (`check`). `pipeline.intake.validate` only runs them in order."""

from pipeline.intake.sheets.kinds import (
    carry,
    deals,
    entries,
    fouls,
    matches,
    penalties,
    players,
    point_penalties,
    quiz,
    results,
    tractor_deals,
)

KINDS = {
    "entries": entries,
    "players": players,
    "results": results,
    "deals": deals,
    "penalties": penalties,
    "fouls": fouls,
    "quiz": quiz,
    "carry": carry,
    "matches": matches,
    "tractor_deals": tractor_deals,
    "point_penalties": point_penalties,
}

__all__ = ["KINDS"]
