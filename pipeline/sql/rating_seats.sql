-- marts: each registered player of each team, numbered: the players of the whole history in
-- the order of their ids, 0, 1, 2… (a fit's index of them). A seat whose person is unclear
-- (its note is $unclear: a namesake's seat evidence could not place) is an anonymous player
-- of its own, `anonymous`, keyed by the seat: rated with its game, never listed. In the
-- order of the teams' seats (a fit reads each side's players by slot). With $events, only
-- those events' seats (their index then numbers them alone: an import that appends events
-- numbers their new players after those the last fit read).
with

seats as (
    select
        event_id,
        team_no,
        slot,
        coalesce(note = $unclear, false) as anonymous,
        case when note = $unclear
            then '~' || event_id || '~' || team_no || '~' || slot::varchar
            else player_id
        end as player_id
    from player_map
    where $events::varchar[] is null or event_id in (select unnest($events::varchar[]))
),

final as (
    select
        event_id,
        team_no,
        slot,
        player_id,
        anonymous,
        (dense_rank() over (order by player_id) - 1)::bigint as "index"
    from seats
)

select * from final
order by event_id, team_no, slot
