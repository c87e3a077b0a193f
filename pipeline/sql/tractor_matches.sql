-- marts: one row per drawn Tractor match: games won by each side and the winner.
-- A knockout bye (no team_b) is won by team_a; a match decided without play (a side
-- forfeited or was disqualified) is won by the other side. $games_to_win: 2 for best of three.
with

games as (
    select stage, match_no,
           count(*) filter (where winner = 'a') as wins_a,
           count(*) filter (where winner = 'b') as wins_b,
           sum(a_level - b_level)::bigint as level_diff_a,
           list([a_level, b_level] order by game) as games
    from tractor_games
    where event_id = $event_id
    group by stage, match_no
),

final as (
    select
        s.stage, s.kind, s.position, m.match_no, m.team_a, m.team_b,
        coalesce(g.wins_a, 0) as wins_a,
        coalesce(g.wins_b, 0) as wins_b,
        coalesce(g.level_diff_a, 0) as level_diff_a,
        coalesce(g.games, []) as games,
        d.decision,
        d.team_no as decided_against,
        case
            when m.team_b is null then m.team_a
            when d.team_no = m.team_a then m.team_b
            when d.team_no = m.team_b then m.team_a
            when coalesce(g.wins_a, 0) >= $games_to_win then m.team_a
            when coalesce(g.wins_b, 0) >= $games_to_win then m.team_b
        end as winner
    from tractor_matches as m
    join tractor_stages as s using (event_id, stage)
    left join games as g using (stage, match_no)
    left join tractor_decisions as d
        on d.event_id = m.event_id and d.stage = m.stage and d.match_no = m.match_no
    where m.event_id = $event_id
)

select * from final
