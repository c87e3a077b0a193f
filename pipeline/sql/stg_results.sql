-- staging: one row per table result of the events $event_ids up to round $max_round, byes
-- included (one event live; many at once when the history ranks its archive: every layer
-- carries event_id and groups, joins and windows within it). Renames and casts only.
with

reported as (
    select event_id, round, table_no, ew_team, ns_team, ew_level, ns_level, deals, forfeit,
           first_to_level, last_deal_side, false as is_bye, null::varchar as bye_kind,
           null::double as bye_points
    from results
    where event_id in (select unnest($event_ids)) and round <= $max_round
),

byes as (
    select event_id, round, null::integer as table_no, ew_team, null::varchar as ns_team,
           null::integer as ew_level, null::integer as ns_level, null::integer as deals,
           null::varchar as forfeit, null::varchar as first_to_level,
           null::varchar as last_deal_side, true as is_bye,
           coalesce(bye_kind, 'allocated') as bye_kind, bye_points
    from pairings
    where event_id in (select unnest($event_ids)) and round <= $max_round and ns_team is null
),

final as (
    select * from reported
    union all
    select * from byes
)

select * from final
