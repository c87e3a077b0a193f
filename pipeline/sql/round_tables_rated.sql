-- marts: a round's tables (as paired, else as reported) with each side's players (ids) and
-- their ratings on the stored list (a player not on it: null), for the win probability
-- (issue 52; an event already on the list is rated from the list entering it instead).
with

tables as (
    select table_no, ew_team, ns_team from pairings
    where event_id = $e and round = $r and ns_team is not null
    union
    select table_no, ew_team, ns_team from results
    where event_id = $e and round = $r
      and not exists (select 1 from pairings where event_id = $e and round = $r)
),

sides as (
    select t.table_no, 'ew' as side, t.ew_team as team_no from tables as t
    union all
    select t.table_no, 'ns', t.ns_team from tables as t
),

rated as (
    select s.table_no, s.side, s.team_no, list(r.ordinal order by m.slot) as ratings,
           list(m.player_id order by m.slot) as players
    from sides as s
    join player_map as m on m.event_id = $e and m.team_no = s.team_no
    left join ratings as r using (player_id)
    group by all
)

select t.table_no, t.ew_team, t.ns_team, e.ratings as ew_ratings, n.ratings as ns_ratings,
       e.players as ew_players, n.players as ns_players
from tables as t
left join rated as e on e.table_no = t.table_no and e.side = 'ew'
left join rated as n on n.table_no = t.table_no and n.side = 'ns'
order by t.table_no
