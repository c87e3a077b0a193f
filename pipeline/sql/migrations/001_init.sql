-- The event's stored facts. Everything shown (standings, pairings) is computed from these.
create table events (
    event_id     varchar primary key,
    name         varchar not null,
    ruleset_name varchar not null,
    ruleset_toml varchar not null,
    event_date   date,
    created_at   timestamp not null default current_timestamp
);

-- one row per registered team (pair)
create table teams (
    event_id    varchar not null references events (event_id),
    team_no     varchar not null,
    team_name   varchar,
    player1     varchar,
    player2     varchar,
    affiliation varchar,
    primary key (event_id, team_no)
);

-- one row per table result of a round, as reported
create table results (
    event_id    varchar not null references events (event_id),
    round       integer not null check (round > 0),
    table_no    integer not null check (table_no > 0),
    ew_team     varchar not null,
    ns_team     varchar not null,
    ew_level    integer check (ew_level between 2 and 15),
    ns_level    integer check (ns_level between 2 and 15),
    deals       integer check (deals >= 0),
    forfeit     varchar check (forfeit in ('ew', 'ns')),
    note        varchar,
    source_file varchar,
    updated_at  timestamp not null default current_timestamp,
    primary key (event_id, round, table_no),
    check (ew_team <> ns_team),
    check (forfeit is not null or (ew_level is not null and ns_level is not null))
);

-- every replaced table result: what it was, what it became, from which file
create table result_audit (
    event_id     varchar not null,
    round        integer not null,
    table_no     integer not null,
    changed_at   timestamp not null default current_timestamp,
    source_file  varchar,
    reason       varchar,
    old_ew_team  varchar,
    old_ns_team  varchar,
    old_ew_level integer,
    old_ns_level integer,
    old_deals    integer,
    old_forfeit  varchar,
    new_ew_team  varchar,
    new_ns_team  varchar,
    new_ew_level integer,
    new_ns_level integer,
    new_deals    integer,
    new_forfeit  varchar
);

-- one row per penalty: a deduction from one total of one team in one round
create table penalties (
    event_id    varchar not null references events (event_id),
    round       integer not null check (round > 0),
    team_no     varchar not null,
    target      varchar not null check (target in ('match_points', 'level_diff_score', 'levels')),
    amount      integer not null,
    reason      varchar not null default '',
    source_file varchar,
    primary key (event_id, round, team_no, target, reason)
);

-- one row per team: quiz score and time (seed 004's last tiebreak)
create table quiz (
    event_id     varchar not null references events (event_id),
    team_no      varchar not null,
    quiz_score   double not null,
    quiz_seconds double,
    primary key (event_id, team_no)
);

-- one row per table of a paired round; a bye has no table and no ns_team
create table pairings (
    event_id  varchar not null references events (event_id),
    round     integer not null,
    table_no  integer,
    ew_team   varchar not null,
    ns_team   varchar,
    paired_at timestamp not null default current_timestamp
);

-- one row per paired round: how it was paired
create table pairing_rounds (
    event_id   varchar not null references events (event_id),
    round      integer not null,
    system     varchar not null,
    seed       bigint,
    rematches  integer not null default 0,
    forced     boolean not null default false,
    paired_at  timestamp not null default current_timestamp,
    primary key (event_id, round)
);

-- every file received: what it was and what became of it
create sequence upload_seq;
create table uploads (
    upload_id   bigint primary key default nextval('upload_seq'),
    event_id    varchar,
    file_name   varchar not null,
    sha256      varchar not null,
    size_bytes  bigint not null,
    source      varchar not null,
    received_at timestamp not null default current_timestamp,
    status      varchar not null,
    message     varchar
);
