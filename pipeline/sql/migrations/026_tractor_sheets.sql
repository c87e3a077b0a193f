-- A Tractor match keeps its own score (issue 42): each deal as the recorder's side entered it
-- on its phone (the declarer, the defenders' points with the bottom's multiplied points, the
-- trump cards shown, or a deal ruled lost), and where it stands with the other side. The
-- match's games are stored from these through the Tractor sheets' path (tractor_deals,
-- point_penalties, matches) once both sides confirm them.
create table tractor_sheet_deals (
    event_id      varchar not null references events (event_id),
    stage         varchar not null,
    match_no      integer not null,
    deal          integer not null,   -- numbered through the match: 1, 2, 3 … across games
    declarer      varchar not null,   -- a | b: the match's first or second team
    points        integer not null,   -- the defenders' points, the bottom's included
    bottom_points integer not null default 0,
    multiplier    integer not null default 1,
    trump_cards   integer not null default 1,
    lost_by       varchar,            -- a ruled deal: the side that loses it
    ruled_levels  integer not null default 0,
    status        varchar not null default 'entered',  -- entered | confirmed | disputed
    entered_side  varchar not null,
    entered_at    timestamp not null default current_timestamp,
    answered_side varchar,
    answered_at   timestamp,
    primary key (event_id, stage, match_no, deal)
);

-- when the match's own clock started (tractor.match_minutes > 0, seed 000: 1.5 h a match)
create table tractor_sheet_starts (
    event_id   varchar not null references events (event_id),
    stage      varchar not null,
    match_no   integer not null,
    started_at timestamp not null,
    primary key (event_id, stage, match_no)
);

-- each side's word on the match's result (both: stored)
create table tractor_sheet_results (
    event_id     varchar not null references events (event_id),
    stage        varchar not null,
    match_no     integer not null,
    side         varchar not null,
    summary      varchar not null,
    confirmed_at timestamp not null default current_timestamp,
    primary key (event_id, stage, match_no, side)
);

-- a Guandan deal entered as the referee ruled it (shown on the sheet and in the audit)
alter table table_sheet_deals add column ruled boolean default false;
