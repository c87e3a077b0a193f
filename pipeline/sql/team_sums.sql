-- intermediate: one row per team with a game in the rounds team_rounds holds, with its sums
-- over them (orphan_penalties.sql adds the penalties of a round without a game). Every
-- column is a sum: the ranking at an ingest adds the latest round's to the sums kept after
-- the round before (team_sums_kept.sql). Needs team_rounds; team_totals reads it.
with

final as (
    select
        event_id, team_no,
        count(*)::bigint as played,
        count(*) filter (where outcome = 'win') as wins,
        count(*) filter (where outcome = 'draw') as draws,
        count(*) filter (where outcome = 'loss') as losses,
        sum(match_points)::double as match_points,
        sum(level_diff_score)::bigint as level_diff_score,
        sum(vp)::bigint as vp,
        sum(levels)::bigint as levels,
        sum(net_levels)::bigint as net_levels,
        sum(levels - $start_level) filter (where not is_bye)::bigint as levels_gained,
        sum(games_won)::bigint as games_won,
        -- 累进分: the running total after each round, summed
        sum(match_points * ($max_round - round + 1))::double as progressive
    from team_rounds
    group by event_id, team_no
)

select * from final
