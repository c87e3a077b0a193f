"""Pairing a field after six rounds: the engine alone, on a synthetic history."""

from __future__ import annotations

import random
import time

from pipeline.pairing import pair_round


def history(teams: int, rounds: int, seed: int = 1):
    """Rank, points and games after `rounds` snake4 rounds, winners by hidden strength."""
    rng = random.Random(seed)
    names = [f"A{i}" for i in range(1, teams + 1)]
    strength = {t: rng.random() for t in names}
    points = dict.fromkeys(names, 0)
    played: set[frozenset[str]] = set()
    ranked = names[:]
    for _ in range(rounds):
        pairing = pair_round(ranked, "snake4", scores=[points[t] for t in ranked],
                             played=played)
        for table in pairing.tables:
            a, b = table.ew_team, table.ns_team
            played.add(frozenset((a, b)))
            winner = a if rng.random() < strength[a] / (strength[a] + strength[b]) else b
            points[winner] += 3
        ranked = sorted(names, key=lambda t: (-points[t], -strength[t]))
    return ranked, points, played


def run(teams: int, repeats: int = 3) -> dict:
    ranked, points, played = history(teams, 6)
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        result = pair_round(ranked, "snake4", scores=[points[t] for t in ranked], played=played)
        times.append(time.perf_counter() - started)
    return {"case": f"pair round 7 of {teams:,} teams", "seconds": min(times),
            "note": f"{len(result.rematches)} rematches"}
