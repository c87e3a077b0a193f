"""The subcommands, one module per area; each module lists its Click commands in COMMANDS."""

from pipeline.commands import data, events, history, rankings, rounds, site, tractor

AREAS = [events, data, rankings, rounds, tractor, history, site]

__all__ = ["AREAS", "data", "events", "history", "rankings", "rounds", "site", "tractor"]
