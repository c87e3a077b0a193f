"""The pure pairing engine: hand-worked cases and properties against brute force."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.pairing import draw_order, pair_round
from pipeline.pairing.matching import Penalties, band_matching, min_cost_matching, rank_cost
from pipeline.pairing.systems import plain_pairs

TEAMS = [f"T{i}" for i in range(1, 13)]


def _pairs(pairing):
    return [(t.ew_team, t.ns_team) for t in pairing.tables]


def test_snake4_blocks_of_four_and_a_last_block_of_two():
    ranked = [f"A{i}" for i in range(1, 11)]
    p = pair_round(ranked, "snake4")
    assert _pairs(p) == [("A1", "A3"), ("A2", "A4"), ("A5", "A7"), ("A6", "A8"),
                         ("A9", "A10")]
    assert [t.table for t in p.tables] == [1, 2, 3, 4, 5]


def test_rematch_avoided_by_the_closest_pairing():
    # plain snake4 on 8: 1–3, 2–4, 5–7, 6–8; 1 and 3 have met.
    # (1–4, 2–3) is 2 + 2 = 4 away from plain; (1–2, 3–4) is 4 + 4 = 8: the first wins.
    ranked = [f"R{i}" for i in range(1, 9)]
    p = pair_round(ranked, "snake4", played=[frozenset({"R1", "R3"})])
    assert _pairs(p) == [("R1", "R4"), ("R2", "R3"), ("R5", "R7"), ("R6", "R8")]
    assert p.rematches == []


def test_unavoidable_rematch_is_reported():
    p = pair_round(["X", "Y"], "monrad", played=[frozenset({"X", "Y"})])
    assert _pairs(p) == [("X", "Y")] and p.rematches == [("X", "Y")]


def test_bye_goes_to_the_lowest_ranked_team_without_one():
    ranked = ["A1", "A2", "A3", "A4", "A5"]
    assert pair_round(ranked, "monrad").bye == "A5"
    assert pair_round(ranked, "monrad", had_bye={"A5", "A4"}).bye == "A3"


def test_seats_higher_ranked_east_west_or_balanced():
    p = pair_round(["A", "B"], "monrad")
    assert _pairs(p) == [("A", "B")]
    balanced = pair_round(["A", "B"], "monrad", seats="balance",
                          seat_counts={"A": (2, 0), "B": (0, 2)})
    assert _pairs(balanced) == [("B", "A")]


def test_same_affiliation_kept_apart_where_possible():
    ranked = ["A1", "A2", "A3", "A4"]
    units = {"A1": "甲", "A2": "甲", "A3": "乙", "A4": "乙"}
    p = pair_round(ranked, "monrad", affiliations=units)
    # both ways apart are 8 from plain (1–2, 3–4): either is right, neither meets its unit
    assert p.same_affiliation == []
    assert all(units[a] != units[b] for a, b in _pairs(p))
    # a rematch weighs more than meeting one's own unit
    p = pair_round(ranked, "monrad", affiliations=units,
                   played=[frozenset({"A1", "A3"}), frozenset({"A1", "A4"})])
    assert ("A1", "A2") in _pairs(p)


def test_dutch_top_half_against_bottom_half_of_each_score_group():
    # scores 6,6,6,6 | 3,3 → 1–3, 2–4 | 5–6
    assert plain_pairs("dutch", [6, 6, 6, 6, 3, 3]) == [(0, 2), (1, 3), (4, 5)]
    # an odd group floats its last team down: 6,6,6 | 3,3,3 → 1–2, then (3,4,5,6) → 3–5, 4–6
    assert plain_pairs("dutch", [6, 6, 6, 3, 3, 3]) == [(0, 1), (2, 4), (3, 5)]


def test_draw_by_number_or_by_seed():
    teams = ["A10", "A2", "A1", "A3"]
    assert draw_order(teams, "team_no") == ["A1", "A2", "A3", "A10"]
    first = draw_order(teams, "random", 42)
    assert first == draw_order(list(reversed(teams)), "random", 42)
    assert sorted(first) == sorted(teams)


# -- properties against brute force -----------------------------------------------------------


def _matchings(items):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for k, other in enumerate(rest):
        for more in _matchings(rest[:k] + rest[k + 1:]):
            yield [(first, other), *more]


@st.composite
def fields(draw):
    n = draw(st.integers(min_value=2, max_value=12))
    ranked = TEAMS[:n]
    all_pairs = [frozenset({a, b}) for i, a in enumerate(ranked) for b in ranked[i + 1:]]
    played = draw(st.lists(st.sampled_from(all_pairs), unique=True, max_size=len(all_pairs)))
    had_bye = draw(st.lists(st.sampled_from(ranked), unique=True, max_size=n - 1))
    system = draw(st.sampled_from(["snake4", "monrad", "dutch"]))
    scores = sorted(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), reverse=True)
    return ranked, played, had_bye, system, scores


def _cost_model(ranked, played, system, scores, bye):
    field = [t for t in ranked if t != bye]
    field_scores = [s for t, s in zip(ranked, scores, strict=True) if t != bye]
    plain = plain_pairs(system, field_scores)
    partner = [0] * len(field)
    for i, j in plain:
        partner[i], partner[j] = j, i
    met = {frozenset(p) for p in played}
    return field, plain, partner, met


@settings(max_examples=150, deadline=None)
@given(fields())
def test_engine_matches_brute_force(case):
    ranked, played, had_bye, system, scores = case
    p = pair_round(ranked, system, scores=scores, played=played, had_bye=had_bye)
    seated = [t for pair in _pairs(p) for t in pair] + ([p.bye] if p.bye else [])
    assert sorted(seated) == sorted(ranked)  # every team exactly once
    if p.bye:
        assert p.bye not in had_bye or set(ranked) <= set(had_bye)
    field, plain, partner, met = _cost_model(ranked, played, system, scores, p.bye)
    index = {t: i for i, t in enumerate(field)}

    def score(matching):
        rematches = sum(frozenset((field[i], field[j])) in met for i, j in matching)
        return rematches, sum(rank_cost(i, j, partner) for i, j in matching)

    best = min(score(m) for m in _matchings(list(range(len(field)))))
    got = score([(index[a], index[b]) for a, b in _pairs(p)])
    assert got == best
    assert len(p.rematches) == best[0]


@settings(max_examples=100, deadline=None)
@given(fields(), st.integers(min_value=1, max_value=5))
def test_band_solver_is_exact_within_its_band(case, band):
    """Large fields use the banded solver: it must be the true optimum among banded pairings."""
    ranked, played, _, system, scores = case
    if len(ranked) % 2:
        ranked, scores = ranked[:-1], scores[:-1]
    field, plain, partner, met = _cost_model(ranked, played, system, scores, None)
    order = [k for pair in sorted(plain) for k in pair]
    weight = (len(field) ** 2 + 1) * (len(field) + 1)

    def cost(a, b):
        i, j = order[a], order[b]
        return (weight if frozenset((field[i], field[j])) in met else 0) + \
            rank_cost(i, j, partner)

    def total(m):
        return sum(cost(a, b) for a, b in m)

    banded = [m for m in _matchings(list(range(len(order))))
              if all(abs(a - b) <= band for a, b in m)]
    got = band_matching(len(order), band, cost)
    assert all(abs(a - b) <= band for a, b in got)
    assert sorted(x for pair in got for x in pair) == list(range(len(order)))
    assert total(got) == min(total(m) for m in banded)


@settings(max_examples=150, deadline=None)
@given(fields(), st.lists(st.integers(-1, 2), min_size=12, max_size=12),
       st.integers(min_value=1, max_value=5))
def test_vectorised_band_costs_equal_the_pair_by_pair_costs(case, groups, band):
    """Large fields compute a whole band of penalties at once (numpy): it must give the
    same costs, and so the same matching, as asking the penalty pair by pair."""
    ranked, played, _, system, scores = case
    if len(ranked) % 2:
        ranked, scores = ranked[:-1], scores[:-1]
    n = len(ranked)
    weight = (n ** 2 + 1) * (n + 1)
    met = {tuple(sorted(ranked.index(t) for t in pair)): weight for pair in played
           if pair <= set(ranked)}
    penalty = Penalties(met, groups[:n], n ** 2 + 1)
    plain = plain_pairs(system, scores)
    order = [k for pair in sorted(plain) for k in pair]
    costs = penalty.band(np.array(order), band)
    for a in range(n):
        for k in range(1, band + 1):
            expected = penalty(order[a], order[a + k]) if a + k < n else 0
            assert costs[a, k] == expected
    assert min_cost_matching(plain, penalty, full_limit=2, band=band) == \
        min_cost_matching(plain, lambda i, j: penalty(i, j), full_limit=2, band=band)


@settings(max_examples=50, deadline=None)
@given(fields())
def test_large_field_path_keeps_plain_pairs_without_conflicts(case):
    ranked, _, _, system, scores = case
    if len(ranked) % 2:
        ranked, scores = ranked[:-1], scores[:-1]
    plain = plain_pairs(system, scores)
    assert min_cost_matching(plain, lambda i, j: 0, full_limit=2) == sorted(plain)


@settings(max_examples=50, deadline=None)
@given(fields(), st.randoms(use_true_random=False))
def test_independent_of_input_order_and_deterministic(case, rnd):
    ranked, played, had_bye, system, scores = case
    shuffled = list(played)
    rnd.shuffle(shuffled)
    first = pair_round(ranked, system, scores=scores, played=played, had_bye=had_bye)
    second = pair_round(ranked, system, scores=scores, played=shuffled,
                        had_bye=list(reversed(had_bye)))
    assert first == second


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=60), st.integers(min_value=1, max_value=8),
       st.integers(min_value=0, max_value=2**31), st.sampled_from([3, 20, 1000]))
def test_the_compiled_band_loop_chooses_as_the_numpy_one(pairs, band, seed, spread):
    """Large fields run the banded programme compiled (numba): on any costs, with many ties
    (small spreads) and forbidden pairs, it chooses the same matching as numpy's (ties to
    the smallest partner offset in both), whatever the field's size."""
    import numpy as np

    from pipeline.pairing.compiled import band_dp, band_pairs
    from pipeline.pairing.matching import NEVER, _backtrack, _band_choices

    n = 2 * pairs  # places to pair: an even field
    rng = np.random.default_rng(seed)
    costs = rng.integers(0, spread, size=(n, band + 1)).astype(np.int64)
    costs[rng.random((n, band + 1)) < 0.1] += 10**12  # rematches
    costs[:, 0] = 0
    for k in range(1, band + 1):
        costs[max(n - k, 0):, k] = NEVER  # past the end
    compiled, vectorised = band_dp(costs, band, NEVER), _band_choices(costs, band)
    assert _backtrack(compiled) == _backtrack(vectorised)
    assert sorted(map(tuple, band_pairs(costs, band, NEVER).tolist())) == \
        _backtrack(vectorised)  # the compiled backtrack too



