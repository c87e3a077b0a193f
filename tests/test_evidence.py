"""The evidence of who is who (issue 40): the all-at-once reading of the simple names
(`one_home`) is the name-by-name reading (`people`) on every name it takes, over random
leagues of seats; and the cases by hand."""

from __future__ import annotations

import random

import polars as pl

from pipeline.history.evidence import ANOTHER_UNIT, Seat, one_home, people
from pipeline.history.review_marks import STAND_IN, TURNS


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


def _league_of_one_name(rng: random.Random) -> list[Seat]:
    """One name's seats: a few people (units, lasting partners, member ids now and then),
    each playing some of 16 events; stand-ins with strangers."""
    seats = []
    for person in range(rng.randint(1, 3)):
        unit, partner = rng.choice("abc"), f"m{rng.randrange(4)}"
        member = ("SZ-1000", "SZ-2357", "SZ-4711")[person] if rng.random() < 0.3 else None
        for e in rng.sample(range(16), rng.randint(1, 9)):
            mate = partner if rng.random() < 0.8 else f"s{rng.randrange(20)}"
            seats.append(Seat(f"e{e:02d}", e, rng.choice([unit, unit, "z"]), frozenset({mate}),
                              rng.random() < 0.5, member if rng.random() < 0.8 else None))
    return seats


def test_the_reading_keeps_its_promises_on_random_names():
    """Issue 52, over random names: two seats of one event are never one person, two member
    ids (two or more characters apart: not a typo) never one, one member id always one."""
    rng = random.Random(52)
    for _ in range(300):
        seats = sorted(_league_of_one_name(rng), key=lambda s: s.day)  # as identity gives
        label, note, visit = people(seats)
        for i, a in enumerate(seats):
            for j, b in enumerate(seats[:i]):
                if a.event_id == b.event_id:
                    assert label[i] != label[j]
                if a.member_id and b.member_id:
                    assert (label[i] == label[j]) == (a.member_id == b.member_id)
        assert len(note) == len(visit) == len(seats)


def test_a_member_id_mistyped_twice_the_same_way_is_the_member_s():
    """Issue 52: SZ-1000 given in six events, SZ-1001 in two (one digit off, a third as
    often): one person, the two seats noted as a typo. Two ids of one name seen about as
    often (SZ-2000 four times, SZ-2001 three) are two people; an id seen once, one digit
    from one seen twice, is a typo."""
    seat = lambda e, m: Seat(f"e{e}", e, "a", frozenset({"x"}), False, m)  # noqa: E731
    label, note, _ = people([seat(e, "SZ-1001" if e in (4, 8) else "SZ-1000")
                             for e in range(1, 9)])
    assert label == [0] * 8
    assert [bool(n) for n in note] == [e in (4, 8) for e in range(1, 9)]
    label, _, _ = people([seat(e, "SZ-2001" if e in (2, 4, 6) else "SZ-2000")
                          for e in range(1, 8)])
    assert label == [0, 1, 0, 1, 0, 1, 0]
    label, note, _ = people([seat(1, "SZ-3000"), seat(2, "SZ-3010"), seat(3, "SZ-3000")])
    assert label == [0, 0, 0] and note[1]  # once, from an id seen twice: a typo too


def test_a_stand_in_without_a_member_id_is_the_namesake_who_never_gives_one():
    """Issue 52, by hand: two 马平磊 of one club, both playing e1, e2, e4, e5 (two people):
    one a member who gives SZ-7 every time, the other never a member id. In e3 one of them
    stands in with a stranger under their club, no member id given: the namesake who never
    gives one (the member would have). Likewise under a stranger's unit between namesakes
    of two clubs."""
    def seat(e, unit, mate, member=None, explained=False):
        return Seat(f"e{e}", e, unit, frozenset({mate}), explained, member)

    member = [seat(e, "a", "x", "SZ-7") for e in (1, 2, 4, 5)]
    other = [seat(e, "a", "y") for e in (1, 2, 4, 5)]
    label, _, _ = people(member + other + [seat(3, "a", "s")])
    assert label == [0] * 4 + [1] * 4 + [1]
    other = [seat(e, "b", "y") for e in (1, 2, 4, 5)]
    label, _, visit = people(member + other + [seat(3, "z", "s", explained=True)])
    assert label == [0] * 4 + [1] * 4 + [1] and visit[-1]


