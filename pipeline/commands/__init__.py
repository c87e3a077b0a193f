"""The subcommands, one module per area; each module lists its Click commands in COMMANDS.

`WHERE` names the area of each command, so that `paisai rounds` imports the module of
`rounds` alone (a command starts without importing every other command's module);
tests/test_help.py checks it against the areas' COMMANDS.
"""

from __future__ import annotations

import importlib
from types import ModuleType

AREAS = ("events", "data", "rankings", "rounds", "hall", "tractor", "history", "site",
         "officials", "archive")

WHERE = {
    **dict.fromkeys(("event", "events", "rulesets"), "events"),
    **dict.fromkeys(("ingest", "watch", "uploads", "backup", "restore", "check",
                     "import-event", "log"), "data"),
    **dict.fromkeys(("standings", "explain", "rounds", "awards", "meet"), "rankings"),
    **dict.fromkeys(("pair", "results", "export", "template", "links"), "rounds"),
    **dict.fromkeys(("draw", "checkin", "withdraw", "reinstate", "clock", "late"), "hall"),
    "bracket": "tractor",
    "officials": "officials",
    "history": "archive",
    **dict.fromkeys(("players", "player", "ratings", "rating-settings", "units", "compare"),
                    "history"),
    **dict.fromkeys(("publish", "simulate", "dashboard", "demo"), "site"),
}


def area(name: str) -> ModuleType:
    return importlib.import_module(f"pipeline.commands.{name}")
