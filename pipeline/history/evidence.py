"""Which seats of one name are one person, decided from the whole evidence across events,
partner first (issues 40, 52). Pure: seats in, a person number per seat out; no storage, no
ids (identity.py gives those).

A seat is one appearance of the name: an event, a day, the team's unit, the partners' folded
names, whether those partners usually play for that unit (the seat is then explained by the
partner: a team registers under either player's club), and the member id given. The reading:

1. A member id decides: the seats that give one are that member (an id seen once, a
   character from another of the name's ids, is that id mistyped: joined, noted). Two
   member ids are two people; two seats in one event are two people.
2. A partner: seats with one partner are one person, whatever unit the team registered
   under — a lasting partnership across clubs is one person.
3. A unit no partner explains: groups that played for it are one person — namesakes of
   one club are told apart only by what separates them: seats in one event (and so their
   partners' seats), member ids. The one-offs are placed first (the smallest groups into
   bigger ones), so that two lasting partnerships seen beside a namesake's one-off in one
   event stay two people; a one-off without a member id leans away from a member who gives
   theirs.
4. Moves: a person whose seats begin after another's ended (`RETURNS` seats back allowed,
   but not back with the old partner: that partnership goes on) is the same person with a
   new unit or partner, when it follows within `gap_days` or keeps a partner; with two such
   candidates it stays apart, for review.
5. Visits: what is left — a stand-in's event, a partner's club once — joins the person
   playing at the time (sharing its unit first), else the nearest in time; with several
   candidates the choice is noted for review. A unit seen only through a partner is a
   visit, never a home (a unit played for with two partners or more is a home).
6–7. What stays unsettled is noted for review, never regrouped (`review_marks`): two
   lasting partnerships taking turns, a stand-in's seat either active namesake could have had.

The module is kept whole: its steps are one reading, each regrouping what the one before it
left, over the same seats and groups (the marks of steps 6–7 live in review_marks.py).

>>> seat = lambda e, d, u, p="", x=False: Seat(e, d, u, frozenset({p} if p else ()), x, None)
>>> people([seat("e1", 1, "a"), seat("e2", 2, "a"), seat("e3", 3, "b", "z", True)])[0]
[0, 0, 0]
>>> people([seat("e1", 1, "a"), seat("e2", 2, "a"), seat("e3", 3, "b")])[0:2]
([0, 0, 0], ['', '', '另一单位一场 one event under another unit: review'])
>>> people([seat("e1", 1, "a", "x"), seat("e3", 3, "a", "x"), seat("e5", 5, "a", "x"),
...         seat("e1", 1, "a", "y"), seat("e4", 4, "a", "y"), seat("e6", 6, "a", "y")])[0]
[0, 0, 0, 1, 1, 1]
>>> people([seat("e1", 1, "a", "q", True), seat("e2", 2, "b", "q", True),
...         seat("e3", 3, "a", "q", True), seat("e4", 4, "b", "q", True)])[0]
[0, 0, 0, 0]
>>> people([seat("e1", 1, "a", "x"), seat("e2", 2, "a", "x"), seat("e3", 3, "a", "x"),
...         seat("e2", 2, "b", "y"), seat("e3", 3, "b", "y"), seat("e5", 5, "b", "y")])[0]
[0, 0, 0, 1, 1, 1]
>>> people([seat("e1", 1, "a", "x"), seat("e2", 5, "a", "y"),
...         seat("e1", 1, "b", "z"), seat("e3", 6, "b", "w")])[0]
[0, 0, 1, 1]
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from pipeline.history.review_marks import stand_ins, turns

MOVER_GAP_DAYS = 365  # a home that starts within this of another's end continues it
HOME_SHARE = 0.5  # a partner's unit played for this often (of the biggest) is a home
MISTYPED, TYPO_RATIO = 2, 3  # a member id seen once, a character from an id of the name
# seen twice, is that id mistyped; seen twice (a habit), from one seen TYPO_RATIO times as often
ACTIVE_DAYS = 90  # a one-off this near a person's first or last seat is in their time
RETURNS = 1  # a mover's seats under the old unit after the move that still make a move
MISSED_ID = 0.05  # a member missing his id in every seat of a group: less likely, not his
LASTING = 3  # events with one partner (or under one's own unit) that make a person
ANOTHER_UNIT = "另一单位一场 one event under another unit: review"
UNCLEAR = "归属不确定 unclear which namesake: review"
MOVED_BACK = "转会后又回原单位 moved, then played for the old unit again: review"
MAYBE_MOVED = "可能是转会的同名选手 maybe a namesake who moved here: review"
TYPO = "会员号 {0} 与 {1} 只差一位，按 {1} 计 member id {0} read as {1} mistyped: review"


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
    """(person number, review note, visit) for each seat of one name: a visit is a seat away
    from the person's homes (a partner's unit, a one-off). Persons are numbered by their
    first seat in date order."""
    order = sorted(range(len(seats)), key=lambda i: (seats[i].day, seats[i].event_id, i))
    member, note = _members(seats, order)  # 1. a member id decides (a typo noted)
    found = _Found(seats, member)
    for i in order:
        if member[i]:
            found.join(next(j for j in order if member[j] == member[i]), i)
    _partners(seats, order, found)  # 2. a lasting partner, whatever the unit written
    _units(seats, found)  # 3. the unit when no partner explains it
    _moves(seats, found, gap_days, note)  # 4. one home after another
    _visits(seats, found, note)  # 5. the one-offs
    turns(seats, found, note)  # 6. two lasting partnerships taking turns: asked about
    stand_ins(seats, found, member, note, ACTIVE_DAYS)  # 7. a one-off either namesake's
    roots = sorted({found.root(i) for i in range(len(seats))}, key=lambda r: found.first_seat(r))
    number = {r: n for n, r in enumerate(roots)}
    label = [number[found.root(i)] for i in range(len(seats))]
    visit = [False] * len(seats)
    for r in roots:
        homes = found.homes(r)
        for i in found.members_of(r):
            visit[i] = bool(homes) and seats[i].unit not in homes
            if visit[i] and not note[i] and seats[i].unit and not seats[i].explained \
                    and found.events_under(r, seats[i].unit) == 1:
                note[i] = ANOTHER_UNIT
    return label, note, visit


class _Found:
    """The seats of one name joined into people (union–find), with what each group holds:
    its events (two seats in one event are two people), member ids (two ids are two
    people), days and partners."""

    def __init__(self, seats: list[Seat], member: list[str | None]):
        self.seats = seats
        self.member = member
        self.parent = list(range(len(seats)))
        self.groups = {i: [i] for i in range(len(seats))}

    def root(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def members_of(self, r: int) -> list[int]:
        return self.groups[self.root(r)]

    def events(self, r: int) -> set[str]:
        return {self.seats[i].event_id for i in self.members_of(r)}

    def member_ids(self, r: int) -> set[str]:
        return {self.member[i] for i in self.members_of(r) if self.member[i]}

    def span(self, r: int) -> tuple[int, int]:
        days = [self.seats[i].day for i in self.members_of(r)]
        return min(days), max(days)

    def first_seat(self, r: int) -> int:
        return min(self.members_of(r), key=lambda i: (self.seats[i].day,
                                                      self.seats[i].event_id, i))

    def partners(self, r: int) -> set[str]:
        return {p for i in self.members_of(r) for p in self.seats[i].partners}

    def events_under(self, r: int, unit: str) -> int:
        return len({self.seats[i].event_id for i in self.members_of(r)
                    if self.seats[i].unit == unit})

    def homes(self, r: int) -> set[str]:
        """Units played for in two events or more that no partner explains; else (every seat
        explained) those played for in two events with two partners or more (no one partner's
        unit); else the unit played for most (one seen only through a partner is a visit)."""
        seats = [self.seats[i] for i in self.members_of(r) if self.seats[i].unit]
        own: dict[str, set[str]] = {}
        every: dict[str, set[str]] = {}
        mates: dict[str, set[str]] = {}
        for s in seats:
            every.setdefault(s.unit, set()).add(s.event_id)
            mates.setdefault(s.unit, set()).update(s.partners)
            if not s.explained:
                own.setdefault(s.unit, set()).add(s.event_id)
        homes = {u for u, e in own.items() if len(e) >= 2} or {
            u for u, e in every.items() if len(e) >= 2 and len(mates[u]) >= 2}
        if homes or not every:
            return homes
        most = max(len(e) for e in every.values())
        return {u for u, e in every.items() if len(e) >= HOME_SHARE * most and len(e) >= 2} \
            or {max(every, key=lambda u: (len(every[u]), u))}

    def anchored(self, r: int) -> bool:
        """A person in their own right: a lasting partnership, a member id, or a unit of
        their own (played for in two events, with one partner or at least once unexplained
        by a partner)."""
        if len(self.events(r)) >= LASTING or self.member_ids(r):
            return True
        under: dict[str, set[str]] = {}
        claimed = set()
        for i in self.members_of(r):
            s = self.seats[i]
            if s.unit:
                under.setdefault(s.unit, set()).add(s.event_id)
                if not s.explained:
                    claimed.add(s.unit)
        mates = [p for i in self.members_of(r) for p in self.seats[i].partners]
        kept = len(mates) > len(set(mates))
        return any(len(e) >= 2 and (u in claimed or kept) for u, e in under.items())

    def unlike(self, r: int, g: int) -> float:
        """How unlike `r` group `g` is by member ids: when `g` gives none, the share of
        `r`'s seats that give one (a member who always gives it would have: rather a
        namesake's seats), 0 for a person who never gives one; 0 when `g` gives one."""
        if self.member_ids(g):
            return 0.0
        members = self.members_of(r)
        return sum(1 for i in members if self.seats[i].member_id) / len(members)

    def overlaps(self, h: int, g: int) -> bool:
        """`h` and `g` played in the same stretch of time (their spans of days meet)."""
        (a, b), (c, d) = self.span(h), self.span(g)
        return a <= d and c <= b

    def would_show(self, h: int, g: int) -> bool:
        """`g` — a partnership (a partner kept), no seat giving a member id — played while
        member `h` played with others (a seat of `h` between `g`'s first and last), and `h`
        gives his id so often (his seats, smoothed) that missing it in every seat of `g` is
        less likely than `MISSED_ID`: `g` is somebody else, never pulled in by the member's
        name. (A block of `g` between `h`'s partnerships is a member who forgot his id for
        a while; one-offs are nobody's partnership.)"""
        if not self.member_ids(h) or self.member_ids(g):
            return False
        mates = [p for i in self.members_of(g) for p in self.seats[i].partners]
        if len(mates) == len(set(mates)):
            return False  # no partner kept: one-offs, nobody's partnership of their own
        first, last = self.span(g)
        members = self.members_of(h)
        if not any(first < self.seats[i].day < last for i in members):
            return False
        share = (sum(1 for i in members if self.member[i]) + 1) / (len(members) + 2)
        return (1 - share) ** len(self.members_of(g)) < MISSED_ID

    def lasting(self, r: int) -> set[str]:
        """The partners `r` played with in `LASTING` events or more."""
        seen: dict[str, set[str]] = {}
        for i in self.members_of(r):
            for p in self.seats[i].partners:
                seen.setdefault(p, set()).add(self.seats[i].event_id)
        return {p for p, e in seen.items() if len(e) >= LASTING}

    def can(self, a: int, b: int) -> bool:
        a, b = self.root(a), self.root(b)
        if a == b:
            return True
        ma, mb = self.member_ids(a), self.member_ids(b)
        return not (self.events(a) & self.events(b)) and not (ma and mb and ma != mb)

    def join(self, a: int, b: int) -> bool:
        a, b = self.root(a), self.root(b)
        if a == b or not self.can(a, b):
            return a == b
        if len(self.groups[a]) < len(self.groups[b]):
            a, b = b, a
        self.parent[b] = a
        self.groups[a] += self.groups.pop(b)
        return True

    def roots(self) -> list[int]:
        return sorted(self.groups, key=lambda r: (-len(self.events(r)), self.first_seat(r)))


