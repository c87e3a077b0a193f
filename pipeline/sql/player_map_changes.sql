-- The player map brought to `new_map` (the seats of `touched_names`, made again from the
-- teams): their rows that changed or went are deleted, the new and changed ones inserted;
-- the rows of every other name are left as they are.
delete from player_map as p
where p.norm_name in (select norm_name from touched_names)
  and not exists (
    select 1 from new_map as n
    where n.event_id = p.event_id and n.team_no = p.team_no and n.slot = p.slot
      and n.name is not distinct from p.name
      and n.affiliation is not distinct from p.affiliation
      and n.norm_name is not distinct from p.norm_name
      and n.player_id is not distinct from p.player_id
      and n.member_id is not distinct from p.member_id
      and n.base_id is not distinct from p.base_id
      and n.visit is not distinct from p.visit
      and n.note is not distinct from p.note
);

insert into player_map (event_id, team_no, slot, name, affiliation, norm_name, player_id,
                        member_id, base_id, visit, note)
select n.event_id, n.team_no, n.slot, n.name, n.affiliation, n.norm_name, n.player_id,
       n.member_id, n.base_id, n.visit, n.note
from new_map as n
anti join player_map as p
    on p.event_id = n.event_id and p.team_no = n.team_no and p.slot = n.slot;
