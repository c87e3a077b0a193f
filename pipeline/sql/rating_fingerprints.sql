-- marts: one row per event, its day and a fingerprint of everything its ratings read (the
-- results, who sat where, and whether a seat's person is unclear: its note is $unclear). An
-- event whose fingerprint changed, or a new one, is refitted from its day on; the stored
-- history before that day stays.
with

parts as (
    select event_id, 'r' as part, count(*) as n,
           bit_xor(hash(round, table_no, ew_team, ns_team, ew_level, ns_level, forfeit)) as h
    from results group by event_id
    union all
    select event_id, 'm', count(*),
           bit_xor(hash(team_no, slot, player_id, coalesce(note = $unclear, false)))
    from player_map group by event_id
),

final as (
    select
        e.event_id,
        coalesce(e.event_date, e.created_at::date) as day,
        coalesce(e.event_date, e.created_at::date)::varchar || ';' || e.created_at::varchar
            || ';' || coalesce(string_agg(p.part || p.n || '.' || p.h, ',' order by p.part), '')
            as fingerprint
    from events as e
    left join parts as p using (event_id)
    group by e.event_id, e.event_date, e.created_at
)

select * from final
