"""Final places of a Tractor event from its bracket (docs/rules/general.md §8, seed 000). Pure.

1st the champion, 2nd the losing finalist, 3rd the losing semi-finalists (both share third
unless a third-place match is played: its winner is 3rd, its loser 4th); then teams by the
knockout round they went out in, the later the better, and last the teams that went out in
the group stage. Within one round, the group-stage record decides the order (points, game
difference, level difference); teams equal on it share the place (listed by team number,
which decides nothing: docs/rules/general.md §8).

>>> stages = [
...     {"name": "半决赛", "kind": "knockout", "matches": [
...         {"team_a": "T1", "team_b": "T4", "winner": "T1"},
...         {"team_a": "T2", "team_b": "T3", "winner": "T3"}]},
...     {"name": "决赛", "kind": "knockout", "matches": [
...         {"team_a": "T1", "team_b": "T3", "winner": "T3"}]}]
>>> records = {"T1": (3, 4, 20), "T2": (2, 1, 5), "T3": (2, 2, 9), "T4": (1, 0, 1),
...            "T5": (0, -4, -20)}
>>> [(p.team_no, p.rank) for p in knockout_places(stages, records)]
[('T3', 1), ('T1', 2), ('T2', 3), ('T4', 3), ('T5', 5)]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

THIRD_PLACE = "季军赛"


@dataclass(frozen=True)
class Place:
    team_no: str
    rank: int  # shared by teams out in the same round with no match between them (3rd)
    out_in: str  # the stage the team went out in ("" for the champion)
    record: tuple  # group-stage points, game difference, level difference


def _natural(team_no: str) -> tuple:
    number = re.search(r"\d+", team_no)
    return (re.sub(r"\d.*", "", team_no), int(number.group()) if number else -1, team_no)


def without(places: list[Place], disqualified: set[str]) -> list[Place]:
    """The places once disqualified teams are taken out: they take no place and the teams
    below move up, shared places staying shared (docs/rules/general.md §8).

    >>> ps = [Place("T3", 1, "", ()), Place("T1", 2, "决赛", ()), Place("T2", 3, "半决赛", ()),
    ...       Place("T4", 3, "半决赛", ()), Place("T5", 5, "小组赛", ())]
    >>> [(p.team_no, p.rank) for p in without(ps, {"T1"})]
    [('T3', 1), ('T2', 2), ('T4', 2), ('T5', 4)]
    """
    kept = [p for p in places if p.team_no not in disqualified]
    moved = []
    for index, place in enumerate(kept):
        same = index and kept[index - 1].rank == place.rank
        rank = moved[-1].rank if same else index + 1
        moved.append(Place(place.team_no, rank, place.out_in, place.record))
    return moved


def knockout_places(stages: list[dict], records: dict[str, tuple]) -> list[Place]:
    """Every team's place, best first, once the final is decided (else []).

    `stages` in order of play (groups first) with their matches (`team_a`, `team_b`,
    `winner`); `records` maps every team to its group-stage record (higher is better)."""
    knockout = [s for s in stages if s["kind"] == "knockout" and s["name"] != THIRD_PLACE]
    if not knockout or len(knockout[-1]["matches"]) != 1 or not knockout[-1]["matches"][0]["winner"]:
        return []
    third = next((s for s in stages if s["name"] == THIRD_PLACE), None)
    final = knockout[-1]["matches"][0]
    champion = final["winner"]
    runner_up = final["team_b"] if champion == final["team_a"] else final["team_a"]
    places = [Place(champion, 1, "", records.get(champion, ())),
              Place(runner_up, 2, knockout[-1]["name"], records.get(runner_up, ()))]
    placed = {champion, runner_up}

    def by_record(teams: list[str]) -> list[str]:
        return sorted(teams, key=lambda t: (tuple(-x for x in records.get(t, ())), _natural(t)))

    for stage in reversed(knockout[:-1]):
        out = [t for m in stage["matches"] if m["winner"] and m["team_b"]
               for t in (m["team_a"], m["team_b"]) if t != m["winner"] and t not in placed]
        if stage is knockout[-2] and third is not None and third["matches"][0]["winner"]:
            match = third["matches"][0]
            loser = match["team_b"] if match["winner"] == match["team_a"] else match["team_a"]
            ordered = [(match["winner"], 3), (loser, 4)]
        elif stage is knockout[-2]:
            ordered = [(t, 3) for t in by_record(out)]  # both losing semi-finalists share 3rd
        else:
            ordered = _ranked(by_record(out), records, len(places) + 1)
        for team, rank in ordered:
            places.append(Place(team, rank, stage["name"], records.get(team, ())))
            placed.add(team)
    rest = by_record([t for t in records if t not in placed])
    places += [Place(t, rank, "小组赛", records.get(t, ()))
               for t, rank in _ranked(rest, records, len(places) + 1)]
    return places


def _ranked(teams: list[str], records: dict[str, tuple], start: int) -> list[tuple[str, int]]:
    """(team, place) from place `start` on, teams in order: teams with an equal group-stage
    record share a place (the next team's place counts them all), never split by team number.

    >>> _ranked(["T5", "T6", "T8", "T3"], {"T5": (2, 0, 0), "T6": (1, -2, -20),
    ...         "T8": (1, -2, -20), "T3": (0, -4, -30)}, 5)
    [('T5', 5), ('T6', 6), ('T8', 6), ('T3', 8)]
    """
    out: list[tuple[str, int]] = []
    for i, team in enumerate(teams):
        same = i and records.get(team, ()) == records.get(teams[i - 1], ())
        out.append((team, out[-1][1] if same else start + i))
    return out
