-- intermediate: the event's lot (its drawn seed), 0 before any: one row per event of
-- $event_ids that has drawn one. The ranking's `lot` key reads it.
select event_id, max(seed) as seed from event_lots
where event_id in (select unnest($event_ids))
group by event_id
