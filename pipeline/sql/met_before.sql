-- The tables played or paired before round $r of event $e (byes left out), each
-- (East-West, North-South) pair of teams once: who has met whom, and on which side.
select ew_team, ns_team from results where event_id = $e and round < $r
union
select ew_team, ns_team from pairings where event_id = $e and round < $r and ns_team is not null
