-- marts: one row per team per group stage: 1 point per match won ($group_win_points);
-- ties by head-to-head among exactly the tied teams, then game difference, then level
-- difference, then team number. Needs tractor_matches.
with

sides as (
    select stage, match_no, team_a as team_no, team_b as opponent, wins_a as won_games,
           wins_b as lost_games, level_diff_a as level_diff, winner
    from tractor_matches where kind = 'group'
    union all
    select stage, match_no, team_b, team_a, wins_b, wins_a, -level_diff_a, winner
    from tractor_matches where kind = 'group' and team_b is not null
),

totals as (
    select stage, team_no,
           count(winner) as played,
           count(*) filter (where winner = team_no) as wins,
           count(*) filter (where winner is not null and winner <> team_no) as losses,
           (count(*) filter (where winner = team_no)) * $group_win_points as points,
           sum(won_games - lost_games)::bigint as game_diff,
           sum(level_diff)::bigint as level_diff
    from sides
    group by stage, team_no
),

head_to_head as (
    select t.stage, t.team_no,
           count(*) filter (where s.winner = t.team_no) as h2h_wins
    from totals as t
    left join sides as s on s.stage = t.stage and s.team_no = t.team_no
        and s.opponent in (select o.team_no from totals as o
                           where o.stage = t.stage and o.points = t.points)
    group by t.stage, t.team_no
),

final as (
    select
        t.*,
        h.h2h_wins,
        rank() over (
            partition by t.stage
            order by t.points desc, h.h2h_wins desc, t.game_diff desc, t.level_diff desc,
                     regexp_extract(t.team_no, '^[^0-9]*'),
                     try_cast(regexp_extract(t.team_no, '[0-9]+') as bigint), t.team_no
        ) as rank
    from totals as t
    join head_to_head as h using (stage, team_no)
)

select * from final
