-- marts: one row per round of event $event_id with a result: a fingerprint of everything the
-- ranking after that round reads — the results and the pairings of the rounds up to it, and
-- all of the event's penalties, fouls, rulings, quiz, teams, carried totals, lot and ruleset
-- (standings_fingerprint_parts.sql, shared with standings_fingerprint.sql, composed before this
-- by scoring.fingerprint_query). The ranking after an earlier round stays current while its
-- fingerprint is unchanged: storing round 7 or pairing round 8 leaves rounds 1–6's as they were.
-- Written as standings_fingerprint.sql writes its one value, with the results up to the round:
-- the same value as that one's for the latest round, so that the ranking an ingest kept for a
-- round (standings_cache) is known current by it after later rounds are stored.
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

by_round_parts as (
    select p.round, 'r' as part, r.n, r.h
    from played as p join results_upto as r using (round)
    union all
    select p.round, 'p', coalesce(g.n, 0), g.h
    from played as p left join pairings_upto as g using (round)
    union all
    select p.round, w.part, w.n, w.h
    from played as p cross join standings_fingerprint_parts as w
),

final as (
    select round, string_agg(part || n || '.' || coalesce(h, 0), ',' order by part) as fingerprint
    from by_round_parts
    group by round
)

select * from final order by round
