-- The table keeps its own score (issue 42): each deal as the recorder's side entered it on
-- the table's phone, and where it stands with the other side (confirmed, disputed, or
-- entered and waiting), with who did what and when. A table's result is stored from these
-- through the deal sheet's path (results, deals, result_audit) once both sides confirm it.
create table table_sheet_deals (
    event_id       varchar not null references events (event_id),
    round          integer not null,
    table_no       integer not null,
    deal           integer not null,
    winner_side    varchar not null,   -- ew | ns: the side of 上游
    partner_finish integer not null,   -- 2 | 3 | 4: 二游 / 三游 / 下游
    status         varchar not null default 'entered',  -- entered | confirmed | disputed
    entered_side   varchar not null,
    entered_at     timestamp not null default current_timestamp,
    answered_side  varchar,            -- the side that confirmed or disputed it
    answered_at    timestamp,
    primary key (event_id, round, table_no, deal)
);

-- each side's word on the table's final result (both: stored)
create table table_sheet_results (
    event_id     varchar not null references events (event_id),
    round        integer not null,
    table_no     integer not null,
    side         varchar not null,
    ew_level     integer not null,
    ns_level     integer not null,
    deals        integer not null,
    confirmed_at timestamp not null default current_timestamp,
    primary key (event_id, round, table_no, side)
);
