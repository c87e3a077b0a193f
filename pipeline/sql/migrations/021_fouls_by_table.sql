-- Fouls by table (issue 38): in a team event each pair sits at its own table, and a ruleset
-- may count violations per pair (`scoring.fouls_per = "pair"`): a row names its table;
-- 0 is the team as a whole (every row before this version, and a row without a table).
create table fouls_next (
    event_id   varchar not null references events (event_id),
    round      integer not null,
    team_no    varchar not null,
    fouls      integer not null check (fouls >= 0),
    warnings   integer default 0,
    violations integer default 0,
    table_no   integer not null default 0 check (table_no >= 0),
    primary key (event_id, round, team_no, table_no)
);
insert into fouls_next (event_id, round, team_no, fouls, warnings, violations)
    select event_id, round, team_no, fouls, warnings, violations from fouls;
drop table fouls;
alter table fouls_next rename to fouls;
