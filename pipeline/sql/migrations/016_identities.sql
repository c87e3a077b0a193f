-- One person, one identity (issue 31): an association's member id per player slot, splits
-- of one team's appearance, merges that can be undone exactly, and the operator's reason for
-- each decision; the identity scheme the player map was built by (rebuilt when it changes).
alter table teams add column member1 varchar;
alter table teams add column member2 varchar;
alter table teams add column member3 varchar;
alter table teams add column member4 varchar;
alter table identity_overrides add column team_no varchar;
alter table identity_overrides add column reason varchar;
alter table identity_overrides add column undone_at timestamp;
alter table player_map add column member_id varchar;
create table identity_scheme (version integer not null);
