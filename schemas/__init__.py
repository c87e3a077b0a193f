"""Pandera schemas: what each kind of sheet must look like, cell by cell.

Every schema validates the text cells of a sheet (columns under their code names, see
GLOSSARY.md) before anything is cast, so a failure can quote the value as written.
Checks that span rows (duplicates, references to registered teams) live in
`pipeline.intake.validate`, since they need the event's stored data.
"""

from schemas.carry import CarrySheet
from schemas.deals import DealsSheet
from schemas.entries import EntriesSheet
from schemas.fouls import FoulsSheet
from schemas.penalties import PenaltiesSheet
from schemas.players import PlayersSheet
from schemas.quiz import QuizSheet
from schemas.results import ResultsSheet
from schemas.tractor import MatchesSheet, PointPenaltiesSheet, TractorDealsSheet

SCHEMAS = {
    "entries": EntriesSheet,
    "players": PlayersSheet,
    "results": ResultsSheet,
    "penalties": PenaltiesSheet,
    "quiz": QuizSheet,
    "deals": DealsSheet,
    "fouls": FoulsSheet,
    "matches": MatchesSheet,
    "tractor_deals": TractorDealsSheet,
    "point_penalties": PointPenaltiesSheet,
    "carry": CarrySheet,
}

__all__ = ["SCHEMAS", "CarrySheet", "DealsSheet", "EntriesSheet", "FoulsSheet", "PenaltiesSheet",
           "MatchesSheet", "PlayersSheet", "PointPenaltiesSheet", "QuizSheet", "ResultsSheet",
           "TractorDealsSheet"]
