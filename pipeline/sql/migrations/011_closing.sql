-- an event the organizer has closed: its table links no longer work
alter table events add column closed_at timestamp;
-- why a pending report was set aside (a newer one from the same table replaced it)
alter table pending_reports add column note varchar;
-- with equal levels, the side that won the last deal (equal_levels = "last_deal")
alter table results add column last_deal_side varchar;
-- seed 001 (Jiangsu rules): warnings and violations beside seed 003's fouls
alter table fouls add column warnings integer default 0;
alter table fouls add column violations integer default 0;
