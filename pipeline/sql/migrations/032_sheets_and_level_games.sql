-- Each deal a referee (or the organizer) took off a table's or a match's own sheet (issue
-- 49): the mark of the recorder's form for the next deal counts them, so a form drawn
-- before a deal was taken off — a reload re-sending it, a stale second phone — can never
-- bring the removed deal back. One row per decision; `sheet` is the sheet's deals table
-- and `sheet_key` its key as the log names it ("round 1 table 3", "final match 2").
create table sheet_takeoffs (
    event_id  varchar not null references events (event_id),
    sheet     varchar not null,
    sheet_key varchar not null,
    deal      integer not null,   -- the first deal taken off (every later one went with it)
    taken_at  timestamp not null,
    taken_by  varchar
);

-- A level game reported from the phones (issue 51): where the preset decides equal levels
-- by a side (scoring.equal_levels = last_deal: 末副上游方; first_to_reach: 先到方), a side's
-- report says which (ew | ns); empty when the levels differ.
alter table pending_reports add column decider varchar;
