-- a table's self-report by side: East-West and North-South each have a signed link; when
-- both sides send the same result it is stored without waiting for the organizer
alter table pending_reports add column side varchar;
