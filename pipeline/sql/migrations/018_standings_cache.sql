-- The ranking an ingest computes, kept for the commands that read it next (issue 32:
-- `paisai standings`, the pairing and the projector rank 100,000 teams once, not each):
-- valid while the event's fingerprint (standings_fingerprint.sql) is unchanged.
create table standings_cache (
    event_id    varchar not null,
    max_round   integer not null,
    keys        varchar not null,
    fingerprint varchar not null,
    ranking     blob not null,
    primary key (event_id, max_round, keys)
);
