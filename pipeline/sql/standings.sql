-- marts: one row per registered team of the event, ranked by the ruleset's keys in order.
-- Needs team_rounds. $ranking_keys is the ruleset's list of key names (RULES 5).
with

registered as (
    select team_no, team_name, player1, player2, affiliation,
           row_number() over (
               order by regexp_extract(team_no, '^[^0-9]*'),
                        try_cast(regexp_extract(team_no, '[0-9]+') as bigint) nulls first,
                        team_no
           ) as team_order
    from teams
    where event_id = $event_id
),

totals as (
    select
        team_no,
        count(*)::bigint as played,
        count(*) filter (where outcome = 'win') as wins,
        count(*) filter (where outcome = 'draw') as draws,
        count(*) filter (where outcome = 'loss') as losses,
        sum(match_points)::bigint as match_points,
        sum(level_diff_score)::bigint as level_diff_score,
        sum(levels)::bigint as levels,
        sum(net_levels)::bigint as net_levels
    from team_rounds
    group by team_no
),

quiz_scores as (
    select team_no, quiz_score, quiz_seconds from quiz where event_id = $event_id
),

joined as (
    select
        r.team_no, r.team_name, r.player1, r.player2, r.affiliation, r.team_order,
        coalesce(t.played, 0) as played,
        coalesce(t.wins, 0) as wins,
        coalesce(t.draws, 0) as draws,
        coalesce(t.losses, 0) as losses,
        coalesce(t.match_points, 0) as match_points,
        coalesce(t.level_diff_score, 0) as level_diff_score,
        coalesce(t.levels, 0) as levels,
        coalesce(t.net_levels, 0) as net_levels,
        q.quiz_score,
        q.quiz_seconds
    from registered as r
    left join totals as t using (team_no)
    left join quiz_scores as q using (team_no)
),

ranking_keys as (
    select unnest($ranking_keys) as key_name,
           generate_subscripts($ranking_keys, 1) as position
),

sort_keys as (
    -- one list per team, ascending order wins: descending keys are negated
    select
        j.team_no,
        list(
            case k.key_name
                when 'match_points' then -j.match_points
                when 'level_diff_score' then -j.level_diff_score
                when 'levels' then -j.levels
                when 'net_levels' then -j.net_levels
                when 'wins' then -j.wins
                when 'quiz_score' then -coalesce(j.quiz_score, 0)
                when 'quiz_seconds' then coalesce(j.quiz_seconds, 1e12)
                when 'team_no' then j.team_order
            end::double
            order by k.position
        ) as sort_key
    from joined as j
    cross join ranking_keys as k
    group by j.team_no
),

final as (
    select
        rank() over (order by s.sort_key) as rank,
        j.*
    from joined as j
    join sort_keys as s using (team_no)
)

select * from final
