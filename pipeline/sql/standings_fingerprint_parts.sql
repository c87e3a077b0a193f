-- intermediate: one row per event-wide part of what a ranking of event $event_id reads, each
-- a count and a hash of its rows — penalties, fouls, the chief arbiter's rulings, quiz,
-- teams, carried totals, the lot, the ruleset. Shared by standings_fingerprint.sql (the
-- ranking after one round) and standings_fingerprints_by_round.sql (after each round): what
-- they add is the results and the pairings they read.
with

final as (
    select 'n' as part, count(*) as n, bit_xor(hash(x)) as h from penalties as x
    where event_id = $event_id
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

select * from final
