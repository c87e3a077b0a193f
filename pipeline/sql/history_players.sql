-- marts: one row per player identity: names, affiliations, events, likely duplicates
-- (other identities with the same normalised name).
with

appearances as (
    select m.player_id, m.norm_name, m.name, m.affiliation, m.event_id,
           e.event_date, e.created_at
    from player_map as m
    join events as e using (event_id)
),

identities as (
    select
        player_id,
        any_value(norm_name) as norm_name,
        arg_max(name, coalesce(event_date, created_at::date)) as name,
        string_agg(distinct affiliation, ', ' order by affiliation) as affiliations,
        count(distinct event_id) as events,
        string_agg(distinct event_id, ', ' order by event_id) as event_ids
    from appearances
    group by player_id
),

final as (
    select
        i.*,
        coalesce((select string_agg(o.player_id, ', ' order by o.player_id)
                  from identities as o
                  where o.norm_name = i.norm_name and o.player_id <> i.player_id), '')
            as likely_duplicates
    from identities as i
)

select * from final
