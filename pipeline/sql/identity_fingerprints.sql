-- marts: one row per event with registered teams, a fingerprint of everything the player map
-- reads of it (its day, and each team's players, member ids and unit). An event whose
-- fingerprint differs from the one stored in identity_events (or is new, or gone) has its
-- names read again; every other event's rows of the player map stand.
with

final as (
    select
        t.event_id,
        coalesce(e.event_date, e.created_at::date)::varchar || ';' || count(*)::varchar || ';'
            || bit_xor(hash(t.team_no, t.player1, t.player2, t.player3, t.player4, t.member1,
                            t.member2, t.member3, t.member4, t.affiliation))::varchar
            as fingerprint
    from teams as t
    inner join events as e using (event_id)
    group by t.event_id, e.event_date, e.created_at
)

select * from final
