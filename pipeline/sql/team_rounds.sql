-- intermediate: one row per team per round, with the round's points (RULES 3-4).
-- Needs stg_results. Ruleset values arrive as parameters.
with

sides as (
    select round, table_no, ew_team as team_no, ns_team as opponent, 'ew' as side,
           ew_level as own_level, ns_level as opp_level,
           forfeit = 'ew' as forfeited, forfeit = 'ns' as opponent_forfeited, is_bye
    from stg_results
    union all
    select round, table_no, ns_team, ew_team, 'ns',
           ns_level, ew_level,
           forfeit = 'ns', forfeit = 'ew', is_bye
    from stg_results
    where not is_bye
),

outcomes as (
    select
        *,
        case
            when is_bye then (case when $bye_is_win then 'win' else 'draw' end)
            when coalesce(forfeited, false) then 'loss'
            when coalesce(opponent_forfeited, false) then 'win'
            when own_level > opp_level then 'win'
            when own_level < opp_level then 'loss'
            else 'draw'
        end as outcome,
        case
            when is_bye then (case when $bye_is_win then $bye_level_diff else 0 end)
            when coalesce(forfeited, false) or coalesce(opponent_forfeited, false)
                then $forfeit_level_diff
            else abs(own_level - opp_level)
        end as level_diff
    from sides
),

scored as (
    select
        round, table_no, team_no, opponent, side, is_bye,
        coalesce(forfeited, false) as forfeited,
        outcome, level_diff,
        case outcome when 'win' then $win_points when 'draw' then $draw_points
                     else $loss_points end as match_points,
        case outcome when 'win' then $level_diff_base + level_diff
                     when 'loss' then $level_diff_base - level_diff
                     else $level_diff_base end as level_diff_score,
        case
            when is_bye or coalesce(forfeited, false) or coalesce(opponent_forfeited, false)
                then (case outcome when 'win' then 2 + level_diff else 2 end)
            else own_level
        end as levels,
        case outcome when 'win' then level_diff when 'loss' then -level_diff else 0 end
            as net_levels
    from outcomes
),

penalty_totals as (
    select round, team_no,
           sum(amount) filter (where target = 'match_points')::bigint as match_points,
           sum(amount) filter (where target = 'level_diff_score')::bigint as level_diff_score,
           sum(amount) filter (where target = 'levels')::bigint as levels
    from penalties
    where event_id = $event_id and round <= $max_round
    group by all
),

forfeit_penalties as (
    select round, team_no,
           case when $forfeit_penalty_target = 'match_points' then $forfeit_penalty else 0 end
               as match_points,
           case when $forfeit_penalty_target = 'level_diff_score' then $forfeit_penalty else 0 end
               as level_diff_score,
           case when $forfeit_penalty_target = 'levels' then $forfeit_penalty else 0 end
               as levels
    from scored
    where forfeited
),

final as (
    select
        s.round, s.table_no, s.team_no, s.opponent, s.side, s.is_bye, s.forfeited,
        s.outcome, s.level_diff,
        s.match_points - coalesce(p.match_points, 0) - coalesce(f.match_points, 0)
            as match_points,
        s.level_diff_score - coalesce(p.level_diff_score, 0) - coalesce(f.level_diff_score, 0)
            as level_diff_score,
        s.levels - coalesce(p.levels, 0) - coalesce(f.levels, 0) as levels,
        s.net_levels
    from scored as s
    left join penalty_totals as p using (round, team_no)
    left join forfeit_penalties as f using (round, team_no)
)

select * from final
