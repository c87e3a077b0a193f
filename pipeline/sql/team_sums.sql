-- intermediate: one row per team with a game, or a penalty in a round without one, in the
-- rounds $first_round..$max_round, with its sums over them — and over the rounds before,
-- where they are kept (`kept_sums`: this layer's rows after round $first_round − 1, kept by
-- the ingest of that round; kept_sums_none.sql, no row, when the ranking reads every round).
-- Every column is a sum, so the rounds before and the rounds since add up: the ranking after
-- round r reads round r's results alone and the sums kept after round r − 1 (100,000 teams:
-- a sixth of the rows). Needs team_rounds, stg_results and kept_sums; team_totals reads it.
with

round_sums as (
    select
        event_id, team_no,
        count(*) as played,
        count(*) filter (where outcome = 'win') as wins,
        count(*) filter (where outcome = 'draw') as draws,
        count(*) filter (where outcome = 'loss') as losses,
        sum(match_points)::double as match_points,
        sum(level_diff_score) as level_diff_score,
        sum(vp) as vp,
        sum(levels) as levels,
        sum(net_levels) as net_levels,
        sum(levels - $start_level) filter (where not is_bye) as levels_gained,
        sum(games_won) as games_won,
        -- 累进分: the running total after each round, summed
        sum(match_points * ($max_round - round + 1))::double as progressive
    from team_rounds
    group by event_id, team_no
),

orphan_penalties as (
    -- penalties of a round in which the team has no game (yet): they count all the same
    select p.event_id, p.team_no,
           sum(p.amount) filter (where p.target = 'match_points') as orphan_match_points,
           sum(p.amount) filter (where p.target = 'level_diff_score')
               as orphan_level_diff_score,
           sum(p.amount) filter (where p.target = 'levels') as orphan_levels
    from penalties as p
    where p.event_id in (select unnest($event_ids)) and p.round <= $max_round
      and ($first_round <= 1 or p.round >= $first_round)
      and not exists (select 1 from stg_results as g
                      where g.event_id = p.event_id and g.round = p.round
                        and (g.ew_team = p.team_no or (not g.is_bye and g.ns_team = p.team_no)))
    group by p.event_id, p.team_no
),

kept as (
    -- the sums after round $first_round − 1; 累进分 counts each earlier round's points once
    -- more for every round since
    select k.* replace (
        k.progressive + k.match_points * ($max_round - $first_round + 1) as progressive)
    from kept_sums as k
    where k.event_id in (select unnest($event_ids))
),

final as (
    select
        event_id, team_no,
        sum(played)::bigint as played,
        sum(wins)::bigint as wins,
        sum(draws)::bigint as draws,
        sum(losses)::bigint as losses,
        sum(match_points)::double as match_points,
        sum(level_diff_score)::bigint as level_diff_score,
        sum(vp)::bigint as vp,
        sum(levels)::bigint as levels,
        sum(net_levels)::bigint as net_levels,
        sum(levels_gained)::bigint as levels_gained,
        sum(games_won)::bigint as games_won,
        sum(progressive)::double as progressive,
        sum(orphan_match_points)::bigint as orphan_match_points,
        sum(orphan_level_diff_score)::bigint as orphan_level_diff_score,
        sum(orphan_levels)::bigint as orphan_levels
    from (
        select * from round_sums
        union all by name
        select * from orphan_penalties
        union all by name
        select * from kept
    )
    group by event_id, team_no
)

select * from final
