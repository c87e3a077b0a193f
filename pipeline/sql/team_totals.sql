-- intermediate: one row per registered team of each event of $event_ids with its totals over
-- the rounds up to $max_round (penalties, carried totals and the quiz included), its status
-- and its place in team-number order. Needs team_sums and orphan_penalties. The ranking's
-- keys read it.
with

registered as (
    select event_id, team_no, team_name, player1, player2, affiliation,
           case
               when withdrawn_after is not null then 'withdrawn'
               -- absent: not checked in where the event has checked any team in
               when not coalesce(checked_in, false)
                    and coalesce(bool_or(checked_in) over (partition by event_id), false)
                   then 'absent'
               else 'active'
           end as status,
           row_number() over (
               partition by event_id
               order by regexp_extract(team_no, '^[^0-9]*'),
                        try_cast(regexp_extract(team_no, '[0-9]+') as bigint) nulls first,
                        team_no
           ) as team_order
    from teams
    where event_id in (select unnest($event_ids))
),

carried as (
    -- totals carried over from an earlier event or a carry-over sheet
    select event_id, team_no, match_points, level_diff_score, levels, net_levels,
           levels_gained
    from carried_totals where event_id in (select unnest($event_ids))
),

quiz_scores as (
    select event_id, team_no, quiz_score, quiz_seconds from quiz
    where event_id in (select unnest($event_ids))
),

joined as (
    select
        r.event_id, r.team_no, r.team_name, r.player1, r.player2, r.affiliation, r.team_order,
        r.status,
        coalesce(t.played, 0) as played,
        coalesce(t.wins, 0) as wins,
        coalesce(t.draws, 0) as draws,
        coalesce(t.losses, 0) as losses,
        round(coalesce(t.match_points, 0) - coalesce(o.match_points, 0)
              + coalesce(c.match_points, 0), 6) as match_points,
        coalesce(t.level_diff_score, 0) - coalesce(o.level_diff_score, 0)
            + coalesce(c.level_diff_score, 0) as level_diff_score,
        coalesce(t.vp, 0) as vp,
        coalesce(t.levels, 0) - coalesce(o.levels, 0) + coalesce(c.levels, 0) as levels,
        coalesce(t.net_levels, 0) + coalesce(c.net_levels, 0) as net_levels,
        coalesce(t.levels_gained, 0) + coalesce(c.levels_gained, 0) as levels_gained,
        coalesce(t.games_won, 0) as games_won,
        round(coalesce(t.progressive, 0), 6) as progressive,
        c.match_points as carried_points,
        q.quiz_score,
        q.quiz_seconds
    from registered as r
    left join team_sums as t using (event_id, team_no)
    left join orphan_penalties as o using (event_id, team_no)
    left join carried as c using (event_id, team_no)
    left join quiz_scores as q using (event_id, team_no)
)

select * from joined
