"""The subcommands, one module per area; importing this package registers them."""

from pipeline.commands import data, events, history, rankings, rounds, site, tractor

__all__ = ["data", "events", "history", "rankings", "rounds", "site", "tractor"]
