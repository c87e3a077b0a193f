"""Each sheet kind in one place (its cell rules are `schemas.cells`): its casts from text cells (`casts()`) and its row-spanning checks against the
event as stored (`check`). `pipeline.intake.validate` only runs them in order.

A kind's module is imported when a sheet of that kind is checked: a round's results sheet
does not load the deal replay, the Tractor rules or the registration's checks."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from types import ModuleType

NAMES = (
    "entries",
    "players",
    "results",
    "deals",
    "penalties",
    "fouls",
    "quiz",
    "carry",
    "matches",
    "tractor_deals",
    "point_penalties",
)


class _Kinds(Mapping[str, ModuleType]):
    """kind → its module, imported on first use."""

    def __getitem__(self, kind: str) -> ModuleType:
        if kind not in NAMES:
            raise KeyError(kind)
        return importlib.import_module(f"{__name__}.{kind}")

    def __iter__(self) -> Iterator[str]:
        return iter(NAMES)

    def __len__(self) -> int:
        return len(NAMES)


KINDS: Mapping[str, ModuleType] = _Kinds()

__all__ = ["KINDS", "NAMES"]
