"""What each kind of sheet must look like, cell by cell.

The rules are plain data (`schemas.cells`), from which both the pandera schemas
(`schemas.models`: `SCHEMAS`, and each kind's by its name, e.g. `ResultsSheet`) and a
one-query check of a clean sheet (`schemas.cells.cells_pass`) are made. Every schema
validates the text cells of a sheet (columns under their code names, see GLOSSARY.md)
before anything is cast, so a failure can quote the value as written. Checks that span rows
(duplicates, references to registered teams) live in `pipeline.intake.validate`, since they
need the event's stored data.

pandera is imported only when a name of `schemas.models` is asked for (a sheet with
something to report): `from schemas import SCHEMAS` does, `from schemas import cells` not.
"""

from __future__ import annotations

_MODELS = {"SCHEMAS", "CarrySheet", "DealsSheet", "EntriesSheet", "FoulsSheet",
           "PenaltiesSheet", "MatchesSheet", "PlayersSheet", "PointPenaltiesSheet",
           "QuizSheet", "ResultsSheet", "TractorDealsSheet"}


def __getattr__(name: str):
    if name not in _MODELS:
        raise AttributeError(f"module 'schemas' has no attribute {name!r}")
    from schemas import models

    if name == "SCHEMAS":
        return models.SCHEMAS
    kind = {v: k for k, v in models.NAMES.items()}[name]
    return models.SCHEMAS[kind]


__all__ = sorted(_MODELS)
