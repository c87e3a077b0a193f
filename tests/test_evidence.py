"""The evidence of who is who (issue 40): the all-at-once reading of the simple names
(`one_home`) is the name-by-name reading (`people`) on every name it takes, over random
leagues of seats; and the cases by hand."""

from __future__ import annotations

import random

import polars as pl

from pipeline.history.evidence import ANOTHER_UNIT, Seat, one_home, people


def _random_seats(rng: random.Random, names: int) -> pl.DataFrame:
    rows = []
    for n in range(names):
        units = rng.sample(["a", "b", "c", "d", ""], rng.randint(1, 3))
        for e in rng.sample(range(12), rng.randint(1, 8)):
            rows.append({"norm_name": f"n{n}", "event_id": f"e{e:02d}", "team_no": "A1",
                         "slot": 1, "day": e, "unit": rng.choice(units),
                         "partners": [f"m{rng.randrange(6)}"],
                         "explained": rng.random() < 0.6, "member_id": None})
    return pl.DataFrame(rows).sort("norm_name", "day")


def test_the_simple_names_read_at_once_as_one_by_one():
    rng = random.Random(40)
    frame = _random_seats(rng, 400).with_row_index("order")
    fast = one_home(frame)
    assert 50 < fast["norm_name"].n_unique() < 400  # both kinds of name are in the sample
    for name, seats in fast.group_by("norm_name"):
        seats = seats.sort("order")
        label, note, visit = people([
            Seat(r["event_id"], r["day"], r["unit"], frozenset(r["partners"]), r["explained"],
                 None) for r in seats.iter_rows(named=True)])
        assert set(label) == {0}, name
        assert visit == seats["visit"].to_list(), name
        assert [n or None for n in note] == seats["note"].to_list(), name


def test_a_home_a_visit_and_a_seat_under_a_unit_nobody_explains():
    seat = lambda e, u, x=False: Seat(e, int(e[1:]), u, frozenset({"m"}), x, None)  # noqa: E731
    label, note, visit = people([seat("e1", "a"), seat("e2", "a"), seat("e3", "b", True),
                                 seat("e4", "c")])
    assert label == [0, 0, 0, 0] and visit == [False, False, True, True]
    assert note == ["", "", "", ANOTHER_UNIT]