def test_a_one_off_under_the_club_joins_the_bigger_namesake_not_the_member_into_it():
    """Issue 52, by hand (a within-club pair of a league): 马平磊 the member (SZ-7 every time,
    with x, e1–e7) and 马平磊 who never gives one (with y, e1–e7 and e9–e11) are two people
    (one event together). In e8 one of them plays once with a stranger under the club, no
    id given: it is the one who never gives one — the member is never joined into the
    one-off."""
    def seat(e, mate, member=None):
        return Seat(f"e{e:02d}", e, "a", frozenset({mate}), False, member)

    member = [seat(e, "x", "SZ-7") for e in range(1, 8)]
    other = [seat(e, "y") for e in (*range(1, 8), 9, 10, 11)]
    label, _, _ = people(member + other + [seat(8, "s")])
    assert label == [0] * 7 + [1] * 10 + [1]


def test_a_unit_seen_only_as_a_visit_does_not_draw_a_namesake_s_one_off():
    """Issue 52, by hand: 高鹏霞 A plays for a with x (e1–e10); 高鹏霞 B for b with y
    (e1, e3, e10) and under c with z and with v, who play for c with others (visits, e5,
    e7).
    In e9 one of them stands in under c with w (who plays for c too): c is no home of
    B's, so nothing draws the seat to B; A, who plays more (more often at hand), has it."""
    def seat(e, unit, mate, explained=False):
        return Seat(f"e{e:02d}", e, unit, frozenset({mate}), explained, None)

    a = [seat(e, "a", "x") for e in (1, 2, 3, 4, 5, 6, 7, 8, 10)]
    b = [seat(1, "b", "y"), seat(3, "b", "y"), seat(5, "c", "z", True),
         seat(7, "c", "v", True), seat(10, "b", "y")]
    label, _, visit = people(a + b + [seat(9, "c", "w", True)])
    assert label == [0] * 9 + [1] * 5 + [0] and visit[-1]


def test_a_one_off_just_before_a_namesake_s_first_seat_may_be_his():
    """Issue 52, by hand: 苏浩涛 the member (SZ-4 in every seat, club a, days 0–140 but 28) and
    苏浩涛 of club b who never gives one (days 56–140) play one event together (two people).
    On day 28 one of them stands in under a stranger's unit, no member id given: four weeks
    before b's first seat is within b's time, and the member would have given his id."""
    def seat(day, unit, mate, member=None, explained=False):
        return Seat(f"e{day:03d}", day, unit, frozenset({mate}), explained, member)

    member = [seat(d, "a", "x", "SZ-4") for d in range(0, 141, 14) if d != 28]
    other = [seat(d, "b", "y") for d in (56, 84, 112, 140)]
    label, note, _ = people(member + other + [seat(28, "z", "s", explained=True)])
    assert label == [0] * len(member) + [1] * 5
    assert note[-1]  # still marked for review: either namesake might have been there


def test_one_offs_beside_two_partnerships_of_one_club_keep_them_two_people():
    """Issue 52, by hand (周兰兰, two of one club): X with x (e1, e3, e5, e7), Y with y (e2,
    e4, e6, e8), never in one event — alone, the rule reads them as one person with two
    partners. But in e4 a 周兰兰 stands in with s beside Y, and in e5 one with t beside X:
    two people, each with their own stand-in event (X's in e4, Y's in e5), not one person
    alternating partners and a third who only ever stands in."""
    def seat(e, mate):
        return Seat(f"e{e}", e, "a", frozenset({mate}), False, None)

    x = [seat(e, "x") for e in (1, 3, 5, 7)]
    y = [seat(e, "y") for e in (2, 4, 6, 8)]
    label, _, _ = people(x + y + [seat(4, "s"), seat(5, "t")])
    assert label == [0] * 4 + [1] * 4 + [0, 1]


