-- marts: one row per affiliation of a meet: placement points summed over the meet's events,
-- less the forfeit deductions (RULES 8). Needs event_ranks (event_id, rank, team_no,
-- affiliation) registered by the caller from each event's standings.
with

placements as (
    select r.event_id, r.affiliation,
           coalesce(me.placement_points[r.rank], 0) as points
    from event_ranks as r
    join meet_events as me on me.event_id = r.event_id and me.meet_id = $meet_id
    where r.rank <= len(me.placement_points)
),

forfeits as (
    -- every table a team forfeited costs its affiliation the event's deduction
    select me.event_id, t.affiliation, count(*) * me.forfeit_deduction as deduction
    from results as res
    join meet_events as me on me.event_id = res.event_id and me.meet_id = $meet_id
    join teams as t on t.event_id = res.event_id
        and t.team_no = case res.forfeit when 'ew' then res.ew_team else res.ns_team end
    where res.forfeit is not null
    group by me.event_id, t.affiliation, me.forfeit_deduction
),

units as (
    select affiliation from placements
    union
    select affiliation from forfeits
),

final as (
    select
        coalesce(u.affiliation, '') as affiliation,
        coalesce((select sum(p.points) from placements p
                  where p.affiliation is not distinct from u.affiliation), 0)::bigint
            as placement_points,
        coalesce((select sum(f.deduction) from forfeits f
                  where f.affiliation is not distinct from u.affiliation), 0)::bigint
            as forfeit_deductions
    from units as u
)

select
    rank() over (order by placement_points - forfeit_deductions desc) as rank,
    affiliation, placement_points, forfeit_deductions,
    placement_points - forfeit_deductions as total
from final
