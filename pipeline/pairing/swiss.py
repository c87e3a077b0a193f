"""One Swiss round: the bye, the pairs, the seats and the table numbers (docs/rules/general.md §6).

>>> p = pair_round(["A1", "A2", "A3", "A4", "A5"], system="snake4")
>>> [(t.table, t.ew_team, t.ns_team) for t in p.tables], p.bye
([(1, 'A1', 'A3'), (2, 'A2', 'A4')], 'A5')
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from pipeline.base.order import natural_key  # re-exported: pipeline.pairing.swiss.natural_key
from pipeline.pairing.matching import FULL_LIMIT, Penalties, PlacePairs, min_cost_matching
from pipeline.pairing.systems import plain_pairs


@dataclass(frozen=True)
class Table:
    table: int
    ew_team: str
    ns_team: str


@dataclass(frozen=True)
class Pairing:
    tables: list[Table]
    bye: str | None = None
    rematches: list[tuple[str, str]] = field(default_factory=list)
    same_affiliation: list[tuple[str, str]] = field(default_factory=list)


def draw_order(teams: Collection[str], draw: str, seed: int | None = None) -> list[str]:
    """Round 1 order: by team number (A1–A2 at table 1 …) or shuffled with a recorded seed."""
    ordered = sorted(teams, key=natural_key)
    if draw == "random":
        random.Random(seed).shuffle(ordered)
    return ordered


def pair_round(
    ranked: Sequence[str],
    system: str = "snake4",
    scores: Sequence[float] | None = None,
    played: Collection[Collection[str]] = (),
    had_bye: Collection[str] = (),
    affiliations: Mapping[str, str | None] | None = None,
    seats: str = "rank",
    seat_counts: Mapping[str, tuple[int, int]] | None = None,
    full_limit: int = FULL_LIMIT,
) -> Pairing:
    """Pair one round from a ranking (best first).

    `played`: pairs of teams that have met; `had_bye`: teams that had a bye; `affiliations`
    given means teams of one affiliation should not meet; `seat_counts`: (ew, ns) sat so far.
    """
    ranked = list(ranked)
    scores = list(scores) if scores is not None else [0.0] * len(ranked)
    bye = None
    if len(ranked) % 2:
        candidates = [t for t in reversed(ranked) if t not in had_bye] or [ranked[-1]]
        bye = candidates[0]
        index = ranked.index(bye)
        del ranked[index]
        del scores[index]
    rematch_weight = (len(ranked) ** 2 + 1) * (len(ranked) + 1)
    met = PlacePairs(*_met_places(ranked, played), rematch_weight)
    groups = None
    if affiliations:
        codes: dict[str, int] = {}
        groups = [codes.setdefault(affiliations[t], len(codes)) if affiliations.get(t) else -1
                  for t in ranked]
    penalty = Penalties(met, groups, len(ranked) ** 2 + 1)

    plain = plain_pairs(system, scores)
    pairs = min_cost_matching(plain, penalty, full_limit)
    tables = []
    for number, (i, j) in enumerate(sorted(pairs, key=min), start=1):
        ew, ns = _seat(ranked[i], ranked[j], seats, seat_counts or {})
        tables.append(Table(number, ew, ns))
    ends = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    kept = met.among(ends.min(axis=1), ends.max(axis=1))  # the pairs that met before
    rematches = [(ranked[pairs[k][0]], ranked[pairs[k][1]]) for k in np.flatnonzero(kept)]
    same = [] if groups is None else [(ranked[i], ranked[j]) for i, j in pairs
                                      if groups[i] >= 0 and groups[i] == groups[j]]
    return Pairing(tables, bye, rematches, same)


def _met_places(ranked: list[str], played) -> tuple[np.ndarray, np.ndarray]:
    """The pairs of places of the teams in `ranked` that have met, each pair once: the lower
    places and the higher. `played` is pairs of teams, or a frame of two team columns (a
    large field's history, joined in polars rather than looked up pair by pair)."""
    if not isinstance(played, pl.DataFrame):
        played = pl.DataFrame([sorted(p) for p in played if len(p) == 2],
                              schema={"a": pl.String, "b": pl.String}, orient="row")
    played = played.rename(dict(zip(played.columns, ["a", "b"], strict=True))).cast(pl.String)
    place = pl.DataFrame({"team": ranked, "place": range(len(ranked))},
                         schema={"team": pl.String, "place": pl.Int64})
    found = played.join(place.rename({"team": "a", "place": "i"}), on="a").join(
        place.rename({"team": "b", "place": "j"}), on="b").filter(
        pl.col("i") != pl.col("j")).select(pl.min_horizontal("i", "j").alias("low"),
                                           pl.max_horizontal("i", "j").alias("high")).unique()
    return found["low"].to_numpy(), found["high"].to_numpy()


def _seat(higher: str, lower: str, seats: str, counts: Mapping[str, tuple[int, int]]):
    """Higher-ranked East-West; with `balance`, the team that sat North-South more often;
    with `draw_number`, the smaller draw (team) number East-West, the larger North-South
    (seed 001: "大號（指抽籤號）運動員坐南北向，小號坐東西向").

    >>> _seat("A10", "A9", "draw_number", {}), _seat("A10", "A9", "rank", {})
    (('A9', 'A10'), ('A10', 'A9'))
    """
    if seats == "draw_number":
        return (higher, lower) if natural_key(higher) < natural_key(lower) else (lower, higher)
    if seats == "balance":
        ew_h, ns_h = counts.get(higher, (0, 0))
        ew_l, ns_l = counts.get(lower, (0, 0))
        if (ns_l - ew_l) > (ns_h - ew_h):
            return lower, higher
    return higher, lower


def team_match_tables(pairing: Pairing, team_size: int) -> Pairing:
    """A team event's match is `team_size` tables, pair i against pair i, seats swapped on
    every second table (docs/rules/general.md §7).

    >>> p = team_match_tables(Pairing([Table(1, "T1", "T2")]), 2)
    >>> [(t.table, t.ew_team, t.ns_team) for t in p.tables]
    [(1, 'T1', 'T2'), (2, 'T2', 'T1')]
    """
    if team_size == 1:
        return pairing
    tables = []
    for match in pairing.tables:
        for i in range(team_size):
            ew, ns = (match.ew_team, match.ns_team) if i % 2 == 0 else (match.ns_team,
                                                                      match.ew_team)
            tables.append(Table((match.table - 1) * team_size + i + 1, ew, ns))
    return Pairing(tables, pairing.bye, pairing.rematches, pairing.same_affiliation)
