-- marts: the played games of some events ($events), in a fit's order: rating_games.sql for
-- an import that adds events after every stored one (their games are appended to the games
-- the last fit read, rating_game_cache).
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
      and r.event_id in (select unnest($events::varchar[]))
    order by day, e.created_at, r.event_id, r.round, r.table_no
)

select * from final
