-- intermediate: one row per forfeited match of a meet's events (docs/rules/general.md §8, seed 001:
-- "團體賽棄權者扣15分；單項比賽棄權者扣3分"): a team match of several tables is one
-- forfeit, however many of its tables were forfeited; a team that withdrew forfeits each
-- round paired after it left (退赛即其后各轮弃权: issue 38). Grain: event, round, forfeiting
-- team.
with

forfeited_tables as (
    -- each side that forfeited (both, in a double forfeit)
    select res.event_id, res.round, side.team_no
    from results as res
    join meet_events as me on me.event_id = res.event_id and me.meet_id = $meet_id
    cross join lateral (
        select res.ew_team as team_no where res.forfeit in ('ew', 'both')
        union all
        select res.ns_team where res.forfeit in ('ns', 'both')) as side
    where res.forfeit is not null
),

withdrawn_rounds as (
    -- each round of the event paired after the team withdrew, in which it did not play
    select t.event_id, p.round, t.team_no
    from teams as t
    join meet_events as me on me.event_id = t.event_id and me.meet_id = $meet_id
    join (select event_id, unnest(range(1, max(round) + 1)) as round
          from (select event_id, round from pairings
                union all select event_id, round from results)
          group by event_id) as p on p.event_id = t.event_id
    where t.withdrawn_after is not null and p.round > t.withdrawn_after
      and not exists (select 1 from results as res
                      where res.event_id = t.event_id and res.round = p.round
                        and t.team_no in (res.ew_team, res.ns_team))
),

all_forfeits as (
    select * from forfeited_tables
    union all
    select * from withdrawn_rounds
),

final as (
    select f.event_id, f.round, f.team_no, t.affiliation,
           count(*) as tables, any_value(me.forfeit_deduction) as deduction
    from all_forfeits as f
    join meet_events as me on me.event_id = f.event_id and me.meet_id = $meet_id
    left join teams as t on t.event_id = f.event_id and t.team_no = f.team_no
    group by f.event_id, f.round, f.team_no, t.affiliation
)

select * from final
