-- The organizer console: per-event secret for signed table links, and table self-reports
-- waiting for the organizer.
create table event_secrets (
    event_id varchar primary key references events (event_id),
    secret   varchar not null
);

create sequence report_seq;
create table pending_reports (
    report_id    bigint primary key default nextval('report_seq'),
    event_id     varchar not null references events (event_id),
    round        integer not null,
    table_no     integer not null,
    ew_level     integer not null check (ew_level between 2 and 15),
    ns_level     integer not null check (ns_level between 2 and 15),
    submitted_at timestamp not null default current_timestamp,
    status       varchar not null default 'pending'
        check (status in ('pending', 'accepted', 'rejected')),
    decided_at   timestamp,
    message      varchar
);