@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=2, max_value=120), st.integers(min_value=1, max_value=8),
       st.integers(min_value=0, max_value=2**31), st.integers(min_value=0, max_value=6),
       st.sampled_from([1, 2, 4]))
def test_the_repeated_steps_copied_choose_as_the_compiled_loop(pairs, band, seed, changes,
                                                                period):
    """A large field's costs repeat the plain order's pattern except at its rematches and
    units: the numpy programme copies the repeated steps instead of computing them. On such
    costs — a repeating pattern, a few places changed, forbidden pairs past the end — it
    chooses the same matching as the compiled loop, which computes every step."""
    import numpy as np

    from pipeline.pairing.compiled import band_dp
    from pipeline.pairing.matching import NEVER, _backtrack, _band_choices

    n = 2 * pairs
    rng = np.random.default_rng(seed)
    pattern = rng.integers(0, 20, size=(period, band + 1)).astype(np.int64)
    costs = np.tile(pattern, (-(-n // period), 1))[:n]
    for place in rng.integers(0, n, size=changes):
        costs[place, rng.integers(1, band + 1)] += int(rng.choice([1, 3, 10**12]))
    costs[:, 0] = 0
    for k in range(1, band + 1):
        costs[max(n - k, 0):, k] = NEVER  # past the end
    assert _backtrack(_band_choices(costs, band)) == _backtrack(band_dp(costs, band, NEVER))


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=25, max_value=90), st.integers(min_value=0, max_value=2**31),
       st.sampled_from(["snake4", "monrad", "dutch"]), st.booleans())
def test_a_large_fields_history_as_arrays_pairs_as_the_dict(pairs, seed, system, units):
    """A large field's history goes to the band as arrays (`PlacePairs`, issue 53): the
    same penalties, the same matching and the same rematches as the dict of place pairs
    it replaced — for the pairs, the band's vectorised costs and the engine as a whole."""
    from pipeline.pairing.matching import PlacePairs

    rng = np.random.default_rng(seed)
    n = 2 * pairs
    ranked = [f"T{i}" for i in range(n)]
    met = {tuple(sorted(int(x) for x in rng.choice(n, 2, replace=False)))
           for _ in range(int(rng.integers(0, 4 * n)))}
    met |= {(i, i + 1) for i in range(0, n - 1, int(rng.integers(2, 9)))}  # plain rematches
    low, high = (np.array([p[k] for p in sorted(met)], dtype=np.int64) for k in (0, 1))
    weight = (n ** 2 + 1) * (n + 1)
    groups = rng.integers(-1, 4, size=n).tolist() if units else None
    as_dict = Penalties(dict.fromkeys(sorted(met), weight), groups, n ** 2 + 1)
    as_arrays = Penalties(PlacePairs(low[::-1], high[::-1], weight), groups, n ** 2 + 1)
    scores = sorted(rng.integers(0, 4, size=n).tolist(), reverse=True)
    plain = plain_pairs(system, scores)
    order = np.array([k for pair in sorted(plain) for k in pair])
    assert (as_dict.band(order, 8) == as_arrays.band(order, 8)).all()
    assert all(as_dict(i, j) == as_arrays(i, j) for i in range(n) for j in range(n) if i != j)
    assert min_cost_matching(plain, as_arrays) == min_cost_matching(plain, as_dict) == \
        min_cost_matching(plain, lambda i, j: as_dict(i, j), full_limit=2)
    played = [(ranked[i], ranked[j]) for i, j in met]
    by_pairs = pair_round(ranked, system, scores=scores, played=played)
    import polars as pl

    by_frame = pair_round(ranked, system, scores=scores, played=pl.DataFrame(
        played, schema={"ew_team": pl.String, "ns_team": pl.String}, orient="row"))
    assert by_pairs == by_frame
    assert set(by_pairs.rematches) == {(ranked[i], ranked[j]) for i, j in met} & {
        (t.ew_team, t.ns_team) for t in by_pairs.tables}