def _members(seats: list[Seat], order: list[int]) -> tuple[list[str | None], list[str]]:
    """Each seat's member id, a member id seen once (twice) and a character from another of
    the name's ids seen twice (three times as often) read as that id mistyped (noted for
    review); and the notes."""
    counts: dict[str, int] = {}
    for i in order:
        if seats[i].member_id:
            counts[seats[i].member_id] = counts.get(seats[i].member_id, 0) + 1
    member = [s.member_id for s in seats]
    note = [""] * len(seats)
    for i in order:
        given = seats[i].member_id
        if given and counts[given] <= MISTYPED:
            often = 2 if counts[given] == 1 else TYPO_RATIO * counts[given]
            near = [m for m in counts if m != given and counts[m] >= often and _typo(m, given)]
            if len(near) == 1:
                member[i] = near[0]
                note[i] = TYPO.format(given, near[0])
    return member, note


def _typo(a: str, b: str) -> bool:
    """One character changed, or two neighbours swapped."""
    if len(a) != len(b):
        return False
    diff = [k for k in range(len(a)) if a[k] != b[k]]
    return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                              and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])


def _partners(seats: list[Seat], order: list[int], found: _Found) -> None:
    """Seats with one partner are one person, whatever unit the team registered under
    (the group that shares the most events with that partner first)."""
    seen: dict[str, list[int]] = {}
    for i in order:
        candidates = {found.root(j) for p in seats[i].partners for j in seen.get(p, ())}
        ranked = sorted(candidates, key=lambda r: (
            -sum(1 for j in found.members_of(r) if seats[j].partners & seats[i].partners),
            found.first_seat(r)))
        for r in ranked:
            if found.join(r, i):
                break
        for p in seats[i].partners:
            seen.setdefault(p, []).append(i)


