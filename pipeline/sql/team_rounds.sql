-- intermediate: one row per team per round, with the round's points (docs/rules/general.md §3-4, 7).
-- Needs stg_results. A team event's match is several tables against the same opponent:
-- they are summed here, so a pairs event is simply a match of one table.
-- Ruleset values arrive as parameters.
with

counted_fouls as (
    -- each record's totals: per team (a team's pairs add up), or with $fouls_per_pair per
    -- pair at its table (table 0: a row for the team as a whole)
    select event_id, round, team_no,
           case when $fouls_per_pair then table_no else 0 end as table_no,
           sum(fouls) as fouls, sum(coalesce(warnings, 0)) as warnings,
           sum(coalesce(violations, 0)) as violations
    from fouls where event_id in (select unnest($event_ids))
    group by all
),

counted_out as (
    -- a side is out at $foul_limit fouls (seed 003), or at $violation_limit violations,
    -- $warnings_per_violation warnings making one more (seed 001)
    select event_id, round, team_no, table_no,
           ($foul_limit > 0 and fouls >= $foul_limit)
           or ($violation_limit > 0
               and violations + case when $warnings_per_violation > 0
                   then warnings // $warnings_per_violation else 0 end
                   >= $violation_limit) as out_of_round
    from counted_fouls
),

round_fouls as (
    -- the team out of its whole round (match): by its fouls, or by the chief arbiter's
    -- confirmed ruling (issue 43; a proposal counts nothing until confirmed)
    select event_id, round, team_no, bool_or(out_of_round) as out_of_round from (
        select event_id, round, team_no, out_of_round from counted_out where table_no = 0
        union all
        select event_id, round, team_no, true from official_rulings
        where event_id in (select unnest($event_ids)) and kind = 'ruled_loss'
          and status = 'confirmed'
    ) group by all
),

table_fouls as (
    -- a pair out at its table ($fouls_per_pair): that table is lost, the rest stands
    select event_id, round, team_no, table_no, out_of_round as out_at_table
    from counted_out where table_no > 0 and out_of_round
),

sides_as_played as (
    select event_id, round, table_no, ew_team as team_no, ns_team as opponent, 'ew' as side,
           ew_level as own_level, ns_level as opp_level,
           coalesce(forfeit in ('ew', 'both'), false) as forfeited,
           coalesce(forfeit = 'ns', false) as opponent_forfeited,
           coalesce(first_to_level = 'ew', false) as reached_first,
           coalesce(first_to_level = 'ns', false) as opponent_reached_first,
           coalesce(last_deal_side = 'ew', false) as won_last_deal,
           coalesce(last_deal_side = 'ns', false) as opponent_won_last_deal,
           is_bye, bye_kind, bye_points
    from stg_results
    union all
    select event_id, round, table_no, ns_team, ew_team, 'ns',
           ns_level, ew_level,
           coalesce(forfeit in ('ns', 'both'), false), coalesce(forfeit = 'ew', false),
           coalesce(first_to_level = 'ns', false), coalesce(first_to_level = 'ew', false),
           coalesce(last_deal_side = 'ns', false), coalesce(last_deal_side = 'ew', false),
           is_bye, bye_kind, bye_points
    from stg_results
    where not is_bye
),

sides as (
    -- a pair ruled out at its table loses that table: the higher level goes to the other side
    select s.* replace (
        case when s.own_level is null or s.opp_level is null then s.own_level
             when o.out_at_table and p.out_at_table is null then least(s.own_level, s.opp_level)
             when p.out_at_table and o.out_at_table is null
                 then greatest(s.own_level, s.opp_level)
             else s.own_level end as own_level,
        case when s.own_level is null or s.opp_level is null then s.opp_level
             when o.out_at_table and p.out_at_table is null
                 then greatest(s.own_level, s.opp_level)
             when p.out_at_table and o.out_at_table is null then least(s.own_level, s.opp_level)
             else s.opp_level end as opp_level)
    from sides_as_played as s
    left join table_fouls as o
        on o.event_id = s.event_id and o.round = s.round and o.team_no = s.team_no
           and o.table_no = s.table_no
    left join table_fouls as p
        on p.event_id = s.event_id and p.round = s.round and p.team_no = s.opponent
           and p.table_no = s.table_no
),

matches as (
    select
        s.event_id, s.round, s.team_no, s.opponent,
        min(s.table_no) as table_no,
        any_value(s.side order by s.table_no) as side,
        bool_or(s.is_bye) as is_bye,
        any_value(s.bye_kind) as bye_kind,
        any_value(s.bye_points) as bye_points,
        bool_or(s.forfeited) as forfeited,
        bool_or(s.opponent_forfeited) as opponent_forfeited,
        bool_or(s.reached_first) as reached_first,
        bool_or(s.opponent_reached_first) as opponent_reached_first,
        bool_or(s.won_last_deal) as won_last_deal,
        bool_or(s.opponent_won_last_deal) as opponent_won_last_deal,
        sum(s.own_level - s.opp_level) as net,
        sum(s.own_level) as own_levels,
        count(*) filter (where s.own_level > s.opp_level or s.opponent_forfeited) as games_won,
        count(*) as tables
    from sides as s
    group by s.event_id, s.round, s.team_no, s.opponent
),

with_fouls as (
    select
        m.*,
        coalesce(f.out_of_round, false) as fouled_out,
        coalesce(o.out_of_round, false) as opponent_fouled_out
    from matches as m
    left join round_fouls as f
        on f.event_id = m.event_id and f.round = m.round and f.team_no = m.team_no
    left join round_fouls as o
        on o.event_id = m.event_id and o.round = m.round and o.team_no = m.opponent
),

