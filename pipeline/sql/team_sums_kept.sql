-- intermediate: one row per team with a game, or a penalty in a round without one, up to
-- round $max_round, with its sums (team_sums.sql's columns) and its orphan penalties
-- (orphan_penalties.sql's, as orphan_*): the sums kept after round $first_round − 1
-- (`kept_sums`: this layer's rows kept by that round's ingest; kept_sums_none.sql, no row,
-- when there are none) plus those of the rounds since (team_sums and orphan_penalties of
-- rounds $first_round..$max_round). The ranking at an ingest alone reads it (100,000 teams:
-- a sixth of the rows); team_totals reads it in team_sums' place (orphans: kept_orphans.sql).
with

kept as (
    -- 累进分 counts each earlier round's points once more for every round since
    select k.* replace (
        k.progressive + k.match_points * ($max_round - $first_round + 1) as progressive)
    from kept_sums as k
    where k.event_id in (select unnest($event_ids))
),

orphans as (
    select event_id, team_no, match_points as orphan_match_points,
           level_diff_score as orphan_level_diff_score, levels as orphan_levels
    from orphan_penalties
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
        select * from team_sums
        union all by name
        select * from orphans
        union all by name
        select * from kept
    )
    group by event_id, team_no
)

select * from final
