-- intermediate: one row per team with a game, or a penalty in a round without one, up to
-- round $max_round, with its sums (team_sums.sql's columns) and its orphan penalties
-- (orphan_penalties.sql's, as orphan_*; 0 where none): the sums kept after round
-- $first_round − 1 (`kept_sums`: this layer's rows kept by that round's ingest;
-- kept_sums_none.sql, no row, when there are none) plus those of the rounds since
-- (team_sums and orphan_penalties of rounds $first_round..$max_round). The ranking at an
-- ingest alone reads it (100,000 teams: a sixth of the rows); team_totals reads it in
-- team_sums' place (its orphans: kept_orphans.sql).
with

kept as (
    -- 累进分 counts each earlier round's points once more for every round since
    select k.* replace (
        k.progressive + k.match_points * ($max_round - $first_round + 1) as progressive)
    from kept_sums as k
    where k.event_id in (select unnest($event_ids))
),

final as (
    -- one row a team on each side at most: a join adds them up (100,000 teams: 0.1 s CPU
    -- less than a union and a second group-by)
    select
        event_id, team_no,
        (coalesce(n.played, 0) + coalesce(k.played, 0))::bigint as played,
        (coalesce(n.wins, 0) + coalesce(k.wins, 0))::bigint as wins,
        (coalesce(n.draws, 0) + coalesce(k.draws, 0))::bigint as draws,
        (coalesce(n.losses, 0) + coalesce(k.losses, 0))::bigint as losses,
        (coalesce(n.match_points, 0) + coalesce(k.match_points, 0))::double as match_points,
        (coalesce(n.level_diff_score, 0) + coalesce(k.level_diff_score, 0))::bigint
            as level_diff_score,
        (coalesce(n.vp, 0) + coalesce(k.vp, 0))::bigint as vp,
        (coalesce(n.levels, 0) + coalesce(k.levels, 0))::bigint as levels,
        (coalesce(n.net_levels, 0) + coalesce(k.net_levels, 0))::bigint as net_levels,
        (coalesce(n.levels_gained, 0) + coalesce(k.levels_gained, 0))::bigint as levels_gained,
        (coalesce(n.games_won, 0) + coalesce(k.games_won, 0))::bigint as games_won,
        (coalesce(n.progressive, 0) + coalesce(k.progressive, 0))::double as progressive,
        (coalesce(o.match_points, 0) + coalesce(k.orphan_match_points, 0))::bigint
            as orphan_match_points,
        (coalesce(o.level_diff_score, 0) + coalesce(k.orphan_level_diff_score, 0))::bigint
            as orphan_level_diff_score,
        (coalesce(o.levels, 0) + coalesce(k.orphan_levels, 0))::bigint as orphan_levels
    from team_sums as n
    full join kept as k using (event_id, team_no)
    full join orphan_penalties as o using (event_id, team_no)
)

select * from final
