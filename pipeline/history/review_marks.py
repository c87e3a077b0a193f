"""What the evidence of one name cannot settle, marked for the organizer's review (issue 52),
once `evidence.people` has grouped the seats: two lasting partnerships of one person taking
turns (two namesakes of one club, or one person with two partners?), and a stand-in's seat
either of two active namesakes could have played. Pure: the seats and the grouping in (a
`evidence._Found`), notes written in place; nothing regrouped.
"""

from __future__ import annotations

ALTERNATIONS = 3  # two lasting partnerships of one person that take turns this often (A B
# A B) ask "two people with one name?": one person changing partner does so in a block
STAND_IN = "替补一场，同名者皆可能 a stand-in's event, either namesake's: review"
TURNS = "同名两人？两个搭档轮流出现 two people with one name? two lasting partners taking turns: review"


def taking_turns(seats: list, found) -> list[tuple[int, list[int], list[int]]]:
    """(person, one partnership's seats, the other's) for each two lasting partnerships of
    one person, neither partner ever in the other's events, that take turns
    (`ALTERNATIONS` changes in date order, A B A B); the earlier partnership first."""
    pairs = []
    for r in sorted({found.root(i) for i in range(len(seats))}):
        kept = sorted(found.lasting(r))
        with_ = {p: [i for i in found.members_of(r) if p in seats[i].partners] for p in kept}
        for a, p in enumerate(kept):
            for q in kept[a + 1:]:
                if {seats[i].event_id for i in with_[p]} & {seats[i].event_id
                                                            for i in with_[q]}:
                    continue
                days = sorted([(seats[i].day, 0, i) for i in with_[p]]
                              + [(seats[i].day, 1, i) for i in with_[q]])
                if sum(x[1] != y[1] for x, y in zip(days, days[1:], strict=False)) < ALTERNATIONS:
                    continue
                first = with_[p] if days[0][1] == 0 else with_[q]
                pairs.append((r, first, with_[q] if first is with_[p] else with_[p]))
    return pairs


def turns(seats: list, found, note: list[str]) -> None:
    """Two lasting partnerships of one person taking turns (`taking_turns`): two namesakes
    of one club, or one person with two partners, the seats cannot say — the later
    partnership's seats are noted "two people with one name?" for the organizer to split or
    leave. (One person changing partner does so in a block, and may go back once.)"""
    for _, _, later in taking_turns(seats, found):
        for i in later:
            if not note[i]:
                note[i] = TURNS


def stand_ins(seats: list, found, member: list[str | None], note: list[str],
              active_days: int) -> None:
    """A seat with a partner its person never had otherwise, no member id, while another
    person of the name was active and free that day (not in that event, never with that
    partner, the unit a home of both or of neither; a member, only when the seat's person is
    one too — else he would have given his id): either could have stood in there, so the
    seat is noted for review. The same while the two are still one id, asked about as two
    lasting partnerships taking turns (`taking_turns`): a seat of that id with a partner of
    its own, while both partnerships were active, the unit one of both or of neither, could
    be either suspected person's."""
    roots = {found.root(i) for i in range(len(seats))}
    suspected = taking_turns(seats, found)
    for i, seat in enumerate(seats):
        r = found.root(i)
        if note[i] or member[i] or not seat.partners or len(found.members_of(r)) < 2 or any(
                seats[j].partners & seat.partners for j in found.members_of(r) if j != i):
            continue
        mine = seat.unit in found.homes(r)
        for q in roots - {r}:
            first, last = found.span(q)
            if first - active_days <= seat.day <= last + active_days \
                    and seat.event_id not in found.events(q) \
                    and (not found.member_ids(q) or found.member_ids(r)) \
                    and not found.partners(q) & seat.partners \
                    and (seat.unit in found.homes(q)) == mine:
                note[i] = STAND_IN
                break
        else:
            for person, one, other in suspected:
                if person == r and all(_active(seats, side, seat, active_days)
                                       for side in (one, other)) and len(
                        {seat.unit in {seats[j].unit for j in side} for side in (one, other)}
                ) == 1:
                    note[i] = STAND_IN
                    break


def _active(seats: list, side: list[int], seat, active_days: int) -> bool:
    """`seat` falls within the time of the seats `side` (± `active_days`)."""
    days = [seats[j].day for j in side]
    return min(days) - active_days <= seat.day <= max(days) + active_days
