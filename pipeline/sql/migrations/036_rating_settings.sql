-- An association's rating settings (issue 52, `paisai rating-settings`): the margin cap (levels
-- a game says at most), the half-life of a game's weight (days) and the ridge's prior (games).
-- No row, or a null: the default (pipeline/history/rating_model.py, Settings). The stored list
-- names the settings it was fitted with (rating_state), so a change makes it stale.
create table rating_settings (
    margin_cap     integer,
    half_life_days integer,
    prior_games    double
);
