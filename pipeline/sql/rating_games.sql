-- marts: every played game in order (forfeits and byes are not games): its event, day, margin
-- (East-West's levels minus North-South's) and the two teams; with $events, only those
-- events' games (an import that adds events after every stored one appends their games to
-- those the last fit read, rating_game_cache). Their players are in rating_seats; a table
-- whose team has no registered player is dropped by rating_games.read_games (a join there
-- costs less than a semi join here, measured).
with

final as (
    select
        r.event_id,
        coalesce(e.event_date, e.created_at::date) as day,
        r.ew_level - r.ns_level as margin,
        r.ew_team,
        r.ns_team
    from results as r
    inner join events as e using (event_id)
    where r.forfeit is null and r.ew_level is not null and r.ns_level is not null
      and ($events::varchar[] is null or r.event_id in (select unnest($events::varchar[])))
    order by day, e.created_at, r.event_id, r.round, r.table_no
)

select * from final