def test_back_with_the_old_partner_after_a_namesake_began_is_no_move():
    """Issue 52, by hand (杜凯伟 of two clubs): A plays for a with x (days 1, 3, 5 and 14); B
    for b with y and z from day 10. A's last seat, after B began, is with his old partner x,
    whom B never plays with: the partnership goes on, so B is no move of A's — two people."""
    def seat(day, unit, mate):
        return Seat(f"e{day:02d}", day, unit, frozenset({mate}), False, None)

    a = [seat(d, "a", "x") for d in (1, 3, 5, 14)]
    b = [seat(10, "b", "y"), seat(11, "b", "y"), seat(12, "b", "y"), seat(13, "b", "z")]
    label, _, _ = people(a + b)
    assert label == [0] * 4 + [1] * 4


def _club_seat(e: int, mate: str) -> Seat:
    return Seat(f"e{e:02d}", e, "a", frozenset({mate}), False, None)


def test_two_lasting_partnerships_taking_turns_ask_two_people_a_block_change_does_not():
    """Issue 52's acceptance, by hand: 王伟 of one club with x in e1, e3, e5 and with y in e2,
    e4, e6, never in one event — the partnerships take turns (A B A B A B): two namesakes,
    or one person with two partners; the seats cannot say, so the later partnership's seats
    ask "two people with one name?". One person changes partner in a block (x in e1–e3, y
    in e4–e6), and may go back once (then x in e7, e8): nothing asked."""
    turns = [_club_seat(e, "x") for e in (1, 3, 5)] + [_club_seat(e, "y") for e in (2, 4, 6)]
    label, note, _ = people(turns)
    assert label == [0] * 6 and note == [""] * 3 + [TURNS] * 3
    block = [_club_seat(e, "x") for e in (1, 2, 3)] + [_club_seat(e, "y") for e in (4, 5, 6)]
    assert people(block)[:2] == ([0] * 6, [""] * 6)
    back = block + [_club_seat(e, "x") for e in (7, 8)]
    assert people(back)[:2] == ([0] * 8, [""] * 8)


def test_a_stand_in_between_two_active_namesakes_is_marked_for_review():
    """Issue 52's acceptance, by hand: two 王伟 of one club, X with x (e1, e3, e5, e8) and Y
    with y (e2, e4, e6, e8: beside X, two people); in e7 a 王伟 with z, whom neither ever
    had, under the club: either could have stood in — whoever it is given to, the seat is
    marked. A stand-in beside a namesake in one event is the other's: no mark; nor is a
    stand-in when the name has one person."""
    two = [_club_seat(e, "x") for e in (1, 3, 5, 8)] + [_club_seat(e, "y") for e in (2, 4, 6, 8)]
    label, note, _ = people(two + [_club_seat(7, "z")])
    assert label[:8] == [0] * 4 + [1] * 4 and note[-1] == STAND_IN
    assert STAND_IN not in note[:8]
    label, note, _ = people(two + [_club_seat(6, "z")])
    assert label[-1] == 0 and note[-1] == ""
    alone = [_club_seat(e, "x") for e in (1, 2, 3)] + [_club_seat(4, "z")]
    assert people(alone)[1] == ["", "", "", ""]
    members = [Seat(s.event_id, s.day, s.unit, s.partners, False, "M1" if "x" in s.partners
                    else "M2") for s in two]  # both members, the stand-in gives no id
    label, note, _ = people(members + [_club_seat(7, "z")])
    assert label[:8] == [0] * 4 + [1] * 4 and note[-1] == STAND_IN
    one = [Seat(s.event_id, s.day, s.unit, s.partners, False, "M1") for s in two[:4]] + two[4:]
    label, note, _ = people(one + [_club_seat(7, "z")])  # the member would have given his
    assert label[-1] == 1 and note[-1] == ""


