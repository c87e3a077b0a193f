-- marts: every played game in order (forfeits and byes are not games): its event, day, margin
-- (East-West's levels minus North-South's) and each side's team as a number (ew_key,
-- ns_key): the place of the team among the teams with a registered player, in the order of
-- rating_seats' rows (event, team), null when the team has none (the table is then not a
-- game: rating_games.read_games drops it). A fit's seats are then read by number from
-- rating_seats' rows, with no join of the teams' names (issue 52). With $events, only those
-- events' games and teams (an import that adds events after every stored one appends their
-- games to those the last fit read, rating_game_cache).
with

teams as (
    select
        event_id,
        team_no,
        (row_number() over (order by event_id, team_no) - 1)::bigint as team_key
    from player_map
    where $events::varchar[] is null or event_id in (select unnest($events::varchar[]))
    group by event_id, team_no
),

final as (
    select
        r.event_id,
        coalesce(e.event_date, e.created_at::date) as day,
        r.ew_level - r.ns_level as margin,
        ew.team_key as ew_key,
        ns.team_key as ns_key
    from results as r
    inner join events as e using (event_id)
    left join teams as ew on ew.event_id = r.event_id and ew.team_no = r.ew_team
    left join teams as ns on ns.event_id = r.event_id and ns.team_no = r.ns_team
    where r.forfeit is null and r.ew_level is not null and r.ns_level is not null
      and ($events::varchar[] is null or r.event_id in (select unnest($events::varchar[])))
    order by day, e.created_at, r.event_id, r.round, r.table_no
)

select * from final
