-- marts: one row per round that is paired or has a result: tables reported / expected.
-- Expected is the paired tables (byes excluded), or half the field before pairing; missing
-- lists the paired tables not reported yet.
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

missing as (
    -- the paired tables with no result yet, in table order ("5,12")
    select p.round, string_agg(p.table_no::varchar, ',' order by p.table_no) as missing
    from pairings as p
    where p.event_id = $event_id and p.table_no is not null
      and not exists (select 1 from results as x where x.event_id = p.event_id
                      and x.round = p.round and x.table_no = p.table_no)
    group by p.round
),

final as (
    select
        a.round,
        coalesce(r.reported, 0) as reported,
        coalesce(p.paired_tables, f.half_field) as expected,
        coalesce(m.missing, '') as missing,
        p.round is not null as paired
    from all_rounds as a
    left join reported as r using (round)
    left join paired as p using (round)
    left join missing as m using (round)
    cross join field as f
)

select * from final
order by round
