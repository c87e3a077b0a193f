"""Which seats of one name are one person, decided from evidence across events (issue 40).
Pure: seats in, a person number per seat out; no storage, no ids (identity.py gives those).

A seat is one appearance of the name: an event, a day, the team's unit, the partners' folded
names, and whether those partners usually play for that unit (the seat is then explained by
the partner: a player may register under a partner's club). The reading:

1. A member id decides: the seats that give one are that member, whatever else they say.
2. The name's seats by unit. Two seats in one event are two people (two tables); within a
   unit they are told apart by their partners.
3. A unit played for in two events or more is a **home** of someone — unless every seat
   there is explained by its partner and the unit holds less than `HOME_SHARE` of the
   name's biggest unit (a player who now and then registers under a partner's club).
   One event under a unit that no partner explains joins the name's one person, flagged for
   review; beside namesakes it stays apart (flagged) until more events tell. Homes that overlap in time (both played for
   within one span of days) are two people — namesakes of two clubs. A home that starts
   after another has ended (`RETURNS` visits back to the old unit allowed) is the same
   person moving, when it follows within `gap_days` or keeps a partner; when two people could have moved there it stays apart, for
   review. A home of the unit of a member with the name joins that member.
4. The other seats — one event under a unit, or now and then a partner's unit — are visits: each joins
   the person who shares its partner, else the one playing at the time, else the nearest in
   time; with several candidates the choice is noted for review.

>>> seat = lambda e, d, u, p="", x=False: Seat(e, d, u, frozenset({p} if p else ()), x, None)
>>> people([seat("e1", 1, "a"), seat("e2", 2, "a"), seat("e3", 3, "b", "z", True)])[0]
[0, 0, 0]
>>> people([seat("e1", 1, "a"), seat("e2", 2, "a"), seat("e3", 3, "b")])[0:2]
([0, 0, 0], ['', '', '另一单位一场 one event under another unit: review'])
>>> people([seat("e1", 1, "a"), seat("e2", 2, "a"), seat("e1", 1, "c"), seat("e2", 2, "c"),
...         seat("e3", 3, "b")])[0]
[0, 0, 1, 1, 2]
>>> people([seat("e1", 1, "a"), seat("e2", 2, "a"), seat("e3", 3, "b"), seat("e4", 4, "b")])[0]
[0, 0, 0, 0]
>>> people([seat("e1", 1, "a", "x"), seat("e2", 5, "a", "y"),
...         seat("e1", 1, "b", "z"), seat("e3", 6, "b", "w")])[0]
[0, 0, 1, 1]
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

MOVER_GAP_DAYS = 365  # a home that starts within this of another's end continues it
HOME_SHARE = 0.5  # a partner's unit played for this often (of the biggest) is a home
RETURNS = 1  # a mover's seats under the old unit after the move that still make a move
ANOTHER_UNIT = "另一单位一场 one event under another unit: review"


@dataclass(frozen=True)
class Seat:
    event_id: str
    day: int  # the event's date as a day number
    unit: str  # folded; "" when none
    partners: frozenset[str]  # the team-mates' folded names
    explained: bool  # the partners usually play for this unit
    member_id: str | None


@dataclass
class Person:
    member_id: str | None = None
    seats: list[int] = field(default_factory=list)
    homes: set[str] = field(default_factory=set)
    events: set[str] = field(default_factory=set)
    partners: set[str] = field(default_factory=set)
    first: int | None = None
    last: int | None = None

    def take(self, index: int, seat: Seat, home: bool) -> None:
        self.seats.append(index)
        self.events.add(seat.event_id)
        self.partners |= seat.partners
        if home and seat.unit:
            self.homes.add(seat.unit)
        self.first = seat.day if self.first is None else min(self.first, seat.day)
        self.last = seat.day if self.last is None else max(self.last, seat.day)


def people(seats: list[Seat], gap_days: int = MOVER_GAP_DAYS) -> tuple[list[int], list[str],
                                                                        list[bool]]:
    """(person number, review note, visit) for each seat: a visit is a seat away from the
    person's homes (a partner's unit, a one-off)."""
    order = sorted(range(len(seats)), key=lambda i: (seats[i].day, seats[i].event_id, i))
    persons: list[Person] = []
    label: list[int | None] = [None] * len(seats)
    note = [""] * len(seats)
    visit = [False] * len(seats)

    def put(person: int, index: int, home: bool) -> None:
        label[index] = person
        persons[person].take(index, seats[index], home)

    members: dict[str, int] = {}
    for i in order:  # 1. the member id decides
        member = seats[i].member_id
        if member:
            if member not in members:
                members[member] = len(persons)
                persons.append(Person(member_id=member))
            put(members[member], i, True)
    groups = _unit_groups(seats, [i for i in order if label[i] is None])
    biggest = max((_events(seats, g) for g in groups), default=0)
    homes = [g for g in groups if _is_home(seats, g, biggest)]
    if not homes and not persons and groups:  # no home yet: the first of the biggest is one
        homes = [max(groups, key=lambda g: (_events(seats, g), -order.index(g[0])))]
    for group in sorted(homes, key=lambda g: (seats[g[0]].day, g[0])):  # 3. homes
        joined, why = _continued(seats, persons, group, gap_days)
        if joined is None:
            joined = len(persons)
            persons.append(Person())
        for i in group:
            put(joined, i, True)
            note[i] = why
    lone = [g for g in groups if g not in homes and seats[g[0]].unit
            and not all(seats[i].explained for i in g)
            and len([p for p in persons if not p.events & {seats[i].event_id for i in g}]) != 1]
    for group in lone:  # one event under a unit of its own beside namesakes: apart, flagged
        why = "同名，可能是同一人 a namesake, maybe the same person: review" if persons else ""
        persons.append(Person())
        for i in group:
            put(len(persons) - 1, i, True)
            note[i] = why
    for i in order:  # 4. visits
        if label[i] is None:
            joined, why = _visited(seats[i], persons)
            if joined is not None and not seats[i].explained and seats[i].unit and not why:
                why = ANOTHER_UNIT
            if joined is None:
                joined = len(persons)
                persons.append(Person())
                put(joined, i, True)
            else:
                put(joined, i, False)
                visit[i] = True
            note[i] = why
    return [int(x) for x in label], note, visit


def _unit_groups(seats: list[Seat], indices: list[int]) -> list[list[int]]:
    """The seats by unit; a unit's seats in one event go to different groups (two people),
    each to the group that shares its partner, else the biggest free one."""
    by_unit: dict[str, list[list[int]]] = {}
    for i in indices:
        groups = by_unit.setdefault(seats[i].unit, [])
        free = [g for g in groups if all(seats[j].event_id != seats[i].event_id for j in g)]
        shared = [g for g in free if any(seats[j].partners & seats[i].partners for j in g)]
        chosen = (shared or sorted(free, key=len, reverse=True) or [None])[0]
        if chosen is None:
            chosen = []
            groups.append(chosen)
        chosen.append(i)
    return [g for groups in by_unit.values() for g in groups]


def _events(seats: list[Seat], group: list[int]) -> int:
    return len({seats[i].event_id for i in group})


def _is_home(seats: list[Seat], group: list[int], biggest: int) -> bool:
    """Two events or more under the unit, not all of them now and then with its players."""
    events = _events(seats, group)
    if events < 2:
        return False
    return events >= HOME_SHARE * biggest or not all(seats[i].explained for i in group)


def _continued(seats: list[Seat], persons: list[Person], group: list[int],
               gap_days: int) -> tuple[int | None, str]:
    """The person a home belongs to: a member of that unit, or someone whose time ended
    before it began (a move); None for a new person."""
    unit = seats[group[0]].unit
    events = {seats[i].event_id for i in group}
    first = min(seats[i].day for i in group)
    partners = {p for i in group for p in seats[i].partners}
    members = [n for n, p in enumerate(persons)
               if p.member_id and unit in p.homes and not p.events & events]
    if len(members) == 1:
        return members[0], ""
    ended = [n for n, p in enumerate(persons) if p.member_id is None and p.last is not None
             and sum(seats[i].day >= first for i in p.seats) <= RETURNS
             and (first - _before(seats, p, first) <= gap_days or p.partners & partners)]
    back = "转会后又回原单位 moved, then played for the old unit again: review"
    if len(ended) == 1:
        return ended[0], back if persons[ended[0]].last >= first else ""
    kept = [n for n in ended if persons[n].partners & partners]
    if len(kept) == 1:
        return kept[0], back if persons[kept[0]].last >= first else ""
    if ended:
        return None, "可能是转会的同名选手 maybe a namesake who moved here: review"
    return None, ""


def _before(seats: list[Seat], person: Person, day: int) -> int:
    """The person's last day before `day` (their first, when none is before)."""
    return max((seats[i].day for i in person.seats if seats[i].day < day),
               default=person.first)


