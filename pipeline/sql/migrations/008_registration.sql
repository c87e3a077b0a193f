-- Registration as it arrives: unnumbered teams and singles wait here until the draw.
alter table teams add column checked_in boolean default false;
alter table teams add column withdrawn_after integer;
alter table teams add column withdraw_reason varchar;

create table registrations (
    event_id    varchar not null references events (event_id),
    reg_key     varchar not null,
    team_name   varchar,
    player1     varchar,
    player2     varchar,
    affiliation varchar,
    single      boolean not null,
    sheet_order integer not null,
    team_no     varchar,
    primary key (event_id, reg_key)
);

create table draws (
    event_id  varchar not null references events (event_id),
    drawn_at  timestamp not null default current_timestamp,
    seed      bigint,
    prefix    varchar not null,
    in_order  boolean not null
);
