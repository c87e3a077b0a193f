-- intermediate: one row per forfeited match of a meet's events (RULES 8, seed 001:
-- "團體賽棄權者扣15分；單項比賽棄權者扣3分"): a team match of several tables is one
-- forfeit, however many of its tables were forfeited. Grain: event, round, forfeiting team.
with

forfeited_tables as (
    select res.event_id, res.round,
           case res.forfeit when 'ew' then res.ew_team else res.ns_team end as team_no
    from results as res
    join meet_events as me on me.event_id = res.event_id and me.meet_id = $meet_id
    where res.forfeit is not null
),

final as (
    select f.event_id, f.round, f.team_no, t.affiliation,
           count(*) as tables, any_value(me.forfeit_deduction) as deduction
    from forfeited_tables as f
    join meet_events as me on me.event_id = f.event_id and me.meet_id = $meet_id
    left join teams as t on t.event_id = f.event_id and t.team_no = f.team_no
    group by f.event_id, f.round, f.team_no, t.affiliation
)

select * from final
