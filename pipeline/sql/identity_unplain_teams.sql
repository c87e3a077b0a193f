-- marts: one row per registered team (event_id, team_no) whose seats the player map may not
-- read as its rows have them: a seat without its row or a row without its seat, a name, unit
-- or member id written otherwise, a member id given at all (a claim is decided by every seat
-- giving it), a name the map folds two ways, or a row's name that reading a seat would change
-- (a zero-width character, white space at either end). Every other team's seats are the
-- map's rows exactly, so an old map (made before identity_events was kept) is compared with
-- the teams seat by seat only here (`changed_names.unlike_map`).
with

seats as (
    select *
    from (
        select event_id, team_no, 1 as slot, player1 as name, member1 as member_id, affiliation
        from teams
        union all
        select event_id, team_no, 2, player2, member2, affiliation from teams
        union all
        select event_id, team_no, 3, player3, member3, affiliation from teams
        union all
        select event_id, team_no, 4, player4, member4, affiliation from teams
    )
    where name is not null and name <> '' and event_id in (select event_id from events)
),

folded_twice as (
    select name
    from player_map
    group by name
    having min(norm_name) <> max(norm_name)  -- norm_name is never null
),

compared as (
    select
        coalesce(s.event_id, m.event_id) as event_id,
        coalesce(s.team_no, m.team_no) as team_no,
        s.event_id is not null and m.event_id is not null
        and s.name = m.name
        and s.affiliation is not distinct from m.affiliation
        and coalesce(s.member_id, '') = ''
        and m.member_id is null
        and m.name not in (select name from folded_twice)
        and not regexp_matches(
            m.name,
            '^[\x{09}-\x{0d}\x{20}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}'
            || '\x{202f}\x{205f}\x{3000}]|[\x{09}-\x{0d}\x{20}\x{85}\x{a0}\x{1680}'
            || '\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]$|[\x{ad}\x{180e}'
            || '\x{200b}-\x{200f}\x{202a}-\x{202e}\x{2060}-\x{2064}\x{feff}]'
        ) as plain
    from seats as s
    full outer join player_map as m
        on m.event_id = s.event_id and m.team_no = s.team_no and m.slot = s.slot
),

final as (
    select distinct event_id, team_no
    from compared
    where not coalesce(plain, false)
)

select * from final