outcomes as (
    select
        *,
        case
            -- a requested bye (FIDE: a half- or zero-point bye) scores what it was given
            when is_bye and bye_kind = 'requested'
                then (case when coalesce(bye_points, $draw_points) >= $win_points then 'win'
                           when coalesce(bye_points, $draw_points) > $loss_points then 'draw'
                           else 'loss' end)
            when is_bye then (case when $bye_is_win then 'win' else 'draw' end)
            when forfeited then 'loss'
            when opponent_forfeited then 'win'
            when fouled_out then 'loss'
            when opponent_fouled_out then 'win'
            when net > 0 then 'win'
            when net < 0 then 'loss'
            when $first_to_reach and reached_first then 'win'
            when $first_to_reach and opponent_reached_first then 'loss'
            when $last_deal and won_last_deal then 'win'
            when $last_deal and opponent_won_last_deal then 'loss'
            else 'draw'
        end as outcome,
        case
            when is_bye and bye_kind = 'requested' then 0
            when is_bye then (case when $bye_is_win then $bye_level_diff else 0 end)
            when forfeited or opponent_forfeited then $forfeit_level_diff
            when (fouled_out or opponent_fouled_out) and $ruled_as_forfeit
                then $forfeit_level_diff
            else abs(net)
        end as level_diff,
        -- a round lost by ruling (fouls, violations) is one result: every key agrees
        not is_bye and not forfeited and not opponent_forfeited
            and (fouled_out or opponent_fouled_out) as ruled
    from with_fouls
),

-- what the round's played games scored in levels (seed 000's level points): the winners'
-- average, else every played side's, rounded DOWN to a whole level (a round not played
-- never outscores the average it stands for: 12.5 → 12) — what a bye or a forfeit
-- win scores with `scoring.unplayed_win = "round_winners_average"`, as bridge gives a bye
-- the field's average (one row per round)
round_levels as (
    select
        event_id, round,
        floor(avg(case when outcome = 'win' then own_levels end)) as winners_average,
        floor(avg(own_levels)) as played_average
    from outcomes
    where not (is_bye or forfeited or opponent_forfeited or ruled)
    group by event_id, round
),

scored as (
    select
        event_id, round, table_no, team_no, opponent, side, is_bye, bye_kind, forfeited,
        opponent_forfeited, ruled, outcome, level_diff,
        case when ruled then (case outcome when 'win' then tables else 0 end)
             else games_won end as games_won,
        case
            when is_bye and bye_kind = 'requested' then coalesce(bye_points, $draw_points)
            when is_bye then coalesce(bye_points, $bye_points)
            when forfeited then $absent_points  -- a team that did not show
            when outcome = 'win' then $win_points
            when outcome = 'draw' then $draw_points
            else $loss_points
        end as match_points,
        case outcome when 'win' then $level_diff_base + level_diff
                     when 'loss' then $level_diff_base - level_diff
                     else $level_diff_base end as level_diff_score,
        case
            when len(vp_table) = 0 then 0
            when outcome = 'win' then vp_table[least(level_diff, len(vp_table) - 1)::integer + 1]
            when outcome = 'loss'
                then 2 * vp_table[1] - vp_table[least(level_diff, len(vp_table) - 1)::integer + 1]
            else vp_table[1]
        end as vp,
        case
            when is_bye or forfeited or opponent_forfeited or (ruled and $ruled_as_forfeit)
                then (case when outcome = 'win' and $unplayed_win_average
                                    and coalesce(winners_average, played_average) is not null
                               then coalesce(winners_average, played_average)::integer
                           when outcome = 'win' and $unplayed_win_levels > 0
                               then $unplayed_win_levels
                           when outcome = 'win' then 2 + level_diff else 2 end)
            -- ruled at the table's levels: the winner is credited the higher side's levels
            when ruled then (case outcome when 'win' then greatest(own_levels, own_levels - net)
                                          else least(own_levels, own_levels - net) end)
            else own_levels
        end as levels,
        case
            when is_bye or forfeited or opponent_forfeited or ruled
                then (case outcome when 'win' then level_diff when 'loss' then -level_diff
                                   else 0 end)
            else net
        end as net_levels
    from outcomes
    left join round_levels using (event_id, round)
    cross join (select $vp_table::integer[] as vp_table)
),

penalty_totals as (
    select event_id, round, team_no,
           sum(amount) filter (where target = 'match_points')::bigint as match_points,
           sum(amount) filter (where target = 'level_diff_score')::bigint as level_diff_score,
           sum(amount) filter (where target = 'levels')::bigint as levels
    from penalties
    where event_id in (select unnest($event_ids)) and round <= $max_round
    group by all
),

forfeit_penalties as (
    select event_id, round, team_no,
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
        s.event_id, s.round, s.table_no, s.team_no, s.opponent, s.side, s.is_bye, s.forfeited,
        s.opponent_forfeited, s.ruled, s.outcome, s.level_diff, s.games_won,
        coalesce(s.bye_kind = 'requested', false) as requested_bye,
        s.match_points - coalesce(p.match_points, 0) - coalesce(f.match_points, 0)
            as match_points,
        s.level_diff_score - coalesce(p.level_diff_score, 0) - coalesce(f.level_diff_score, 0)
            as level_diff_score,
        s.vp,
        s.levels - coalesce(p.levels, 0) - coalesce(f.levels, 0) as levels,
        s.net_levels
    from scored as s
    left join penalty_totals as p using (event_id, round, team_no)
    left join forfeit_penalties as f using (event_id, round, team_no)
)

select * from final
