-- The rating history without its player index (issue 52): a whole history written at once (an
-- archive of other tools' first import, a full recompute: 200,000 rows at 1,000 events) built
-- the index in its transaction and wrote it at the commit's checkpoint — 0.16 of 0.23 s of
-- the commit's CPU, and 0.14 s of writing for an import that adds one event's rows. A
-- profile's lookup of one player reads the column instead (about 9 ms of CPU instead of 2 at
-- 1,000 events, measured).
drop index if exists rating_history_player;
