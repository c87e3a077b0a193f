-- marts: each registered player of each team, numbered: the players of the whole history in
-- the order of their ids, 0, 1, 2… (a fit's index of them).
select
    event_id,
    team_no,
    slot,
    player_id,
    (dense_rank() over (order by player_id) - 1)::bigint as "index"
from player_map
