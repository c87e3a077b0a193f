-- Seed presets: who reached an equal level first, deal-by-deal sheets, fouls, meets.
alter table results add column first_to_level varchar;

-- one row per deal of a table: the side of 上游 and where its partner finished
create table deals (
    event_id       varchar not null references events (event_id),
    round          integer not null,
    table_no       integer not null,
    deal           integer not null check (deal > 0),
    winner_side    varchar not null check (winner_side in ('ew', 'ns')),
    partner_finish integer not null check (partner_finish between 2 and 4),
    primary key (event_id, round, table_no, deal)
);

-- one row per team per round: fouls recorded by the referee (seed 003)
create table fouls (
    event_id varchar not null references events (event_id),
    round    integer not null,
    team_no  varchar not null,
    fouls    integer not null check (fouls >= 0),
    primary key (event_id, round, team_no)
);

-- a meet groups events whose placements add up per affiliation (seed 001)
create table meets (
    meet_id    varchar primary key,
    name       varchar not null,
    created_at timestamp not null default current_timestamp
);

create table meet_events (
    meet_id           varchar not null references meets (meet_id),
    event_id          varchar not null references events (event_id),
    placement_points  integer[] not null,
    forfeit_deduction integer not null default 0,
    primary key (meet_id, event_id)
);

-- team events: the players of pairs 2..k of a team
alter table teams add column player3 varchar;
alter table teams add column player4 varchar;
