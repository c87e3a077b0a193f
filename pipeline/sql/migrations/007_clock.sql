-- The round clock: start, pauses and adjustments in server epoch seconds.
create table round_clocks (
    event_id       varchar not null references events (event_id),
    round          integer not null,
    started_at     double,
    paused_at      double,
    paused_seconds double not null default 0,
    added_seconds  double not null default 0,
    stopped_at     double,
    primary key (event_id, round)
);

create table clock_settings (
    event_id varchar primary key references events (event_id),
    chime    boolean not null default false
);
