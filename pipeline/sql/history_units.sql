-- marts: one row per affiliation per event: teams entered, games and results, best rank.
-- Needs history_games.
with

entered as (
    select t.event_id, coalesce(t.affiliation, '') as affiliation, count(*) as teams,
           min(r.rank) as best_rank, any_value(r.field_size) as field_size
    from teams t
    left join event_ranks r on r.event_id = t.event_id and r.team_no = t.team_no
    group by t.event_id, coalesce(t.affiliation, '')
),

played as (
    select g.event_id, coalesce(t.affiliation, '') as affiliation,
           count(distinct (g.round, g.team_no)) as games,
           count(distinct (g.round, g.team_no)) filter (where g.outcome = 'win') as wins,
           count(distinct (g.round, g.team_no)) filter (where g.outcome = 'draw') as draws,
           count(distinct (g.round, g.team_no)) filter (where g.outcome = 'loss') as losses
    from history_games g
    join teams t on t.event_id = g.event_id and t.team_no = g.team_no
    group by g.event_id, coalesce(t.affiliation, '')
),

final as (
    select en.affiliation, en.event_id, e.event_date, en.teams,
           coalesce(p.games, 0) as games, coalesce(p.wins, 0) as wins,
           coalesce(p.draws, 0) as draws, coalesce(p.losses, 0) as losses,
           en.best_rank, en.field_size
    from entered en
    join events e using (event_id)
    left join played p using (event_id, affiliation)
)

select * from final