def test_a_stand_in_beside_two_partnerships_taking_turns_is_marked_while_they_are_one_id():
    """Issue 52, left open by the acceptance: 王伟 of one club with x in e1, e3, e5 and with
    y in e2, e4, e6 (one id, asked "two people with one name?"); in e7 a 王伟 with z, whom
    neither partnership ever had, under the club: the seat could be either suspected
    person's — marked, though the name is still one id. Under another club that only one
    partnership played for, or long after both ended, or beside a block change of partner
    (no question): not marked."""
    turns = [_club_seat(e, "x") for e in (1, 3, 5)] + [_club_seat(e, "y") for e in (2, 4, 6)]
    label, note, _ = people(turns + [_club_seat(7, "z")])
    assert label == [0] * 7 and note == [""] * 3 + [TURNS] * 3 + [STAND_IN]
    label, note, _ = people(turns + [_club_seat(400, "z")])  # a year after both ended
    assert label[-1] == 0 and note[-1] != STAND_IN
    x_elsewhere = [Seat(s.event_id, s.day, "b" if "x" in s.partners else "a", s.partners,
                        False, None) for s in turns]  # x's seats under b, y's under a
    label, note, _ = people(x_elsewhere + [_club_seat(7, "z")])
    assert note[-1] != STAND_IN
    block = [_club_seat(e, "x") for e in (1, 2, 3)] + [_club_seat(e, "y") for e in (4, 5, 6)]
    assert people(block + [_club_seat(7, "z")])[1][-1] == ""


def _seat(e: int, mate: str, member: str | None = None, unit: str = "a") -> Seat:
    return Seat(f"e{e:02d}", e, unit, frozenset({mate}), False, member)


def test_a_member_id_never_pulls_in_a_namesake_s_partnership_played_beside_him():
    """Issue 52 ("a member id is a strong claim, never a silent merge"), by hand: 王伟 of one
    club gives his member id M1 with x in e1, e4, e7, e9, e11; another 王伟 of the club, no
    member id, plays with y in e2 and e6 — while the member played with x in e4: a member
    who gives his id every time (5 of 5) would not have missed it twice — two people. (Had
    he given it 4 times in 5, missing it twice would be likely enough: one person.)
    The same member with y in e5 and e6 between his partnerships (x until e4, z from e9):
    a member who forgot his id for a while — one person."""
    member = [_seat(e, "x", "M1") for e in (1, 4, 7, 9, 11)]
    label, _, _ = people(member + [_seat(2, "y"), _seat(6, "y")])
    assert label == [0] * 5 + [1, 1]
    once = [*member[:3], _seat(9, "x"), member[4]]
    assert people(once + [_seat(2, "y"), _seat(6, "y")])[0] == [0] * 7
    forgot = [_seat(1, "x", "M1"), _seat(2, "x", "M1"), _seat(4, "x", "M1"), _seat(5, "y"),
              _seat(6, "y"), _seat(9, "z", "M1"), _seat(10, "z", "M1"), _seat(11, "z", "M1")]
    assert people(forgot)[0] == [0] * 8


def test_a_block_under_the_club_joins_the_namesake_whose_time_it_follows():
    """Two 王伟 of one club, both in e1 (two people): X with x in e1–e12, Y with y in e1, e3,
    e5, then nothing; a 王伟 with w in e7, e8, e9 (Y's new partner: his old one moved away)
    follows Y's time, beside X's — it is Y's, not the bigger X's."""
    x = [_seat(e, "x") for e in (1, 2, 4, 6, 8, 10, 12)]
    y = [_seat(e, "y") for e in (1, 3, 5)]
    w = [_seat(e, "w") for e in (7, 9, 11)]
    label, _, _ = people(x + y + w)
    assert label == [0] * 7 + [1] * 6
