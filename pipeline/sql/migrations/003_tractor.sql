-- Tractor: stages (groups and knockout rounds), the drawn matches, games and deals.
create table tractor_stages (
    event_id  varchar not null references events (event_id),
    stage     varchar not null,
    kind      varchar not null check (kind in ('group', 'knockout')),
    position  integer not null,
    advance   integer,
    seed      bigint,
    primary key (event_id, stage)
);

-- one row per drawn match; a knockout bye has no team_b
create table tractor_matches (
    event_id varchar not null references events (event_id),
    stage    varchar not null,
    match_no integer not null,
    team_a   varchar not null,
    team_b   varchar,
    primary key (event_id, stage, match_no)
);

-- one row per game of a match, as reported or replayed from its deals
create table tractor_games (
    event_id    varchar not null references events (event_id),
    stage       varchar not null,
    match_no    integer not null,
    game        integer not null check (game between 1 and 9),
    a_level     integer not null check (a_level between 2 and 15),
    b_level     integer not null check (b_level between 2 and 15),
    winner      varchar not null check (winner in ('a', 'b')),
    from_deals  boolean not null default false,
    source_file varchar,
    primary key (event_id, stage, match_no, game)
);

-- one row per deal: the declaring team, the attackers' captured points, trump cards
create table tractor_deals (
    event_id      varchar not null references events (event_id),
    stage         varchar not null,
    match_no      integer not null,
    game          integer not null,
    deal          integer not null,
    declarer_team varchar not null,
    points        integer not null,
    trump_cards   integer not null default 1,
    primary key (event_id, stage, match_no, game, deal)
);

-- point penalties of a deal (seed 002): the offending team, points, reason
create table tractor_point_penalties (
    event_id varchar not null references events (event_id),
    stage    varchar not null,
    match_no integer not null,
    game     integer not null,
    deal     integer not null,
    team_no  varchar not null,
    points   integer not null,
    reason   varchar not null default '',
    primary key (event_id, stage, match_no, game, deal, team_no, reason)
);
