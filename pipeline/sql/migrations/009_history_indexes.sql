-- point lookups of one player in history queries
create index player_map_player on player_map (player_id);
create index rating_history_player on rating_history (player_id);
