-- intermediate: no head-to-head key: head_to_head.sql's columns without a row (every team's
-- head_to_head is 0 and nothing is grouped).
select event_id, team_no, 0.0::double as h2h_1, 0.0::double as h2h_2, 0.0::double as h2h_3
from team_totals
where false
