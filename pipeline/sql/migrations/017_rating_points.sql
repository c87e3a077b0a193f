-- Ratings kept current by refitting only what changed (issue 31): the list keeps the rating
-- before the latest event and the last day played; each rated event's fingerprint and day
-- say which events changed since the last fit, so the history is refitted from there on.
-- The list is rewritten whole at each refit: no primary key (keeping one made each commit
-- of 200,000 rows take seconds).
create table ratings_kept (
    player_id   varchar not null,
    mu          double not null,
    sigma       double not null,
    ordinal     double not null,
    games       integer not null,
    last_event  varchar,
    previous    double,
    last_played date
);
insert into ratings_kept (player_id, mu, sigma, ordinal, games, last_event)
select player_id, mu, sigma, ordinal, games, last_event from ratings;
drop table ratings;
alter table ratings_kept rename to ratings;
create table rating_events (
    event_id    varchar primary key,
    day         date not null,
    fingerprint varchar not null
);
