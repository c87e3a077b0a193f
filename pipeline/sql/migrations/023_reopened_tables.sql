-- A decided table stays decided (issue 39): once a table's result is stored — from a sheet,
-- the console, a decision or both sides agreeing — a side's report is refused as decided,
-- until the organizer reopens the table (audited in paisai log). Stored again, it closes.
create table reopened_tables (
    event_id    varchar not null references events (event_id),
    round       integer not null,
    table_no    integer not null,
    reopened_at timestamp not null default current_timestamp,
    primary key (event_id, round, table_no)
);