def _visited(seat: Seat, persons: list[Person]) -> tuple[int | None, str]:
    """The person a visit belongs to: who shares its partner, else who plays at the time,
    else the nearest in time (never someone already in that event)."""
    free = [n for n, p in enumerate(persons) if seat.event_id not in p.events]
    if not free:
        return None, ""
    unclear = "" if len(free) == 1 else "归属不确定 unclear which namesake: review"
    shared = [n for n in free if persons[n].partners & seat.partners]
    if len(shared) == 1:
        return shared[0], ""
    free = shared or free
    active = [n for n in free if persons[n].first <= seat.day <= persons[n].last]
    free = active or free
    chosen = min(free, key=lambda n: (min(abs(persons[n].first - seat.day),
                                          abs(persons[n].last - seat.day)),
                                      -len(persons[n].seats), n))
    return chosen, unclear


def one_home(frame: pl.DataFrame) -> pl.DataFrame:
    """`people` for the names it would find one person in, all at once (most names: a home,
    now and then a partner's unit): the names with no member id, no two seats in one event
    and at most one home. Returns their seats (`frame`'s rows: norm_name, event_id, team_no,
    slot, day, unit, explained) with `visit` and `note`; the other names are left out."""
    groups = frame.group_by("norm_name", "unit").agg(
        pl.col("event_id").n_unique().alias("events"), pl.col("explained").all().alias("all"),
        pl.min("day").alias("first"))
    groups = groups.with_columns(pl.max("events").over("norm_name").alias("biggest"))
    groups = groups.with_columns(((pl.col("events") >= 2) & (
        (pl.col("events") >= HOME_SHARE * pl.col("biggest")) | ~pl.col("all"))).alias("home"))
    shape = frame.group_by("norm_name").agg(
        pl.col("member_id").is_not_null().any().alias("members"),
        (pl.len() == pl.col("event_id").n_unique()).alias("once"))
    homes = groups.group_by("norm_name").agg(pl.col("home").sum().alias("homes"))
    simple = shape.join(homes, on="norm_name").filter(
        ~pl.col("members") & pl.col("once") & (pl.col("homes") <= 1)).select("norm_name")
    home = groups.join(simple, on="norm_name").sort(
        "home", "events", "first", "unit", descending=[True, True, False, False]).group_by(
        "norm_name", maintain_order=True).first().select("norm_name", pl.col("unit")
                                                         .alias("home_unit"))
    visit = pl.col("unit") != pl.col("home_unit")
    return frame.join(home, on="norm_name").with_columns(
        visit.alias("visit"),
        pl.when(visit & (pl.col("unit") != "") & ~pl.col("explained")).then(
            pl.lit(ANOTHER_UNIT)).otherwise(pl.lit(None, pl.String)).alias("note")).drop(
        "home_unit")
