-- marts: the registered players of some events' teams ($events), as rating_seats.sql reads
-- them (an unclear seat an anonymous player of its own), without the index: an import that
-- appends events numbers their new players after the players the last fit read.
select
    event_id,
    team_no,
    slot,
    coalesce(note = $unclear, false) as anonymous,
    case when note = $unclear
        then '~' || event_id || '~' || team_no || '~' || slot::varchar
        else player_id
    end as player_id
from player_map
where event_id in (select unnest($events::varchar[]))
order by event_id, team_no, slot
