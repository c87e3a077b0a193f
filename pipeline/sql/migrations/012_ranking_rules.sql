-- totals an event starts from: carried over from an earlier event (paisai event create
-- --carry-from) or from another tool's final table (a carry-over sheet)
create table carried_totals (
    event_id         varchar not null references events (event_id),
    team_no          varchar not null,
    match_points     double not null default 0,
    level_diff_score bigint not null default 0,
    levels           bigint not null default 0,
    net_levels       bigint not null default 0,
    levels_gained    bigint not null default 0,
    source           varchar,
    primary key (event_id, team_no)
);

-- the seed of the drawing of lots that breaks ties no key can break (ranking key "lot")
create table event_lots (
    event_id varchar primary key references events (event_id),
    seed     bigint not null
);
insert into event_lots select event_id, (random() * 1000000)::bigint from events;
