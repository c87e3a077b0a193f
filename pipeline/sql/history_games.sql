-- intermediate: one row per player per game played (forfeits and byes excluded): the
-- result read from the levels, so events of any ruleset compare alike.
with

sides as (
    select event_id, round, table_no, ew_team as team_no, ns_team as opponent,
           ew_level as own_level, ns_level as opp_level
    from results where forfeit is null
    union all
    select event_id, round, table_no, ns_team, ew_team, ns_level, ew_level
    from results where forfeit is null
),

final as (
    select
        s.event_id, e.event_date, s.round, s.table_no, s.team_no, s.opponent,
        m.player_id, s.own_level, s.opp_level,
        s.own_level - s.opp_level as level_diff,
        case when s.own_level > s.opp_level then 'win'
             when s.own_level < s.opp_level then 'loss' else 'draw' end as outcome
    from sides as s
    join player_map as m on m.event_id = s.event_id and m.team_no = s.team_no
    join events as e on e.event_id = s.event_id
)

select * from final