def _units(seats: list[Seat], found: _Found) -> None:
    """A unit that is a home of the name — played for in two events by one group, or in
    two events at least once unexplained by a partner: the groups that played for it are
    one person (namesakes of one club are told apart by what separates them: two seats in
    one event, with their partners; two member ids)."""
    for unit in sorted({s.unit for s in seats if s.unit}):
        there = [i for i in range(len(seats)) if seats[i].unit == unit]
        by_group: dict[int, set[str]] = {}
        for i in there:
            by_group.setdefault(found.root(i), set()).add(seats[i].event_id)
        events = {seats[i].event_id for i in there}
        home = any(len(e) >= 2 for e in by_group.values()) or (
            len(events) >= 2 and not all(seats[i].explained for i in there))
        if not home:
            continue
        groups = sorted(by_group, key=lambda r: (-len(found.events(r)), found.first_seat(r)))
        for n in range(len(groups) - 1, 0, -1):  # the smallest first, each into a bigger
            g = groups[n]  # one, biggest first: one-offs placed before two lasting groups
            block = len(found.events(g)) >= 2  # are read as one; a block of events rather
            for h in sorted(groups[:n], key=lambda h: (  # joins the group it follows in
                    found.unlike(h, g), block and found.overlaps(h, g))):  # time
                h, g = found.root(h), found.root(g)
                if h != g and not found.would_show(h, g) and found.join(h, g):
                    break


