-- marts: one row per round that is paired or has a result: tables reported / expected.
-- Expected is the paired tables (byes excluded), or half the field before pairing.
with

reported as (
    select round, count(*) as reported
    from results
    where event_id = $event_id
    group by round
),

paired as (
    select round, count(table_no) as paired_tables
    from pairings
    where event_id = $event_id
    group by round
),

field as (
    select count(*) // 2 as half_field from teams where event_id = $event_id
),

all_rounds as (
    select round from reported
    union
    select round from paired
),

final as (
    select
        a.round,
        coalesce(r.reported, 0) as reported,
        coalesce(p.paired_tables, f.half_field) as expected,
        p.round is not null as paired
    from all_rounds as a
    left join reported as r using (round)
    left join paired as p using (round)
    cross join field as f
)

select * from final
order by round
