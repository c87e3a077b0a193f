"""Swiss pairing (积分编排): pure functions, plain data in and out, no storage imports."""

from pipeline.pairing.swiss import Pairing, Table, draw_order, pair_round, team_match_tables

__all__ = ["Pairing", "Table", "draw_order", "pair_round", "team_match_tables"]
