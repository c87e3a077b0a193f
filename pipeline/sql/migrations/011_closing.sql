-- an event the organizer has closed: its table links no longer work
alter table events add column closed_at timestamp;
-- why a pending report was set aside (a newer one from the same table replaced it)
alter table pending_reports add column note varchar;
-- with equal levels, the side that won the last deal (equal_levels = "last_deal")
alter table results add column last_deal_side varchar;
-- seed 001 (Jiangsu rules): warnings and violations beside seed 003's fouls
alter table fouls add column warnings integer default 0;
alter table fouls add column violations integer default 0;
-- Tractor penalties beside points: levels (seed 000 fouls, seed 002 藏张 and lateness), a
-- deal lost by the penalty, and which of points or levels the offended side chose (藏张)
alter table tractor_point_penalties add column levels integer default 0;
alter table tractor_point_penalties add column deal_lost boolean default false;
alter table tractor_point_penalties add column choice varchar;
-- a Tractor match decided without play: a side forfeited (15 minutes late, seed 000) or was
-- disqualified (cheating, seed 000); the opponent wins the match
create table tractor_decisions (
    event_id    varchar not null references events (event_id),
    stage       varchar not null,
    match_no    integer not null,
    team_no     varchar not null,
    decision    varchar not null check (decision in ('forfeit', 'disqualified')),
    source_file varchar,
    primary key (event_id, stage, match_no)
);
