-- marts: one row per player identity: names, units, events, likely duplicates (other
-- identities with the same folded name) and two events of one game on one day (one person
-- cannot play both: two people under one id, or a wrong merge), and two seats in one event.
with

appearances as (
    select m.player_id, m.norm_name, m.name, m.affiliation, m.event_id, m.member_id, m.visit,
           m.note,
           e.event_date, e.created_at,
           coalesce(nullif(regexp_extract(e.ruleset_toml,
                                          'discipline\s*=\s*"([a-z_]+)"', 1), ''),
                    'guandan') as discipline
    from player_map as m
    join events as e using (event_id)
),

identities as (
    select
        player_id,
        any_value(norm_name) as norm_name,
        arg_max(name, coalesce(event_date, created_at::date)) as name,
        -- the latest seat's unit that is not a visit (a team registered under the
        -- partner's club), else the latest seat's
        coalesce(arg_max(affiliation, coalesce(event_date, created_at::date))
                     filter (where not coalesce(visit, false)),
                 arg_max(affiliation, coalesce(event_date, created_at::date))) as current_unit,
        string_agg(distinct affiliation, ', ' order by affiliation) as affiliations,
        -- the units of the person's homes (a partner's unit now and then is a visit)
        list(distinct affiliation) filter (where affiliation is not null
                                           and not coalesce(visit, false)) as unit_list,
        string_agg(distinct note, '；') as notes,
        any_value(member_id) as member_id,
        count(distinct event_id) as events,
        string_agg(distinct event_id, ', ' order by event_id) as event_ids
    from appearances
    group by player_id
),

same_day as (
    -- two events of one game on one day (a meet's Guandan and Tractor may share a day)
    select player_id, string_agg(distinct event_date::varchar, ', ') as days
    from (select player_id, event_date from appearances where event_date is not null
          group by player_id, event_date, discipline having count(distinct event_id) > 1)
    group by player_id
),

two_seats as (
    -- two seats in one event under one id: one person cannot sit twice (an organizer's
    -- merge that an event contradicts, or a wrong one)
    select player_id, string_agg(event_id, ', ' order by event_id) as events
    from (select player_id, event_id from appearances
          group by player_id, event_id having count(*) > 1)
    group by player_id
),

final as (
    select
        i.*,
        coalesce((select string_agg(o.player_id, ', ' order by o.player_id)
                  from identities as o
                  where o.norm_name = i.norm_name and o.player_id <> i.player_id), '')
            as likely_duplicates,
        d.days as same_day_events,
        t.events as two_seat_events
    from identities as i
    left join same_day as d using (player_id)
    left join two_seats as t using (player_id)
)

select * from final