def _moves(seats: list[Seat], found: _Found, gap_days: int, note: list[str]) -> None:
    """A person whose seats begin after another's ended (RETURNS seats back allowed) is the
    same person moving on — new unit, new partner — when it follows within `gap_days` or
    keeps a partner; with two such candidates it stays apart, for review."""
    anchored = sorted((r for r in found.roots() if found.anchored(r)),
                      key=lambda r: found.span(r)[0])
    for r in anchored:
        r = found.root(r)
        first = found.span(r)[0]
        ended = []
        for other in {found.root(o) for o in anchored} - {r}:
            members = found.members_of(other)
            later = [i for i in members if seats[i].day >= first]
            if len(later) > RETURNS or found.span(other)[0] >= first or not found.can(other, r) \
                    or found.would_show(other, r) or found.would_show(r, other):
                continue
            old = {p for i in members if seats[i].day < first for p in seats[i].partners}
            if any(seats[i].partners & old - found.partners(r) for i in later):
                continue  # back with the old partner, whom the new seats never show: no move
            before = max(seats[i].day for i in members if seats[i].day < first)
            if first - before <= gap_days or found.partners(other) & found.partners(r):
                ended.append(other)
        kept = [o for o in ended if found.partners(o) & found.partners(r)] or ended
        if len(kept) == 1:
            if found.span(kept[0])[1] >= first:  # thin: every seat of the move says so
                for i in found.members_of(r):
                    note[i] = note[i] or MOVED_BACK
            found.join(kept[0], r)
        elif kept:
            note[found.first_seat(r)] = MAYBE_MOVED


