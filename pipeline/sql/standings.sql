-- marts: one row per registered team of the event, ranked by the ruleset's keys in order.
-- Needs team_rounds. $ranking_keys is the ruleset's list of key names (RULES 5).
with

registered as (
    select team_no, team_name, player1, player2, affiliation,
           case
               when withdrawn_after is not null then 'withdrawn'
               when not coalesce(checked_in, false) and exists (
                   select 1 from teams t where t.event_id = $event_id and t.checked_in)
                   then 'absent'
               else 'active'
           end as status,
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
        sum(vp)::bigint as vp,
        sum(levels)::bigint as levels,
        sum(net_levels)::bigint as net_levels
    from team_rounds
    group by team_no
),

orphan_penalties as (
    -- penalties of a round in which the team has no game (yet): they count all the same
    select p.team_no,
           sum(p.amount) filter (where p.target = 'match_points')::bigint as match_points,
           sum(p.amount) filter (where p.target = 'level_diff_score')::bigint as level_diff_score,
           sum(p.amount) filter (where p.target = 'levels')::bigint as levels
    from penalties as p
    where p.event_id = $event_id and p.round <= $max_round
      and not exists (select 1 from team_rounds as tr
                      where tr.round = p.round and tr.team_no = p.team_no)
    group by p.team_no
),

quiz_scores as (
    select team_no, quiz_score, quiz_seconds from quiz where event_id = $event_id
),

joined as (
    select
        r.team_no, r.team_name, r.player1, r.player2, r.affiliation, r.team_order, r.status,
        coalesce(t.played, 0) as played,
        coalesce(t.wins, 0) as wins,
        coalesce(t.draws, 0) as draws,
        coalesce(t.losses, 0) as losses,
        coalesce(t.match_points, 0) - coalesce(o.match_points, 0) as match_points,
        coalesce(t.level_diff_score, 0) - coalesce(o.level_diff_score, 0) as level_diff_score,
        coalesce(t.vp, 0) as vp,
        coalesce(t.levels, 0) - coalesce(o.levels, 0) as levels,
        coalesce(t.net_levels, 0) as net_levels,
        q.quiz_score,
        q.quiz_seconds
    from registered as r
    left join totals as t using (team_no)
    left join orphan_penalties as o using (team_no)
    left join quiz_scores as q using (team_no)
),

buchholz as (
    -- 对手分: the match points of every opponent met, summed
    select tr.team_no, sum(o.match_points)::bigint as opponents_points
    from team_rounds as tr
    join joined as o on o.team_no = tr.opponent
    group by tr.team_no
),

ranking_keys as (
    select unnest($ranking_keys) as key_name,
           generate_subscripts($ranking_keys, 1) as position
),

key_values as (
    -- one row per team per key; ascending order wins, so descending keys are negated
    select
        j.team_no, k.position, k.key_name,
        case k.key_name
            when 'match_points' then -j.match_points
            when 'level_diff_score' then -j.level_diff_score
            when 'vp' then -j.vp
            when 'levels' then -j.levels
            when 'level_points' then -j.levels
            when 'net_levels' then -j.net_levels
            when 'wins' then -j.wins
            when 'buchholz' then -coalesce(b.opponents_points, 0)
            when 'quiz_score' then -coalesce(j.quiz_score, 0)
            when 'quiz_seconds' then coalesce(j.quiz_seconds, 1e12)
            when 'team_no' then j.team_order
        end::double as value
    from joined as j
    cross join ranking_keys as k
    left join buchholz as b using (team_no)
),

h2h_position as (
    select min(position) as position from ranking_keys where key_name = 'head_to_head'
),

tie_groups as (
    -- teams equal on every key before head_to_head form one group
    select v.team_no,
           list(v.value order by v.position) filter (where v.position < h.position) as prefix
    from key_values as v
    cross join h2h_position as h
    group by v.team_no
),

head_to_head as (
    -- match points from the games among exactly the tied teams
    select g.team_no, coalesce(sum(tr.match_points), 0) as points
    from tie_groups as g
    left join team_rounds as tr on tr.team_no = g.team_no
        and tr.opponent in (select o.team_no from tie_groups as o where o.prefix = g.prefix)
    group by g.team_no
),

sort_keys as (
    select
        v.team_no,
        list(
            case when v.key_name = 'head_to_head' then -h.points::double else v.value end
            order by v.position
        ) as sort_key
    from key_values as v
    left join head_to_head as h using (team_no)
    group by v.team_no
),

final as (
    select
        rank() over (order by s.sort_key) as rank,
        j.*,
        coalesce(b.opponents_points, 0) as buchholz
    from joined as j
    join sort_keys as s using (team_no)
    left join buchholz as b using (team_no)
)

select * from final
