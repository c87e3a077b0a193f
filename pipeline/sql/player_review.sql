-- marts: one row per seat of player $p that the evidence marked for review (a stand-in's
-- event either namesake could have played, a partnership taking turns with another, one
-- event under another unit, a member id under another name…): the event and the words,
-- in date order.
with

marked as (
    select m.event_id, m.team_no, m.note,
           coalesce(e.event_date, e.created_at::date) as day
    from player_map as m
    join events as e using (event_id)
    where m.player_id = $p and m.note is not null
),

final as (
    select event_id, team_no, note
    from marked
    order by day, event_id, team_no
)

select * from final
