-- The officials (issue 43): each a person with a role and, for a referee, the tables they
-- work on; the password kept only as an argon2 hash. Their records at the tables, the
-- rulings that decide a deal or a game (proposed by a referee, decided by the chief
-- arbiter), leave granted before a round, appeals against a ruling and the committee's
-- votes: everything kept, each with the official who did it and when.
create sequence official_ids start 1;
create table officials (
    official_id   integer primary key default nextval('official_ids'),
    name          varchar not null unique,
    role          varchar not null,   -- organizer | chief | referee | committee | desk | screen
    tables        varchar,            -- a referee's tables (1-20, 1,3,5-8); null: every table
    password_hash varchar not null,
    created_at    timestamp not null default current_timestamp,
    disabled_at   timestamp,
    failed_logins integer not null default 0,   -- in a row: 5 lock the account a while
    locked_until  timestamp
);

create sequence official_record_ids start 1;
create table official_records (
    record_id   integer primary key default nextval('official_record_ids'),
    event_id    varchar not null references events (event_id),
    round       integer not null,
    table_no    integer not null,
    team_no     varchar not null,
    kind        varchar not null,     -- verbal | warning | slow_play | violation | foul | late
    minutes     double,               -- late: how late
    note        varchar not null default '',
    official_id integer not null,
    recorded_at timestamp not null default current_timestamp
);

create sequence official_ruling_ids start 1;
create table official_rulings (
    ruling_id     integer primary key default nextval('official_ruling_ids'),
    event_id      varchar not null references events (event_id),
    round         integer not null,
    table_no      integer,
    team_no       varchar not null,
    kind          varchar not null,   -- ruled_loss | levels_down | opponent_up | forfeit | suspension
    amount        integer not null default 0,   -- levels, for levels_down / opponent_up
    reason        varchar not null default '',
    status        varchar not null default 'proposed',  -- proposed | confirmed | rejected | reversed
    proposed_by   integer,            -- null: proposed by the ladder itself
    proposed_at   timestamp not null default current_timestamp,
    decided_by    integer,
    decided_at    timestamp,
    decision_note varchar not null default '',
    undo          varchar             -- what reverses it once applied (JSON)
);

create table official_leaves (
    event_id   varchar not null references events (event_id),
    round      integer not null,
    team_no    varchar not null,
    minutes    double not null,       -- the grace it gives (seed 001: 15)
    reason     varchar not null default '',
    granted_by integer not null,
    granted_at timestamp not null default current_timestamp,
    primary key (event_id, round, team_no)
);

create sequence official_appeal_ids start 1;
create table official_appeals (
    appeal_id   integer primary key default nextval('official_appeal_ids'),
    event_id    varchar not null references events (event_id),
    ruling_id   integer not null,
    team_no     varchar not null,
    filed_at    timestamp not null default current_timestamp,
    filed_via   varchar not null,     -- desk | link
    filed_by    integer,              -- the desk's official; null: the team's link
    fee         varchar not null default '',
    statement   varchar not null default '',
    status      varchar not null default 'open',  -- open | upheld | dismissed | refused_late
    decided_at  timestamp
);

create table official_votes (
    appeal_id   integer not null,
    official_id integer not null,
    uphold      boolean not null,
    voted_at    timestamp not null default current_timestamp,
    primary key (appeal_id, official_id)
);
