-- marts: pairs of identities with one folded name and what their seats say about them
-- (issue 52): `certain` when they sat in one event or carry two member ids (two people),
-- `shared` when they had a partner in common, `overlap` when their spans of days overlap.
-- The listing words it: two people with one name, or one person under two units?
-- `decided` when the organizer's split parted them (they hold seats of one evidence id);
-- `contradicted` when, since that split, an event stored afterwards shows a partner in
-- common (new evidence that they may be one person after all: asked again).
with

seats as (
    select m.player_id, m.base_id, m.norm_name, m.event_id, m.team_no, m.slot, m.member_id,
           coalesce(e.event_date, e.created_at::date) as day, e.created_at as stored_at
    from player_map as m
    join events as e using (event_id)
),

identities as (
    select player_id, any_value(norm_name) as norm_name, min(day) as first_day,
           max(day) as last_day, any_value(member_id) as member_id,
           list(distinct event_id) as event_list
    from seats
    group by player_id
),

seat_partners as (
    select s.player_id, s.event_id, s.stored_at, o.norm_name as partner
    from seats as s
    join seats as o on o.event_id = s.event_id and o.team_no = s.team_no
                       and o.slot <> s.slot
),

partners as (
    select distinct player_id, partner from seat_partners
),

decisions as (
    -- pairs the organizer's split parted, and when (the latest standing split of theirs)
    select a.player_id, b.player_id as other_id, max(o.created_at) as decided_at
    from seats as a
    join seats as b on a.base_id = b.base_id and a.player_id <> b.player_id
    join identity_overrides as o
        on o.kind = 'split' and o.undone_at is null
       and o.event_id in (a.event_id, b.event_id)
    group by a.player_id, b.player_id
),

pairs as (
    select a.player_id, b.player_id as other_id,
           len(list_intersect(a.event_list, b.event_list)) > 0
               or (a.member_id is not null and b.member_id is not null
                   and a.member_id <> b.member_id) as certain,
           exists (select 1 from partners as p join partners as q using (partner)
                   where p.player_id = a.player_id and q.player_id = b.player_id) as shared,
           a.first_day <= b.last_day and b.first_day <= a.last_day as overlap,
           d.decided_at is not null as decided,
           d.decided_at is not null and exists (
               select 1 from seat_partners as p join seat_partners as q using (partner)
               where p.player_id = a.player_id and q.player_id = b.player_id
                 and greatest(p.stored_at, q.stored_at) > d.decided_at) as contradicted
    from identities as a
    join identities as b on a.norm_name = b.norm_name and a.player_id <> b.player_id
    left join decisions as d on d.player_id = a.player_id and d.other_id = b.player_id
)

select * from pairs order by player_id, other_id