def _visits(seats: list[Seat], found: _Found, note: list[str]) -> None:
    """A group neither lasting nor with a unit of its own (a stand-in's event, a partner's
    club once) joins the person playing at the time (sharing its unit first), else the
    nearest in time; with several such people the choice is noted for review."""
    people = [r for r in found.roots() if found.anchored(r)]
    if not people:
        people = found.roots()[:1]
    for r in found.roots():
        r = found.root(r)  # a group joined before: its person's root now (never again)
        if r in {found.root(p) for p in people}:
            continue
        first, last = found.span(r)
        units = {seats[i].unit for i in found.members_of(r)}
        free = [p for p in people if found.can(p, r) and not found.would_show(p, r)]
        if not free:
            people.append(r)
            continue
        active = [p for p in free if found.span(p)[0] - ACTIVE_DAYS <= last
                  and first <= found.span(p)[1] + ACTIVE_DAYS]
        pool = active or free
        chosen = min(pool, key=lambda p: (
            not units & found.homes(p),  # a unit the person plays for, not a visit's
            found.unlike(p, r),  # no member id given: rather not a member's who gives it
            min(abs(found.span(p)[0] - first), abs(found.span(p)[1] - last)),
            -len(found.events(p)), found.first_seat(p)))
        if len(pool) > 1:
            note[found.first_seat(r)] = UNCLEAR
        found.join(chosen, r)


def one_home(frame: pl.DataFrame) -> pl.DataFrame:
    """`people` for the names it would find one person in, all at once (most names: one
    unit, or a handful of events): the names with no member id, no two seats in one event,
    at most one unit and fewer than two lasting partnerships' worth of events (no two
    groups could then be people of their own). Returns their seats (`frame`'s rows:
    norm_name, event_id, team_no, slot, day, unit, explained) with `visit` and `note`; the
    other names are left out."""
    shape = frame.group_by("norm_name").agg(
        pl.col("member_id").is_not_null().any().alias("members"),
        (pl.len() == pl.col("event_id").n_unique()).alias("once"),
        pl.col("unit").filter(pl.col("unit") != "").n_unique().alias("units"),
        (pl.col("unit") != "").any().alias("placed"),
        pl.col("event_id").n_unique().alias("events"))
    simple = shape.filter(~pl.col("members") & pl.col("once") & (pl.col("units") <= 1)
                          & (pl.col("events") < 2 * LASTING)).select("norm_name", "placed")
    return frame.join(simple, on="norm_name").with_columns(
        (pl.col("placed") & (pl.col("unit") == "")).alias("visit"),
        pl.lit(None, pl.String).alias("note")).drop("placed")
