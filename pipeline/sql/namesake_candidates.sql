-- marts: the people a name finds when it finds several ($ids): each one's units and partners,
-- so the organizer can tell them apart when they share a club (`paisai player NAME`).
select
    m.player_id,
    string_agg(distinct coalesce(m.affiliation, ''), '/' order by coalesce(m.affiliation, ''))
        as units,
    string_agg(distinct o.name, '、' order by o.name) as partners
from player_map as m
left join player_map as o
    on o.event_id = m.event_id and o.team_no = m.team_no and o.slot <> m.slot
where m.player_id in (select unnest($ids::varchar[]))
group by m.player_id
order by m.player_id
