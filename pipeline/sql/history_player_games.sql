-- intermediate: one row per game played by the teams of one player ($player_id), read from
-- the levels like history_games, but touching only the player's own tables.
with

mine as (
    select event_id, team_no from player_map where player_id = $player_id
),

sides as (
    select r.event_id, r.round, r.table_no, r.ew_team as team_no, r.ns_team as opponent,
           r.ew_level as own_level, r.ns_level as opp_level
    from results r join mine m on m.event_id = r.event_id and m.team_no = r.ew_team
    where r.forfeit is null
    union all
    select r.event_id, r.round, r.table_no, r.ns_team, r.ew_team, r.ns_level, r.ew_level
    from results r join mine m on m.event_id = r.event_id and m.team_no = r.ns_team
    where r.forfeit is null
),

final as (
    select s.*, $player_id as player_id, s.own_level - s.opp_level as level_diff,
           case when s.own_level > s.opp_level then 'win'
                when s.own_level < s.opp_level then 'loss' else 'draw' end as outcome
    from sides as s
)

select * from final
