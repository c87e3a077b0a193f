-- marts: one row per player identity as the rating list shows it on $d: the name and the
-- current unit — the unit of the latest seat that is not a visit (a team registered under
-- the partner's club says nothing of the player's own), else of the latest seat when every
-- seat is a visit — and the events played by then.
with

seats as (
    select m.player_id, m.name, m.affiliation, m.event_id, coalesce(m.visit, false) as visit,
           coalesce(e.event_date, e.created_at::date) as day
    from player_map as m
    join events as e using (event_id)
    where coalesce(e.event_date, e.created_at::date) <= $d
),

final as (
    select
        player_id,
        arg_max(name, day) as name,
        coalesce(arg_max(affiliation, day) filter (where not visit),
                 arg_max(affiliation, day)) as affiliation,
        count(distinct event_id) as events
    from seats
    group by player_id
)

select * from final
