-- A Tractor match decided by its clock (issue 38, seed 000: "1.5小時結束時領先隊獲勝"): the
-- team ahead when time ran out wins without a game being invented. `team_no` is, as for a
-- forfeit or a disqualification, the side the decision goes against.
create table tractor_decisions_next (
    event_id    varchar not null references events (event_id),
    stage       varchar not null,
    match_no    integer not null,
    team_no     varchar not null,
    decision    varchar not null check (decision in ('forfeit', 'disqualified', 'time')),
    source_file varchar,
    primary key (event_id, stage, match_no)
);
insert into tractor_decisions_next select * from tractor_decisions;
drop table tractor_decisions;
alter table tractor_decisions_next rename to tractor_decisions;
