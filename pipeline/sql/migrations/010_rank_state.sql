-- event_ranks is a cache, refreshed when it is read and found stale (not on every ingest):
-- the fingerprint of what the event's ranking read when the cache was last written
create table event_rank_state (
    event_id    varchar primary key,
    fingerprint varchar not null
);
