-- Byes and forfeits as other tools write them (issue 38, FIDE C.07 2026): a double forfeit
-- (both teams absent: forfeit = 'both'), and byes of their own kind and value — a bye the
-- pairing allocates ('allocated', worth the ruleset's bye points unless given) or one a team
-- asked for ('requested': half a point, or none, as the organizer gives it).
create table results_next (
    event_id       varchar not null references events (event_id),
    round          integer not null check (round > 0),
    table_no       integer not null check (table_no > 0),
    ew_team        varchar not null,
    ns_team        varchar not null,
    ew_level       integer check (ew_level between 2 and 15),
    ns_level       integer check (ns_level between 2 and 15),
    deals          integer check (deals >= 0),
    forfeit        varchar check (forfeit in ('ew', 'ns', 'both')),
    note           varchar,
    source_file    varchar,
    updated_at     timestamp not null default current_timestamp,
    first_to_level varchar,
    last_deal_side varchar,
    primary key (event_id, round, table_no),
    check (ew_team <> ns_team),
    check (forfeit is not null or (ew_level is not null and ns_level is not null))
);
insert into results_next by name select * from results;
drop table results;
alter table results_next rename to results;

alter table pairings add column bye_kind varchar default 'allocated';
alter table pairings add column bye_points double;
