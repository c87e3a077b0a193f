-- The history kept current one event at a time (issue 52): each event's registration as the
-- player map last read it (identity_fingerprints.sql), so that an import reads again only the
-- names of the events whose teams changed; and the rated games and their seats as the last
-- fit read them, so that a fit after an event added at the end reads only that event's games.
-- Empty at first: the next refresh reads everything once and fills them.
create table identity_events (
    event_id    varchar not null,
    fingerprint varchar not null
);

create table rating_game_cache (
    game     integer not null,  -- the game's place in the fit's order
    event_id varchar not null,
    day      date not null,
    margin   integer not null
);

-- one row: the seats' arrays in a fit's order, as little-endian bytes (int32 game, int32
-- player index into rating_player_cache, int8 sign: +1 East-West, −1 North-South); read in
-- one piece (a million rows of integers took a quarter of a second)
create table rating_seat_cache (
    game    blob not null,
    "index" blob not null,
    sign    blob not null
);

create table rating_player_cache (
    "index"   integer not null,
    player_id varchar not null,
    anonymous boolean not null
);
