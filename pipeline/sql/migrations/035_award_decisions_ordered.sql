-- The organizer's play-off or lot may order several of the teams sharing a place (issue 50:
-- four quarter-final losers on equal records contending for two 三等奖 — the lot names both
-- winners, in order): one row per team, `position` its order among the place's winners.
create table award_decisions_ordered (
    event_id   varchar not null references events (event_id),
    rank       integer not null,
    position   integer not null,
    team_no    varchar not null,
    decided_by varchar not null,  -- 'playoff' or 'lot'
    decided_at timestamp not null default current_timestamp,
    primary key (event_id, rank, position)
);
insert into award_decisions_ordered
    select event_id, rank, 1, team_no, decided_by, decided_at from award_decisions;
drop table award_decisions;
