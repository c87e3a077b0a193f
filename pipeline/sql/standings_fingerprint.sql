-- One value for everything the ranking of event $event_id after round $max_round reads:
-- results, the pairings up to that round,
-- penalties, fouls, the rulings, quiz, teams, carried totals, the lot, the ruleset. A cached ranking is
-- served only while this is unchanged (pairing the next round leaves it so).
with

parts as (
    select 'r' as part, count(*) as n, bit_xor(hash(x)) as h from results as x
    where event_id = $event_id
    union all
    select 'p', count(*), bit_xor(hash(x)) from pairings as x
    where event_id = $event_id and round <= $max_round
    union all
    select 'n', count(*), bit_xor(hash(x)) from penalties as x where event_id = $event_id
    union all
    select 'f', count(*), bit_xor(hash(x)) from fouls as x where event_id = $event_id
    union all  -- the chief arbiter's rulings (a round lost counts once confirmed)
    select 'o', count(*), bit_xor(hash(ruling_id || status)) from official_rulings
    where event_id = $event_id and kind = 'ruled_loss'
    union all
    select 'q', count(*), bit_xor(hash(x)) from quiz as x where event_id = $event_id
    union all
    select 't', count(*), bit_xor(hash(x)) from teams as x where event_id = $event_id
    union all
    select 'c', count(*), bit_xor(hash(x)) from carried_totals as x where event_id = $event_id
    union all
    select 'l', count(*), bit_xor(hash(x)) from event_lots as x where event_id = $event_id
    union all
    select 'e', count(*), bit_xor(hash(ruleset_toml)) from events where event_id = $event_id
)

select string_agg(part || n || '.' || coalesce(h, 0), ',' order by part) from parts
