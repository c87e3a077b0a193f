"""Swiss pairing (积分编排). The engine — swiss, matching, systems, compiled — is pure: plain
data in and out; it may use nothing but itself. `event_round` pairs a stored event's round
with it (the ranking so far, who met whom, the registration) and stores the tables: the one
module here that opens the database, it may use the base, the ranking and intake; the event
day, operations, the command line and the dashboard use it."""

from pipeline.pairing.swiss import Pairing, Table, draw_order, pair_round, team_match_tables

__all__ = ["Pairing", "Table", "draw_order", "pair_round", "team_match_tables"]
