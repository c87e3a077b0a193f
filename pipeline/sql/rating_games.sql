-- marts: every rated game in order (forfeits and byes are not games, nor tables whose teams
-- have no registered players): its event, day, margin (East-West's levels minus
-- North-South's) and the two teams. Their players are in rating_seats.
with

seated as (
    select distinct event_id, team_no from player_map
),

final as (
    select
        r.event_id,
        coalesce(e.event_date, e.created_at::date) as day,
        r.ew_level - r.ns_level as margin,
        r.ew_team,
        r.ns_team
    from results as r
    inner join events as e using (event_id)
    semi join seated as ew on ew.event_id = r.event_id and ew.team_no = r.ew_team
    semi join seated as ns on ns.event_id = r.event_id and ns.team_no = r.ns_team
    where r.forfeit is null and r.ew_level is not null and r.ns_level is not null
    order by day, e.created_at, r.event_id, r.round, r.table_no
)

select * from final
