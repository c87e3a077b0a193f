-- marts: one row per round of event $event_id with a result: a fingerprint of everything the
-- ranking after that round reads — the results and the pairings of the rounds up to it, and
-- all of the event's penalties, fouls, rulings, quiz, teams, carried totals, lot and ruleset
-- (as standings_fingerprint.sql). The ranking after an earlier round stays current while its
-- fingerprint is unchanged: storing round 7 or pairing round 8 leaves rounds 1–6's as they were.
with

played as (
    select distinct round from results where event_id = $event_id
),

results_by_round as (
    select round, count(*) as n, bit_xor(hash(x)) as h from results as x
    where event_id = $event_id group by round
),

pairings_by_round as (
    select round, count(*) as n, bit_xor(hash(x)) as h from pairings as x
    where event_id = $event_id group by round
),

results_upto as (
    select p.round, sum(r.n) as n, bit_xor(r.h) as h
    from played as p join results_by_round as r on r.round <= p.round
    group by p.round
),

pairings_upto as (
    select p.round, sum(r.n) as n, bit_xor(r.h) as h
    from played as p join pairings_by_round as r on r.round <= p.round
    group by p.round
),

whole as (
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
),

event_wide as (
    select string_agg(part || n || '.' || coalesce(h, 0), ',' order by part) as parts
    from whole
),

final as (
    select
        p.round,
        'r' || r.n || '.' || r.h || ',p' || coalesce(g.n, 0) || '.' || coalesce(g.h, 0)
            || ',' || w.parts as fingerprint
    from played as p
    join results_upto as r using (round)
    left join pairings_upto as g using (round)
    cross join event_wide as w
)

select * from final order by round
