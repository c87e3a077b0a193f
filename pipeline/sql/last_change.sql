-- marts: one row: when the event last changed as the projector shows it (issue 51) — a
-- result stored (local time, as DuckDB's current_timestamp is stored), a deal entered or
-- answered on a sheet, a ruling decided (both naive UTC), a round's pairing or its clock's
-- start (epoch seconds). The projector's "updated" is never before the round began.
with

stored as (
    select max(updated_at) as at from results where event_id = $event_id
),

paired as (
    select max(paired_at) as at from pairings where event_id = $event_id
),

sheets as (
    select greatest(
        (select max(coalesce(answered_at, entered_at)) from table_sheet_deals
         where event_id = $event_id),
        (select max(coalesce(answered_at, entered_at)) from tractor_sheet_deals
         where event_id = $event_id),
        (select max(decided_at) from official_rulings where event_id = $event_id)
    ) as at_utc
),

started as (
    select max(started_at) as epoch from round_clocks where event_id = $event_id
),

final as (
    select stored.at as stored_at, paired.at as paired_at, sheets.at_utc as sheets_at_utc,
           started.epoch as started_epoch
    from stored, paired, sheets, started
)

select * from final
