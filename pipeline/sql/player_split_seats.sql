-- marts: one row per seat of player $p that the organizer's split takes (issue 52): in the
-- events $events (every event when null), in team $team when given, and only where a
-- team-mate's folded name is $partner when given — in date order.
with

seats as (
    select m.event_id, m.team_no, coalesce(e.event_date, e.created_at::date) as day
    from player_map as m
    join events as e using (event_id)
    where m.player_id = $p
      and ($events is null or list_contains($events, m.event_id))
      and ($team is null or m.team_no = $team)
      and ($partner is null or exists (
          select 1 from player_map as o
          where o.event_id = m.event_id and o.team_no = m.team_no and o.slot <> m.slot
            and o.norm_name = $partner))
),

final as (
    select event_id, team_no
    from seats
    order by day, event_id, team_no
)

select * from final
