-- Teams sharing a place that one prize splits, equal on every record the ruleset reads
-- (issue 50: two semi-final losers, one 三等奖): the organizer enters who takes the prize,
-- decided by a play-off or a lot, rather than paisai picking by team number.
create table award_decisions (
    event_id   varchar not null references events (event_id),
    rank       integer not null,
    team_no    varchar not null,
    decided_by varchar not null,  -- 'playoff' or 'lot'
    decided_at timestamp not null default current_timestamp,
    primary key (event_id, rank)
);
