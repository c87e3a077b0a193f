-- intermediate: one row per team with a penalty in a round in which it has no game (yet),
-- with their sums by target: they count all the same (team_totals subtracts them). Needs
-- stg_results.
with

final as (
    select p.event_id, p.team_no,
           sum(p.amount) filter (where p.target = 'match_points')::bigint as match_points,
           sum(p.amount) filter (where p.target = 'level_diff_score')::bigint as level_diff_score,
           sum(p.amount) filter (where p.target = 'levels')::bigint as levels
    from penalties as p
    where p.event_id in (select unnest($event_ids)) and p.round <= $max_round
      and not exists (select 1 from stg_results as g
                      where g.event_id = p.event_id and g.round = p.round
                        and (g.ew_team = p.team_no or (not g.is_bye and g.ns_team = p.team_no)))
    group by p.event_id, p.team_no
)

select * from final
