-- An id never moves (issue 40): each seat keeps the id the evidence gave it (base_id, before
-- the organizer's merges and splits), whether it is a visit away from the person's homes,
-- and a note for review; an id is anchored at the seat it was first given to and names that
-- person forever; an id found to be the same person as an older one stays as its alias.
alter table player_map add column base_id varchar;
alter table player_map add column visit boolean;
alter table player_map add column note varchar;
create table identity_anchors (
    player_id varchar primary key,
    event_id  varchar not null,
    team_no   varchar not null,
    slot      integer not null,
    norm_name varchar not null,
    anchor_no bigint not null
);
create table identity_aliases (
    alias     varchar primary key,
    player_id varchar not null,
    norm_name varchar not null
);
