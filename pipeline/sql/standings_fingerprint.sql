-- One value for everything the ranking of event $event_id after round $max_round reads:
-- results, the pairings up to that round, and the event-wide parts
-- (standings_fingerprint_parts.sql: penalties, fouls, the rulings, quiz, teams, carried
-- totals, the lot, the ruleset). A cached ranking is served only while this is unchanged
-- (pairing the next round leaves it so). Composed after standings_fingerprint_parts
-- (scoring.fingerprint_query).
with

parts as (
    select * from standings_fingerprint_parts
    union all
    select 'r', count(*), bit_xor(hash(x)) from results as x
    where event_id = $event_id
    union all
    select 'p', count(*), bit_xor(hash(x)) from pairings as x
    where event_id = $event_id and round <= $max_round
),

final as (
    select string_agg(part || n || '.' || coalesce(h, 0), ',' order by part) as fingerprint
    from parts
)

select * from final
