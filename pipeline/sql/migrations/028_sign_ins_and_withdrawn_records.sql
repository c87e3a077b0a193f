-- Sign-in failures by the name typed (issue 49): every sign-in locks the same way — an
-- official, the first organizer (PAISAI_ADMIN_PASSWORD, the empty name) and a name nobody
-- has alike, so a lock says nothing about who exists. Five failures in a row lock the name
-- for a while; a success clears it. Rows idle for a day are dropped at the next sign-in.
create table sign_in_locks (
    account        varchar primary key,   -- 'organizer', or 'name:' and the name as typed
    failed         integer not null default 0,
    locked_until   timestamp,
    last_failed_at timestamp not null
);

-- A record a referee withdraws as a mistake (issue 51): kept, marked with who and when; the
-- ladder counts it no more.
alter table official_records add column withdrawn_at timestamp;
alter table official_records add column withdrawn_by integer;
