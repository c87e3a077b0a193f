-- marts: one row per event, a fingerprint of everything its ranking reads (results,
-- penalties, fouls, the rulings, quiz, teams, byes, carried totals, the lot, ruleset). The cached
-- event_ranks of an event are current while its fingerprint equals the one stored in
-- event_rank_state. With $events, only those events' rows are read (a batch of the history's
-- ranking checks and notes its own events alone, issue 52); null: every event.
with

wanted as (
    select unnest($events::varchar[]) as event_id
),

parts as (
    select event_id, 'r' as part, count(*) as n, bit_xor(hash(x)) as h
    from results as x
    where $events::varchar[] is null or event_id in (select event_id from wanted)
    group by event_id
    union all
    select event_id, 'p', count(*), bit_xor(hash(x)) from penalties as x
    where $events::varchar[] is null or event_id in (select event_id from wanted)
    group by event_id
    union all
    select event_id, 'f', count(*), bit_xor(hash(x)) from fouls as x
    where $events::varchar[] is null or event_id in (select event_id from wanted)
    group by event_id
    union all  -- the chief arbiter's rulings (a round lost counts once confirmed)
    select event_id, 'o', count(*), bit_xor(hash(ruling_id || status)) from official_rulings
    where kind = 'ruled_loss'
      and ($events::varchar[] is null or event_id in (select event_id from wanted))
    group by event_id
    union all
    select event_id, 'q', count(*), bit_xor(hash(x)) from quiz as x
    where $events::varchar[] is null or event_id in (select event_id from wanted)
    group by event_id
    union all
    select event_id, 't', count(*), bit_xor(hash(x)) from teams as x
    where $events::varchar[] is null or event_id in (select event_id from wanted)
    group by event_id
    union all
    select event_id, 'b', count(*), bit_xor(hash(x)) from pairings as x
    where ns_team is null
      and ($events::varchar[] is null or event_id in (select event_id from wanted))
    group by event_id
    union all
    select event_id, 'c', count(*), bit_xor(hash(x)) from carried_totals as x
    where $events::varchar[] is null or event_id in (select event_id from wanted)
    group by event_id
    union all
    select event_id, 'l', count(*), bit_xor(hash(x)) from event_lots as x
    where $events::varchar[] is null or event_id in (select event_id from wanted)
    group by event_id
),

final as (
    select
        e.event_id,
        hash(e.ruleset_toml)::varchar || ';'
            || coalesce(string_agg(p.part || p.n || '.' || p.h, ',' order by p.part), '')
            as fingerprint
    from events as e
    left join parts as p using (event_id)
    where $events::varchar[] is null or e.event_id in (select event_id from wanted)
    group by e.event_id, e.ruleset_toml
)

select * from final
