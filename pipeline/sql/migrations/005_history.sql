-- History across events: who is who (player identities), final ranks, ratings.

-- the organizer's decisions about identities; results are never edited
create sequence override_seq;
create table identity_overrides (
    override_id bigint primary key default nextval('override_seq'),
    kind        varchar not null check (kind in ('merge', 'split')),
    player_id   varchar not null,
    into_id     varchar,
    event_id    varchar,
    created_at  timestamp not null default current_timestamp
);

-- one row per player slot of a registered team, with the identity it resolves to
create table player_map (
    event_id    varchar not null,
    team_no     varchar not null,
    slot        integer not null,
    name        varchar not null,
    affiliation varchar,
    norm_name   varchar not null,
    player_id   varchar not null,
    primary key (event_id, team_no, slot)
);

-- the latest ranking of every event, kept for history queries
create table event_ranks (
    event_id   varchar not null,
    team_no    varchar not null,
    rank       integer not null,
    field_size integer not null,
    primary key (event_id, team_no)
);

create table ratings (
    player_id varchar primary key,
    mu        double not null,
    sigma     double not null,
    ordinal   double not null,
    games     integer not null,
    last_event varchar
);

create table rating_history (
    player_id varchar not null,
    event_id  varchar not null,
    round     integer not null,
    mu        double not null,
    sigma     double not null,
    ordinal   double not null
);

create table rating_state (
    fingerprint varchar not null
);
