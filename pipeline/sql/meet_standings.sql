-- marts: one row per affiliation of a meet: placement points summed over the meet's events,
-- less the forfeit deductions (docs/rules/general.md §8), one per forfeited match (meet_forfeits). Needs
-- event_ranks (event_id, rank, team_no, affiliation) registered by the caller from each
-- event's standings.
with

placements as (
    select r.event_id, r.affiliation,
           coalesce(me.placement_points[r.rank], 0) as points
    from event_ranks as r
    join meet_events as me on me.event_id = r.event_id and me.meet_id = $meet_id
    where r.rank <= len(me.placement_points)
),

forfeits as (
    select event_id, affiliation, sum(deduction) as deduction
    from meet_forfeits
    group by event_id, affiliation
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
